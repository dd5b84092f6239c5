/**
 * A stand-in for the Pi daemon's owner-only NDJSON unix socket. It answers from a conversation we
 * wrote (ndjsonConversation below, shaped like the daemon's protocol v1): each command gets the
 * lines written after the scripted command most like it (same operation, generation and
 * idempotency key, taken in order), with the live `requestId` in place of the scripted one. Two
 * operations of its own (`standInFlood`, `standInDie`) flood a connection or break it off.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { MOCK_HELLO, MOCK_MODEL } from './mock-openai.js';

type Json = Record<string, unknown>;

export interface ScriptedCommand {
  command: Json;
  replies: Json[];
}

const HOST = '00000000-0000-4000-8000-0000000000e1';
const SESSION = 'ndjson-a';
const V = '1.0';

/** The Pi events of one text turn on the mock model, as the socket names them (camelCase). */
function turnEvents(requestId: string, firstSequence: number): Json[] {
  const user = { role: 'user', content: [{ type: 'text', text: 'Say hello' }], timestamp: 1_768_467_600_000 };
  const pieces = MOCK_HELLO.match(/\S+ ?/g)!;
  const assistant = (text: string | undefined) => ({ role: 'assistant', content: text === undefined ? [] : [{ type: 'text', text }], provider: 'mock', model: MOCK_MODEL, stopReason: 'stop' });
  const events: Array<[string, Json | undefined]> = [
    ['promptAccepted', { idempotencyKey: 'wake-key-1', queuedTurns: 0 }],
    ['agentStart', {}],
    ['turnStart', undefined],
    ['messageStart', { message: user }],
    ['messageEnd', { message: user }],
    ['messageStart', { message: assistant(undefined) }],
    ['messageUpdate', { assistantMessageEvent: { type: 'text_start', contentIndex: 0 } }],
  ];
  let sofar = '';
  for (const delta of pieces) {
    sofar += delta;
    events.push(['messageUpdate', { assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta, partial: assistant(sofar) } }]);
  }
  events.push(['messageUpdate', { assistantMessageEvent: { type: 'text_end', contentIndex: 0, content: MOCK_HELLO } }]);
  events.push(['messageEnd', { message: assistant(MOCK_HELLO) }], ['turnEnd', { message: assistant(MOCK_HELLO) }], ['agentSettled', undefined], ['agentEnd', {}], ['sessionIdle', {}]);
  return events.map(([event, data], i) => ({
    protocolVersion: V,
    kind: 'event',
    event,
    hostInstanceId: HOST,
    sessionId: SESSION,
    generation: 1,
    sequence: firstSequence + i,
    requestId,
    ...(data === undefined ? {} : { data }),
  }));
}

const command = (requestId: string, operation: string, fields: Json = {}, payload: Json = {}): Json => ({
  protocolVersion: V,
  requestId,
  operation,
  ...(operation === 'handshake' ? {} : { sessionId: SESSION, generation: 1 }),
  ...fields,
  payload,
});
const ok = (requestId: string, data: Json, fields: Json = {}): Json => ({ protocolVersion: V, kind: 'response', requestId, hostInstanceId: HOST, ...fields, ok: true, data });

/** A wake, its turn's events and its terminal response; the turn starts after `sequence`. */
function wake(requestId: string, sequence: number): ScriptedCommand {
  const events = turnEvents(requestId, sequence + 1);
  const last = sequence + events.length;
  const result = { text: MOCK_HELLO, model: { provider: 'mock', id: MOCK_MODEL } };
  return {
    command: command(requestId, 'wake', { idempotencyKey: 'wake-key-1' }, { prompt: 'Say hello', source: 'test' }),
    replies: [...events, ok(requestId, { result }, { sessionId: SESSION, sequence: last })],
  };
}

/** The scripted client commands in order, each with the daemon lines that follow it. */
export function ndjsonConversation(): ScriptedCommand[] {
  const first = wake('wake-1', 1);
  const afterFirst = (first.replies.at(-1)!.sequence as number);
  const again = wake('wake-dup', afterFirst); // the same idempotency key: the daemon runs it as its own turn
  const last = again.replies.at(-1)!.sequence as number;
  const operations = ['handshake', 'open', 'wake', 'steer', 'followUp', 'status', 'abort', 'attach', 'detach', 'close', 'drain'];
  return [
    { command: command('hs-1', 'handshake'), replies: [ok('hs-1', { protocolVersion: V, packageVersion: '0.3.0', capabilities: { operations } })] },
    {
      command: command('open-1', 'open', {}, { cwd: '/srv/work/project-a', session: { mode: 'memory' } }),
      replies: [ok('open-1', { created: true, session: { sessionId: SESSION, generation: 1, state: 'idle', sequence: 1, queuedTurns: 0 } }, { sessionId: SESSION, sequence: 1 })],
    },
    { command: command('attach-1', 'attach'), replies: [ok('attach-1', { attached: true, generation: 1, sequence: 1 }, { sessionId: SESSION, sequence: 1 })] },
    first,
    again,
    { command: command('status-1', 'status'), replies: [ok('status-1', { sessionId: SESSION, generation: 1, state: 'idle', sequence: last, queuedTurns: 0 }, { sessionId: SESSION })] },
    {
      command: command('wake-stale', 'wake', { generation: 6, idempotencyKey: 'wake-key-2' }, { prompt: 'x' }),
      replies: [
        {
          protocolVersion: V,
          kind: 'response',
          requestId: 'wake-stale',
          hostInstanceId: HOST,
          sessionId: SESSION,
          ok: false,
          error: { code: 'stale_generation', message: 'session generation does not match', retryable: false, details: { currentGeneration: 1, receivedGeneration: 6 } },
        },
      ],
    },
    { command: command('detach-1', 'detach'), replies: [ok('detach-1', { detached: true, generation: 1, sequence: last }, { sessionId: SESSION, sequence: last })] },
    { command: command('close-1', 'close'), replies: [ok('close-1', { closed: true }, { sessionId: SESSION })] },
  ];
}

