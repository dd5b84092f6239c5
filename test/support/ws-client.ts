import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { expect } from 'vitest';
import { WebSocket, type ClientOptions } from 'ws';
import { onCleanup } from './cleanups.js';
import { within } from './waits.js';

/**
 * A WebSocket client for tests: every text frame as it arrived, waits bounded by a timeout, and the
 * socket ended after the test (register `useCleanups()` in the file). Also: an upgrade the server
 * refuses, as the client sees it.
 */



export interface WsSession {
  ws: WebSocket;
  /** Every text frame received, as the exact text. */
  frames: string[];
  /** Resolves with the first `n` frames once they have arrived. */
  take(n: number): Promise<string[]>;
  closed: Promise<{ code: number; reason: string }>;
}

export function wsOpen(url: string, protocols: string | string[], options: ClientOptions = {}): Promise<WsSession> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, options);
    const frames: string[] = [];
    const waiters: Array<() => void> = [];
    ws.on('message', (data, isBinary) => {
      expect(isBinary).toBe(false);
      frames.push(data.toString());
      for (const w of waiters.splice(0)) w();
    });
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    const take = (n: number) =>
      within(
        new Promise<string[]>((res) => {
          const check = () => (frames.length >= n ? res(frames.slice(0, n)) : waiters.push(check));
          check();
        }),
        `${n} frames (have ${frames.length})`,
      );
    ws.on('open', () => {
      onCleanup(() => {
        if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.terminate();
      });
      resolve({
        ws,
        frames,
        take,
        get closed() {
          return within(closed, `${url} to close`);
        },
      });
    });
    ws.on('error', reject);
  });
}

/**
 * Sends text frames back to back in one socket write, as a client bursting commands does. A peer
 * (the proxy) then reads them in one chunk and sees every one of them before anything the server
 * answered in between, whatever the server's timing.
 */
export function sendTogether(ws: WebSocket, texts: string[]): void {
  // ws writes each frame on its own; corking its socket around the sends makes them one write.
  const socket = (ws as unknown as { _socket: Socket })._socket;
  socket.cork();
  for (const text of texts) ws.send(text);
  socket.uncork();
}

export interface Refusal {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** An upgrade the server refuses: its status, headers and body as the client sees them. */
export function wsRefusal(url: string, protocols: string[], options: ClientOptions = {}): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, options);
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() });
        ws.terminate();
      });
    });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => undefined);
  });
}

