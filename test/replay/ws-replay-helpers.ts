/**
 * Plumbing for the WebSocket replay tests: a small recording WebSocket client, the Pi RPC session
 * (framed / raw) and the ACP SDK conversation both the recording and the replay are driven with.
 * Cleanups go through replay-helpers' list (call its useCleanups once per file).
 */
import { WebSocket, type ClientOptions } from 'ws';
import { ClientSideConnection, PROTOCOL_VERSION, type AnyMessage, type SessionNotification, type Stream } from '@agentclientprotocol/sdk';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { startPiDaemon, type PiDaemon, type PiDaemonOptions } from '../support/pi-daemon-standin.js';
import { acpStreamFromWebSocket } from '../support/acp-over-ws.js';
import { testRegistry } from '../support/shared.js';
import { onCleanup } from './replay-helpers.js';
import { within } from '../support/waits.js';

/** Project schemas + the stand-in extras, so the Pi frames get real verdicts. */
export const piRegistry = (): SchemaRegistry => testRegistry();

export async function daemon(options: PiDaemonOptions = {}): Promise<PiDaemon> {
  const d = await startPiDaemon({ deterministic: true, ...options });
  onCleanup(() => d.close());
  return d;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** What a client saw on one connection, in order: text frames as exact text, pongs, and the close. */
export type Seen = { kind: 'text' | 'binary' | 'pong' | 'close'; data: string; at: number };

export interface Client {
  ws: WebSocket;
  seen: Seen[];
  /** Resolves once `n` text frames have arrived. */
  texts(n: number): Promise<string[]>;
  closed: Promise<{ code: number; reason: string }>;
}

/** How a client stamps what it sees (default performance.now()), and who is told after each entry. */
export interface Watch {
  now(): number;
  seen?(entry: Seen): void;
}

const WALL: Watch = { now: () => performance.now() };

/** Opens a WebSocket and logs everything it receives, stamped by `watch`. */
export function connect(url: string, protocols: string | string[], options: ClientOptions = {}, watch: Watch = WALL): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, options);
    onCleanup(() => ws.terminate());
    const seen: Seen[] = [];
    const waiters: Array<() => void> = [];
    const log = (entry: Omit<Seen, 'at'>) => {
      const stamped = { ...entry, at: watch.now() };
      seen.push(stamped);
      for (const w of waiters.splice(0)) w();
      watch.seen?.(stamped);
    };
    ws.on('message', (data, isBinary) => log({ kind: isBinary ? 'binary' : 'text', data: data.toString() }));
    ws.on('pong', (data) => log({ kind: 'pong', data: data.toString() }));
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.on('close', (code, reason) => {
        log({ kind: 'close', data: `${code} ${reason.toString()}` });
        r({ code, reason: reason.toString() });
      }),
    );
    const texts = (n: number) =>
      within(
        new Promise<string[]>((done) => {
          const check = () => {
            const all = seen.filter((s) => s.kind === 'text').map((s) => s.data);
            if (all.length >= n) done(all.slice(0, n));
            else waiters.push(check);
          };
          check();
        }),
        `${n} text frames`,
      );
    ws.on('open', () => resolve({ ws, seen, texts, closed: within(closed, 'the close') }));
    ws.on('error', reject);
  });
}

export const CLOSE = { code: 4001, reason: 'turn over — fin ✓' };

export interface RpcIds {
  state: string;
  prompt: string;
}

/**
 * A Pi RPC session in framed or raw mode: (attach_ready,) get_state, a ping, a prompt whose turn the
 * daemon ends by closing the connection (closeCodeAfterPrompt). Each step waits for its answer.
 * `watch.prompting` is told just before the prompt goes out.
 */
