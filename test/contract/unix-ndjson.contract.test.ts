/**
 * The transport contract for NDJSON lines on a unix socket: the Pi daemon's socket stand-in behind
 * `startNdjsonRecorder`, replayed by `startNdjsonReplay`, and a `net` client that writes one command
 * at a time and reads the lines as they arrive.
 */
import { createConnection } from 'node:net';
import { ndjsonConversation, startNdjsonDaemon } from '../support/ndjson-daemon.js';
import { onCleanup } from '../support/cleanups.js';
import { bareRegistry } from '../support/shared.js';
import { scratch } from '../support/temp-dir.js';
import { startNdjsonRecorder } from '../../src/record/relay/ndjson-relay.js';
import { startNdjsonReplay } from '../../src/replay/line/ndjson-replay.js';
import { protocolById } from '../../src/protocols/modules.js';
import { describeTransportContract, type ClientRun, type Ending, type Script } from './transport-contract.js';

type Json = Record<string, unknown>;

const FLOOD = 48;

const standIn = (operation: string, payload: Json): Json => ({ protocolVersion: '1.0', requestId: operation, operation, sessionId: 'ndjson-a', generation: 1, payload });

/** The commands each script writes, one after the other, each once the response to the one before it came. */
const COMMANDS: Record<Script, () => Json[]> = {
  conversation: () => ndjsonConversation().map((c) => c.command),
  flood: () => [standIn('standInFlood', { n: FLOOD, bytes: 32 * 1024 })],
  'peer-closes': () => [standIn('standInDie', { after: 2 })],
};

/**
 * A connection that plays `commands` with `-<ids>` on each requestId, then ends its side. When the
 * other side ends first, a blank line written back tells an end (it is taken) from a connection that
 * is gone (EPIPE).
 */
function run(socketPath: string, commands: Json[], ids: string): ClientRun {
  const messages: string[] = [];
  const socket = createConnection({ path: socketPath, allowHalfOpen: true });
  onCleanup(() => void socket.destroy());
  let left = false;
  let finishing = false;
  let settle!: (ending: Ending) => void;
  const ended = new Promise<Ending>((resolve) => (settle = resolve));
  const end = (ending: Ending) => settle(left ? { kind: 'left' } : ending);
  let turn = 0;
  const requestId = () => `${String(commands[turn].requestId)}-${ids}`;
  const ask = () => socket.write(JSON.stringify({ ...commands[turn], requestId: requestId() }) + '\n');
  socket.once('connect', ask);
  let pending = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    pending += chunk;
    for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
      const line = pending.slice(0, at + 1);
      pending = pending.slice(at + 1);
      messages.push(line);
      const value = JSON.parse(line) as Json;
      if (finishing || value.kind !== 'response' || value.requestId !== requestId()) continue;
      if (++turn < commands.length) ask();
      else {
        finishing = true;
        socket.end();
      }
    }
  });
  socket.on('end', () => {
    if (finishing || left) return;
    socket.write('\n', (error) => end(error ? { kind: 'reset' } : { kind: 'ended' }));
    socket.end();
  });
  socket.on('error', () => end({ kind: 'reset' }));
  socket.on('close', () => end(finishing ? { kind: 'finished' } : { kind: 'reset' }));
  return {
    messages,
    ended,
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    leave: (how) => {
      left = true;
      if (how === 'abort') socket.destroy();
      else {
        // A client that closes ends its side and reads on until the other side has ended too.
        socket.resume();
        socket.end();
      }
      settle({ kind: 'left' });
    },
  };
}

describeTransportContract({
  name: 'NDJSON lines on a unix socket (Pi daemon)',
  faults: {
    latency: 'acts',
    gap: 'acts',
    status: { notApplicable: 'an HTTP status; the socket carries lines, not HTTP' },
    error: { notApplicable: 'an error event of an HTTP stream; the NDJSON socket carries lines' },
    cut: 'acts',
    close: { notApplicable: 'a WebSocket close code; a unix socket has none' },
    exit: { notApplicable: 'the exit of a stdio agent; the daemon is no child of the proxy' },
  },
  endings: { finished: { kind: 'finished' }, clean: { kind: 'ended' }, reset: { kind: 'reset' } },
  sessionsPerProxy: 'many',
  peerClosesAfter: 2,
  flood: {
    count: FLOOD,
    index: (message) => {
      const found = /"event":"standInFlood".*"data":\{"i":(\d+)/.exec(message);
      return found ? Number(found[1]) : undefined;
    },
  },

  async record(dir = scratch('agent-proxy-contract-')) {
    const daemon = await startNdjsonDaemon(dir.file('daemon.sock'));
    onCleanup(() => daemon.close());
    const recorder = await startNdjsonRecorder({ target: `unix:${daemon.socketPath}`, listen: `unix:${dir.file('proxy.sock')}`, out: dir.file('ndjson.db'), registry: bareRegistry(), pipeline: 'inline' });
    onCleanup(async () => void (await recorder.close()));
    const socketPath = recorder.url.slice('unix:'.length);
    return {
      converse: (script, ids) => run(socketPath, COMMANDS[script](), ids),
      floodTaken: () => daemon.floodSent(),
      peerSawLeave: () => daemon.lastClosed(),
      finish: async () => {
        await recorder.close();
        await daemon.close();
        return recorder.out;
      },
    };
  },

  async replay(recording, options = {}) {
    const misses: string[] = [];
    const socketPath = scratch('agent-proxy-contract-').file('replay.sock');
    const replay = await startNdjsonReplay({ recording, listen: `unix:${socketPath}`, timing: 'none', faults: options.faults, clock: options.clock, log: { served: () => undefined, miss: (message) => misses.push(message) } });
    onCleanup(async () => void (await replay.close()));
    return {
      converse: (script, ids) => run(socketPath, COMMANDS[script](), ids),
      async miss() {
        const status = ndjsonConversation().find((c) => c.command.operation === 'status')!;
        const answer = run(socketPath, [status.command], 'idMiss');
        await answer.ended;
        const command = { ...status.command, requestId: `${String(status.command.requestId)}-idMiss` };
        const hostInstanceId = String(status.replies[0].hostInstanceId);
        const expected = protocolById('unix-ndjson').replay!.missAnswers!.message!(command, { message: misses[0], recordedMethods: new Set(), hostInstanceId });
        return { received: answer.messages[0], expected: JSON.stringify(expected) + '\n' };
      },
      close: async () => (await replay.close()).faults,
    };
  },
});
