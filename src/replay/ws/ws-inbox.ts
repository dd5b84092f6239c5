import type { RawData, WebSocket } from 'ws';
import type { LiveFrame } from './ws-frames.js';

/** Frames, and bytes, a client may send ahead of the replay before its connection stops being read. */
const MAX_QUEUED_FRAMES = 1024;
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

/**
 * The frames a live client sent, queued in arrival order until the player is ready for them: a
 * client may send its next frame while the replay is still playing the previous answer.
 * `next()` resolves to undefined once the connection has closed.
 *
 * A client that sends far ahead of the replay (which keeps the recorded pace) is paused rather than
 * queued without bound: past MAX_QUEUED_FRAMES or MAX_QUEUED_BYTES its socket is not read until the
 * player has taken half of the queue, as TCP flow control would pace a real server.
 */
export class WsInbox {
  private readonly queue: LiveFrame[] = [];
  private queuedBytes = 0;
  private paused = false;
  private waiter: ((frame: LiveFrame | undefined) => void) | undefined;
  private closed = false;

  constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: RawData, isBinary: boolean) => this.push({ channel: isBinary ? 'binary' : 'text', data: toBuffer(data) }));
    ws.on('ping', (data: Buffer) => this.push({ channel: 'ping', data }));
    ws.on('pong', (data: Buffer) => this.push({ channel: 'pong', data }));
    ws.on('close', () => this.close());
  }

  next(): Promise<LiveFrame | undefined> {
    const frame = this.queue.shift();
    if (frame) {
      this.queuedBytes -= frame.data.length;
      if (this.paused && this.queue.length <= MAX_QUEUED_FRAMES / 2 && this.queuedBytes <= MAX_QUEUED_BYTES / 2) {
        this.paused = false;
        this.ws.resume();
      }
    }
    if (frame || this.closed) return Promise.resolve(frame);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  private push(frame: LiveFrame): void {
    if (this.closed) return;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) return waiter(frame);
    this.queue.push(frame);
    this.queuedBytes += frame.data.length;
    if (!this.paused && (this.queue.length >= MAX_QUEUED_FRAMES || this.queuedBytes >= MAX_QUEUED_BYTES)) {
      this.paused = true;
      this.ws.pause();
    }
  }

  /** @internal how many frames wait, for tests. */
  get size(): number {
    return this.queue.length;
  }

  private close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.queuedBytes = 0;
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
