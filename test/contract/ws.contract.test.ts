/**
 * The transport contract for WebSocket: a JSON-RPC 2.0 peer (one message per text frame, judged by the
 * json-rpc module) behind `startRecorder`, replayed by `startReplay`, and a `ws` client. Every leg is a
 * unix socket, whose small kernel buffers, with the relay's 1 MiB allowance per leg, a flood of 2.5 MB outgrows.
 */
import { createServer } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import { onCleanup } from '../support/cleanups.js';
import { bareRegistry } from '../support/shared.js';
import { scratch } from '../support/temp-dir.js';
import { startRecorder } from '../../src/record/start-recorder.js';
import { startReplay } from '../../src/replay/start-replay.js';
import type { ReplayMiss } from '../../src/replay/replay-context.js';
import { frameMissMessage } from '../../src/replay/ws/ws-miss.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { protocolById } from '../../src/protocols/modules.js';
import { describeTransportContract, type ClientRun, type Ending, type Script } from './transport-contract.js';

// The relay lets 1 MiB wait for a slow leg before it pauses the other (WS_HIGH_WATER): the flood is well past it.
const FLOOD = 80;
const PADDING = 'x'.repeat(32 * 1024);

type Request = { method: string; params: Record<string, number> };

/** The requests each script makes, one after the other, each once the answer to the one before it came. */
const REQUESTS: Record<Script, Request[]> = {
  conversation: [
    { method: 'count', params: { n: 3 } },
    { method: 'count', params: { n: 2 } },
  ],
  flood: [{ method: 'flood', params: { n: FLOOD } }],
  'peer-closes': [{ method: 'die', params: { after: 2 } }],
};