export async function rpcSession(wsBase: string, token: string, mode: 'framed' | 'raw', ids: RpcIds, watch: Watch & { prompting?(): void } = WALL): Promise<Client> {
  const c = await connect(`${wsBase}/v1/session/agent-a/rpc?role=controller`, mode === 'framed' ? 'pi-daemon-rpc.v1' : 'pi-rpc.v1', { headers: bearer(token) }, watch);
  const send = (command: Record<string, unknown>) => c.ws.send(JSON.stringify(mode === 'framed' ? { kind: 'command', command } : command));
  let texts = 0;
  if (mode === 'framed') await c.texts(++texts);
  send({ id: ids.state, type: 'get_state' });
  await c.texts(++texts);
  const pong = new Promise<void>((r) => c.ws.once('pong', () => r()));
  c.ws.ping('are-you-there');
  await within(pong, 'the pong');
  watch.prompting?.();
  send({ id: ids.prompt, type: 'prompt', message: 'READFILE please read hello.txt' });
  await c.closed;
  return c;
}

export interface AcpRun {
  results: unknown[];
  updates: SessionNotification[];
  /** Every JSON-RPC message as the SDK sent and received it. */
  wire: Array<{ dir: 'out' | 'in'; message: AnyMessage }>;
  closed: { code: number; reason: string };
}

/**
 * The official ACP SDK client: initialize → session/new → prompt → close. `idShift` makes the
 * client's request ids differ from the SDK's own (0, 1, 2 …) by that much on the wire, as if it
 * had made other calls first: responses must come back with the shifted ids, or the SDK never
 * sees them answered.
 */
export async function acpSession(wsBase: string, token: string, idShift = 0): Promise<AcpRun> {
  const ws = new WebSocket(`${wsBase}/v1/session/agent-a/apc`, 'agent-client-protocol.v1', { headers: bearer(token) });
  onCleanup(() => ws.terminate());
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
  const wire: AcpRun['wire'] = [];
  const stream = shiftIds(acpStreamFromWebSocket(ws, { onIncoming: (m) => void wire.push({ dir: 'in', message: m }), onOutgoing: (m) => void wire.push({ dir: 'out', message: m }) }), idShift);
  const updates: SessionNotification[] = [];
  const client = new ClientSideConnection(
    () => ({
      requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }),
      sessionUpdate: async (n: SessionNotification) => void updates.push(n),
    }),
    stream,
  );
  const results: unknown[] = [];
  // A deadline for a broken step, not a timing check: through an inline recorder, the first ACP
  // message compiles the whole ACP schema synchronously, which alone took 0.8-4.7 s on the 2-CPU
  // machine (under Node 20, 22 and 24 alike), and nothing else is answered meanwhile.
  const call = <T>(what: string, p: Promise<T>) => within(p, what).then((r) => (results.push(r), r));
  await call(
    'initialize',
    client.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'ws-replay-test', version: '1.0.0' },
    }),
  );
  const session = await call('session/new', client.newSession({ cwd: '/srv/work/project-a', mcpServers: [] }));
  await call('prompt', client.prompt({ sessionId: session.sessionId, prompt: [{ type: 'text', text: 'Say hello' }] }));
  ws.close(1000, 'bye');
  return { results, updates, wire, closed: await within(closed, 'the ACP close') };
}

/** Shifts the ids of outgoing requests by `shift` and of incoming responses back, between the SDK and the socket. */
function shiftIds(stream: Stream, shift: number): Stream {
  if (shift === 0) return stream;
  const isRequest = (m: AnyMessage) => 'method' in m && 'id' in m;
  const isResponse = (m: AnyMessage) => !('method' in m) && 'id' in m;
  const move = (m: AnyMessage, by: number) => ({ ...m, id: (m as { id: number }).id + by }) as AnyMessage;
  const writer = stream.writable.getWriter();
  return {
    readable: stream.readable.pipeThrough(new TransformStream<AnyMessage, AnyMessage>({ transform: (m, c) => c.enqueue(isResponse(m) ? move(m, -shift) : m) })),
    writable: new WritableStream<AnyMessage>({
      write: (m) => writer.write(isRequest(m) ? move(m, shift) : m),
      close: () => writer.close(),
      abort: (e) => writer.abort(e),
    }),
  };
}
