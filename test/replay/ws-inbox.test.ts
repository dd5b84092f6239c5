import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { WsInbox } from '../../src/replay/ws/ws-inbox.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';

useCleanups();

const FRAMES = 5_000;

describe('WsInbox', () => {
  it('stops reading a client that sends far ahead, and hands every frame on in order once taken', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    onCleanup(() => new Promise<void>((resolve) => wss.close(() => resolve())));
    const accepted = once(wss, 'connection') as Promise<[WebSocket]>;
    const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
    onCleanup(() => void client.terminate());
    const [server] = await accepted;
    const inbox = new WsInbox(server);

    // The inbox's own listener runs first; this one sees the queue right after each frame.
    const filled = new Promise<void>((resolve) => {
      const check = () => {
        if (inbox.size >= 1024) {
          server.off('message', check);
          resolve();
        }
      };
      server.on('message', check);
    });
    await once(client, 'open');
    for (let i = 0; i < FRAMES; i++) client.send(JSON.stringify({ n: i }));
    await filled;
    const socket = (server as unknown as { _socket: { isPaused(): boolean } })._socket;
    expect(socket.isPaused()).toBe(true);

    const seen: number[] = [];
    for (let i = 0; i < FRAMES; i++) {
      const frame = await inbox.next();
      seen.push((JSON.parse(frame!.data.toString()) as { n: number }).n);
    }
    expect(seen).toEqual(Array.from({ length: FRAMES }, (_, i) => i));
    expect(socket.isPaused()).toBe(false);
  });
});
