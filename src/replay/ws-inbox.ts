import type { RawData, WebSocket } from 'ws';
import type { LiveFrame } from './ws-frames.js';

/**
 * The frames a live client sent, queued in arrival order until the player is ready for them: a
 * client may send its next frame while the replay is still playing the previous answer.
 * `next()` resolves to undefined once the connection has closed.
 */
export class WsInbox {
  private readonly queue: LiveFrame[] = [];
  private waiter: ((frame: LiveFrame | undefined) => void) | undefined;
  private closed = false;

  constructor(ws: WebSocket) {
    ws.on('message', (data: RawData, isBinary: boolean) => this.push({ channel: isBinary ? 'binary' : 'text', data: toBuffer(data) }));
    ws.on('ping', (data: Buffer) => this.push({ channel: 'ping', data }));
    ws.on('pong', (data: Buffer) => this.push({ channel: 'pong', data }));
    ws.on('close', () => this.close());
  }

  next(): Promise<LiveFrame | undefined> {
    const frame = this.queue.shift();
    if (frame || this.closed) return Promise.resolve(frame);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  private push(frame: LiveFrame): void {
    if (this.closed) return;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter(frame);
    else this.queue.push(frame);
  }

  private close(): void {
    this.closed = true;
    this.queue.length = 0;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(undefined);
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