export interface NdjsonDaemon {
  readonly socketPath: string;
  /** Lines received, per connection, as raw text. */
  readonly received: string[][];
  /** Events of `standInFlood` commands the stand-in has handed to its sockets so far. */
  floodSent(): number;
  /** Resolves when the latest connection has closed. */
  lastClosed(): Promise<void>;
  close(): Promise<void>;
}

/** The operations the stand-in answers that the daemon has not: a flood, and a connection that breaks off. */
const FLOOD_OPERATION = 'standInFlood';
const DIE_OPERATION = 'standInDie';

export interface NdjsonDaemonOptions {
  /** Alters each reply before it is written: the same daemon changed, for a diff. */
  change?: (reply: Json) => Json;
  /**
   * Each `open` mints a session id of its own (`ndjson-<random>`) in place of the scripted one, as the
   * daemon does, and a later command of the connection that names another session is refused with
   * `session_not_found`.
   */
  mintSessions?: boolean;
}

export async function startNdjsonDaemon(socketPath: string, options: NdjsonDaemonOptions = {}): Promise<NdjsonDaemon> {
  const conversation = ndjsonConversation();
  const received: string[][] = [];
  const sockets = new Set<Socket>();
  let floodSent = 0;
  let lastClosed: Promise<void> = Promise.resolve();
  const server: Server = createServer((socket) => {
    lastClosed = new Promise((resolve) => socket.once('close', () => resolve()));
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const lines: string[] = [];
    received.push(lines);
    const used = new Set<number>();
    const session: { id?: string } = {};
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let at = pending.indexOf(10); at >= 0; at = pending.indexOf(10)) {
        const text = pending.subarray(0, at).toString('utf8');
        pending = pending.subarray(at + 1);
        lines.push(text);
        answer(socket, text, used, session);
      }
    });
    socket.on('end', () => socket.end());
  });

  function answer(socket: Socket, text: string, used: Set<number>, session: { id?: string }): void {
    let command: Json;
    try {
      command = JSON.parse(text) as Json;
    } catch {
      socket.write(JSON.stringify({ protocolVersion: '1.0', kind: 'response', requestId: null, ok: false, error: { code: 'malformed', message: 'invalid JSON', retryable: false } }) + '\n');
      return;
    }
    if (command.operation === FLOOD_OPERATION || command.operation === DIE_OPERATION) return void standIn(socket, command);
    const same = (c: Json) => c.operation === command.operation && c.generation === command.generation && c.idempotencyKey === command.idempotencyKey;
    let index = conversation.findIndex((c, i) => !used.has(i) && same(c.command));
    if (index < 0) index = conversation.findIndex((c) => c.command.operation === command.operation);
    if (index < 0) {
      socket.write(JSON.stringify({ protocolVersion: '1.0', kind: 'response', requestId: command.requestId, ok: false, error: { code: 'unsupported_operation', message: 'unknown operation', retryable: false } }) + '\n');
      return;
    }
    if (options.mintSessions) {
      if (command.operation === 'open') session.id = `${SESSION}-${randomBytes(6).toString('hex')}`;
      else if (command.sessionId !== undefined && command.sessionId !== session.id) {
        const error = { code: 'session_not_found', message: `no session ${String(command.sessionId)}`, retryable: false };
        socket.write(JSON.stringify({ protocolVersion: '1.0', kind: 'response', requestId: command.requestId, ok: false, error }) + '\n');
        return;
      }
    }
    used.add(index);
    const scriptedId = conversation[index].command.requestId;
    for (const scripted of conversation[index].replies) {
      const reply = session.id === undefined ? scripted : (JSON.parse(JSON.stringify(scripted).replaceAll(`"${SESSION}"`, JSON.stringify(session.id))) as Json);
      const live = reply.requestId === scriptedId ? { ...reply, requestId: command.requestId } : reply;
      socket.write(JSON.stringify(options.change ? options.change(live) : live) + '\n');
    }
  }

  /**
   * `standInFlood`: `payload.n` numbered events of `payload.bytes` bytes of padding, each written once the
   * one before it is on the socket (so a reader that stops reading holds the stand-in back), then its
   * response. `standInDie`: `payload.after` events, then the connection is dropped without a response.
   */
  async function standIn(socket: Socket, command: Json): Promise<void> {
    const payload = command.payload as { n?: number; bytes?: number; after?: number };
    const flood = command.operation === FLOOD_OPERATION;
    const count = (flood ? payload.n : payload.after) ?? 0;
    const event = (i: number): Json => ({ protocolVersion: V, kind: 'event', event: command.operation, hostInstanceId: HOST, sessionId: SESSION, requestId: command.requestId, data: { i, ...(flood ? { padding: 'x'.repeat(payload.bytes ?? 0) } : {}) } });
    const written = (line: Json) => new Promise<void>((resolve) => socket.write(JSON.stringify(line) + '\n', () => resolve()));
    for (let i = 0; i < count; i++) {
      if (socket.destroyed) return;
      await written(event(i));
      if (flood) floodSent++;
    }
    if (flood) socket.write(JSON.stringify(ok(String(command.requestId), { sent: count }, { sessionId: SESSION })) + '\n');
    else socket.destroy();
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
    floodSent: () => floodSent,
    lastClosed: () => lastClosed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
