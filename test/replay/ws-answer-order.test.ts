/**
 * A replayed WebSocket conversation takes a client's answer to a request the server made whenever it
 * comes: before or after the client's own next request, in whichever order the recording had them.
 * JSON-RPC over a WebSocket (subprotocol `jsonrpc`, as ACP and Pi RPC carry their own requests of the
 * client), driven by a raw client that waits for each answer before it sends the next frame.
 */
import { describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { record, replay, useCleanups } from './replay-helpers.js';

useCleanups();

type Json = Record<string, unknown>;
type Order = 'answer-first' | 'call-first';

/** A JSON-RPC server that asks its client to confirm as it starts, and says when the answer came. */
async function askingServer(): Promise<{ url: string; close(): Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (offered) => (offered.has('jsonrpc') ? 'jsonrpc' : false) });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (ws) => {
    const send = (value: Json) => ws.send(JSON.stringify({ jsonrpc: '2.0', ...value }));
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as Json;
      if (message.method === 'start') {
        send({ id: 'ask-1', method: 'client/confirm', params: { question: 'go on?' } });
        send({ id: message.id, result: { started: true } });
      } else if (message.id === 'ask-1') send({ method: 'confirmed', params: { answer: message.result } });
      else if (message.method === 'work') send({ id: message.id, result: { done: true } });
    });
  });
  const { port } = wss.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => wss.close(() => resolve())) };
}

/** start, then the answer to the server's question and a work request in `order`, each awaited. */
async function session(base: string, order: Order, firstId: number): Promise<Json> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/rpc`, 'jsonrpc');
  const seen: Json[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => {
    seen.push(JSON.parse(String(data)) as Json);
    waiters.splice(0).forEach((wake) => wake());
  });
  let closed: string | undefined;
  ws.on('close', (code, reason) => {
    closed = `${code} ${String(reason)}`;
    waiters.splice(0).forEach((wake) => wake());
  });
  // What has not come when the connection closes will not: a replay closes it on a miss it cannot answer.
  const arrival = (test: (m: Json) => boolean) =>
    new Promise<Json>((resolve, reject) => {
      const check = () => {
        const found = seen.find(test);
        if (found) resolve(found);
        else if (closed !== undefined) reject(new Error(`the connection closed first: ${closed}`));
        else waiters.push(check);
      };
      check();
    });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const send = (value: Json) => ws.send(JSON.stringify({ jsonrpc: '2.0', ...value }));
  send({ id: firstId, method: 'start' });
  const asked = await arrival((m) => m.method === 'client/confirm');
  await arrival((m) => m.id === firstId);
  const answer = async () => {
    send({ id: asked.id, result: { confirmed: true } });
    await arrival((m) => m.method === 'confirmed' || (m.id === asked.id && 'error' in m));
  };
  const work = () => {
    send({ id: firstId + 1, method: 'work' });
    return arrival((m) => m.id === firstId + 1);
  };
  let result: Json;
  if (order === 'answer-first') {
    await answer();
    result = await work();
  } else {
    result = await work();
    await answer();
  }
  const done = new Promise((resolve) => ws.once('close', resolve));
  ws.close();
  await done;
  return result;
}

describe('replay of a WebSocket conversation: a client answer and its own next request, in either order', () => {
  for (const [recorded, live] of [
    ['answer-first', 'call-first'],
    ['call-first', 'answer-first'],
  ] as const) {
    it(`serves a client that sends them ${live} from a recording made ${recorded}`, async () => {
      const server = await askingServer();
      try {
        const recording = await record(server.url);
        expect(await session(recording.url, recorded, 1)).toEqual({ jsonrpc: '2.0', id: 2, result: { done: true } });
        await recording.finish();
        const replayed = await replay(recording.out);
        // The recorded result under the live id, and nothing missed.
        expect(await session(replayed.url, live, 20)).toEqual({ jsonrpc: '2.0', id: 21, result: { done: true } });
        expect(replayed.missed).toEqual([]);
      } finally {
        await server.close();
      }
    });
  }
});