interface JsonRpcPeer {
  socketPath: string;
  /** Flood notifications the peer has handed to its socket. */
  floodSent(): number;
  /** Resolves when the latest connection has closed. */
  lastClosed(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A JSON-RPC peer: `count` sends n `tick` notifications then its result; `flood` sends n large numbered
 * ones, each once the one before it is on the socket; `die` sends `after` ticks and drops the connection.
 */
async function startJsonRpcPeer(socketPath: string): Promise<JsonRpcPeer> {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  let floodSent = 0;
  let lastClosed: Promise<void> = Promise.resolve();
  wss.on('connection', (ws) => {
    lastClosed = new Promise((resolve) => ws.once('close', () => resolve()));
    ws.on('error', () => undefined);
    const send = (value: unknown) => new Promise<void>((resolve) => ws.send(JSON.stringify(value), () => resolve()));
    ws.on('message', async (data) => {
      const { id, method, params } = JSON.parse(data.toString()) as Request & { id: string };
      const n = method === 'die' ? params.after : params.n;
      for (let i = 1; i <= n; i++) {
        if (ws.readyState !== WebSocket.OPEN) return;
        if (method === 'flood') {
          await send({ jsonrpc: '2.0', method: 'flood', params: { i: i - 1, padding: PADDING } });
          floodSent++;
        } else await send({ jsonrpc: '2.0', method: 'tick', params: { i, of: n } });
      }
      if (method === 'die') ws.terminate();
      else ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: { n } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    floodSent: () => floodSent,
    lastClosed: () => lastClosed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        server.close(() => resolve());
      }),
  };
}

/** A conversation over `ws`: each request in turn, then a close 1000 once the last is answered. */
function run(socketPath: string, script: Script, ids: string, requests = REQUESTS[script]): ClientRun {
  const messages: string[] = [];
  const ws = new WebSocket(`ws+unix://${socketPath}:/rpc`);
  onCleanup(() => void ws.terminate());
  let left = false;
  let finishing = false;
  let settle!: (ending: Ending) => void;
  const ended = new Promise<Ending>((resolve) => (settle = resolve));
  let turn = 0;
  const ask = () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: `${ids}-${turn + 1}`, ...requests[turn] }));
  let paused = false;
  ws.on('open', () => {
    // ws ignores a pause before the socket is open: it is applied here.
    if (paused) ws.pause();
    ask();
  });
  ws.on('message', (data) => {
    const text = data.toString('latin1');
    messages.push(text);
    if (!text.includes(`"id":"${ids}-${turn + 1}"`)) return;
    if (++turn < requests.length) return ask();
    finishing = true;
    ws.close(1000);
  });
  ws.on('unexpected-response', (_req, res) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => settle({ kind: 'status', status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
  });
  ws.on('error', () => undefined);
  ws.on('close', (code) => settle(left ? { kind: 'left' } : finishing && code === 1000 ? { kind: 'finished' } : { kind: 'closed', code }));
  return {
    messages,
    ended,
    pause: () => {
      paused = true;
      ws.pause();
    },
    resume: () => {
      paused = false;
      ws.resume();
    },
    leave: (how) => {
      left = true;
      if (how === 'abort') return ws.terminate();
      // A client that closes reads on until the close handshake is over.
      ws.resume();
      ws.close(1000, 'leaving');
    },
  };
}

describeTransportContract({
  name: 'WebSocket (JSON-RPC)',
  faults: {
    latency: 'acts',
    gap: 'acts',
    status: 'acts',
    error: { notApplicable: 'an error event of an HTTP stream; a WebSocket ends with a close code (close=)' },
    cut: 'acts',
    close: 'acts',
    exit: { notApplicable: 'the exit of a stdio agent; a WebSocket peer is no child process' },
  },
  endings: { finished: { kind: 'finished' }, clean: { kind: 'closed', code: 1000 }, reset: { kind: 'closed', code: 1006 } },
  sessionsPerProxy: 'many',
  peerClosesAfter: 2,
  flood: {
    count: FLOOD,
    index: (message) => {
      const found = /"method":"flood","params":\{"i":(\d+)/.exec(message);
      return found ? Number(found[1]) : undefined;
    },
  },

  async record(dir = scratch('agent-proxy-contract-')) {
    const peer = await startJsonRpcPeer(dir.file('peer.sock'));
    onCleanup(() => peer.close());
    const recorder = await startRecorder({ target: `unix:${peer.socketPath}`, listen: `unix:${dir.file('proxy.sock')}`, out: dir.file('ws.db'), registry: bareRegistry(), pipeline: 'inline' });
    onCleanup(async () => void (await recorder.close()));
    const socketPath = recorder.url.slice('unix:'.length);
    return {
      converse: (script, ids) => run(socketPath, script, ids),
      floodTaken: () => peer.floodSent(),
      peerSawLeave: () => peer.lastClosed(),
      finish: async () => {
        await recorder.close();
        await peer.close();
        return recorder.out;
      },
    };
  },

  async replay(recording, options = {}) {
    const missed: ReplayMiss[] = [];
    const socketPath = scratch('agent-proxy-contract-').file('replay.sock');
    const replay = await startReplay({ recording, listen: `unix:${socketPath}`, timing: 'none', faults: options.faults, clock: options.clock, log: { served: () => undefined, miss: (m) => missed.push(m) } });
    onCleanup(async () => void (await replay.close()));
    return {
      converse: (script, ids) => run(socketPath, script, ids),
      async miss() {
        const asked = { method: 'never_recorded', params: {} };
        const answer = run(socketPath, 'conversation', 'idMiss', [asked, ...REQUESTS.conversation]);
        await answer.ended;
        const frame = JSON.stringify({ jsonrpc: '2.0', id: 'idMiss-1', ...asked });
        // The sentence names the recorded frame the live one was compared with: the recording's first client frame.
        const reader = RecordingReader.open(recording);
        const recorded = reader.messages(1).find((m) => m.sender === 'client' && m.channel === 'text')!;
        reader.close();
        const message = frameMissMessage({ frame: { channel: 'text', data: Buffer.from(frame) }, expected: { ...recorded, tOffsetMs: 0, truncated: false }, differences: missed[0].differences });
        const expected = protocolById('json-rpc').replay!.missAnswers!.message!(JSON.parse(frame), { message, recordedMethods: new Set(['count']) });
        return { received: answer.messages[0], expected: JSON.stringify(expected) };
      },
      close: async () => (await replay.close()).faults,
    };
  },
});
