/**
 * A stand-in for the Pi daemon's owner-only NDJSON unix socket, answering from the captured
 * exchange (../shared/fixtures/pi-daemon/captured/unix-ndjson.json): each command gets the lines
 * the real daemon wrote after the captured command most like it (same operation, generation and
 * idempotency key, taken in captured order), with the live `requestId` in place of the captured one.
 */
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { readSharedJson } from './shared.js';

type Json = Record<string, unknown>;
interface CapturedRecord {
  dir: 'client->server' | 'server->client';
  t: number;
  msg: Json;
}

export interface CapturedCommand {
  command: Json;
  replies: Json[];
}

/** The captured commands in order, each with the daemon lines that followed it. */
export function capturedNdjsonConversation(): CapturedCommand[] {
  const { records } = readSharedJson<{ records: CapturedRecord[] }>('fixtures', 'pi-daemon', 'captured', 'unix-ndjson.json');
  const out: CapturedCommand[] = [];
  for (const record of records) {
    if (record.dir === 'client->server') out.push({ command: record.msg, replies: [] });
    else out.at(-1)?.replies.push(record.msg);
  }
  return out;
}

export interface NdjsonDaemon {
  readonly socketPath: string;
  /** Lines received, per connection, as raw text. */
  readonly received: string[][];
  close(): Promise<void>;
}

export async function startNdjsonDaemon(socketPath: string): Promise<NdjsonDaemon> {
  const conversation = capturedNdjsonConversation();
  const received: string[][] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const lines: string[] = [];
    received.push(lines);
    const used = new Set<number>();
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let at = pending.indexOf(10); at >= 0; at = pending.indexOf(10)) {
        const text = pending.subarray(0, at).toString('utf8');
        pending = pending.subarray(at + 1);
        lines.push(text);
        answer(socket, text, used);
      }
    });
    socket.on('end', () => socket.end());
  });

  function answer(socket: Socket, text: string, used: Set<number>): void {
    let command: Json;
    try {
      command = JSON.parse(text) as Json;
    } catch {
      socket.write(JSON.stringify({ protocolVersion: '1.0', kind: 'response', requestId: null, ok: false, error: { code: 'malformed', message: 'invalid JSON', retryable: false } }) + '\n');
      return;
    }
    const same = (c: Json) => c.operation === command.operation && c.generation === command.generation && c.idempotencyKey === command.idempotencyKey;
    let index = conversation.findIndex((c, i) => !used.has(i) && same(c.command));
    if (index < 0) index = conversation.findIndex((c) => c.command.operation === command.operation);
    if (index < 0) {
      socket.write(JSON.stringify({ protocolVersion: '1.0', kind: 'response', requestId: command.requestId, ok: false, error: { code: 'unsupported_operation', message: 'unknown operation', retryable: false } }) + '\n');
      return;
    }
    used.add(index);
    const recordedId = conversation[index].command.requestId;
    for (const reply of conversation[index].replies) {
      const live = reply.requestId === recordedId ? { ...reply, requestId: command.requestId } : reply;
      socket.write(JSON.stringify(live) + '\n');
    }
  }

  rmSync(socketPath, { force: true });
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, resolve);
    });
  } finally {
    process.umask(previous);
  }
  chmodSync(socketPath, 0o600);
  return {
    socketPath,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
