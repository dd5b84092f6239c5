/**
 * The transport contract for stdio lines: the Pi RPC stand-in agent run as a child by
 * `startStdioRecorder`, replayed in-process by `replayStdio`, and a client that writes the agent's
 * stdin and reads its stdout through streams of its own. A stdio proxy serves one conversation, so
 * each conversation recorded starts its own agent.
 */
import { PassThrough, Writable } from 'node:stream';
import { onCleanup } from '../support/cleanups.js';
import { bareRegistry } from '../support/shared.js';
import { scratch } from '../support/temp-dir.js';
import { PI_AGENT } from '../stdio/stdio-helpers.js';
import { startStdioRecorder, type StdioResult } from '../../src/record/relay/stdio-recorder.js';
import { replayStdio, type StdioReplayResult } from '../../src/replay/line/stdio-replay.js';
import type { FaultTally } from '../../src/replay/fault/fault-plan.js';
import { protocolById } from '../../src/protocols/modules.js';
import { Progress } from '../support/manual-clock.js';
import { describeTransportContract, type ClientRun, type Ending, type Script } from './transport-contract.js';

type Json = Record<string, unknown>;

const FLOOD = 48;

/** The commands each script writes, one after the other, each once the one before it is answered. */
const COMMANDS: Record<Script, Json[]> = {
  conversation: [{ type: 'get_state' }, { type: 'prompt', message: 'Say hello' }],
  flood: [{ type: 'prompt', message: `STANDIN_FLOOD ${FLOOD} ${32 * 1024}` }],
  'peer-closes': [{ type: 'prompt', message: 'STANDIN_DIE 3' }],
};

/** A command is answered by its response, a prompt by the end of its turn. */
const answers = (command: Json, id: string, line: Json) => (command.type === 'prompt' ? line.type === 'agent_settled' : line.type === 'response' && line.id === id);

/**
 * The client's end of the agent's stdout: every line it takes, and every line handed to it (taken or
 * still queued in the stream). Paused, it takes nothing more, so the stream fills and a writer that
 * minds `write()` returning false stops.
 */
class ClientStdout extends Writable {
  readonly lines: string[] = [];
  handedLines = 0;
  private pending = '';
  private paused = false;
  private held: Array<() => void> = [];
  readonly progress = new Progress();

  constructor(private readonly onLine: (line: string) => void) {
    super();
  }

  override write(chunk: unknown, ...rest: unknown[]): boolean {
    if (Buffer.isBuffer(chunk) || typeof chunk === 'string') this.handedLines += chunk.toString('latin1').split('\n').length - 1;
    return (super.write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.pending += chunk.toString('latin1');
    for (let at = this.pending.indexOf('\n'); at >= 0; at = this.pending.indexOf('\n')) {
      const line = this.pending.slice(0, at + 1);
      this.pending = this.pending.slice(at + 1);
      this.lines.push(line);
      this.onLine(line);
    }
    if (this.paused) this.held.push(done);
    else done();
    this.progress.changed();
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    for (const done of this.held.splice(0)) done();
  }

  /** Resolves once everything handed to it is taken. */
  drained(): Promise<void> {
    return this.progress.until(() => this.destroyed || (this.writableLength === 0 && this.held.length === 0), 'the client to take every line');
  }
}

interface Session {
  stdin: PassThrough;
  stdout: ClientStdout;
  stderr: PassThrough;
  run: ClientRun;
}

/**
 * A conversation over the agent's pipes: `commands` with `<ids>-<n>` ids, then the end of stdin.
 * `exited` resolves with the agent's exit code once it is gone (recorded or replayed).
 */
function session(script: Script, ids: string, commands = COMMANDS[script]): Session & { start(exited: Promise<number>): void } {
  const stdin = new PassThrough();
  const stderr = new PassThrough();
  stderr.resume();
  let turn = 0;
  let left = false;
  let settle!: (ending: Ending) => void;
  const ended = new Promise<Ending>((resolve) => (settle = resolve));
  const id = () => `${ids}-${turn + 1}`;
  const ask = () => stdin.write(JSON.stringify({ id: id(), ...commands[turn] }) + '\n');
  const stdout = new ClientStdout((line) => {
    if (turn >= commands.length || !answers(commands[turn], id(), JSON.parse(line) as Json)) return;
    // A client across a pipe answers in a later turn of its event loop, never inside the agent's write.
    if (++turn < commands.length) setImmediate(ask);
    else setImmediate(() => stdin.end());
  });
  const run: ClientRun = {
    messages: stdout.lines,
    ended,
    pause: () => stdout.pause(),
    resume: () => stdout.resume(),
    leave: (how) => {
      left = true;
      stdin.end();
      // A client that closes reads on until the agent is done; one that is gone reads nothing more.
      if (how === 'close') stdout.resume();
      else stdout.destroy();
      settle({ kind: 'left' });
    },
  };
  return {
    stdin,
    stdout,
    stderr,
    run,
    start(exited) {
      ask();
      void exited.then(async (code) => {
        await stdout.drained();
        settle(left ? { kind: 'left' } : { kind: 'exited', code });
      });
    },
  };
}

const tallies = (result: StdioReplayResult): FaultTally[] => result.faults ?? [];

describeTransportContract({
  name: 'stdio lines (Pi RPC)',
  faults: {
    latency: 'acts',
    gap: 'acts',
    status: { notApplicable: 'an HTTP status; a stdio agent answers in lines' },
    error: { notApplicable: 'an error event of an HTTP stream; a stdio agent writes lines' },
    cut: { notApplicable: 'a stdio agent has no connection to cut: its end is an exit (the exit fault)' },
    close: { notApplicable: 'a WebSocket close code; stdio has none' },
    exit: 'acts',
  },
  endings: { finished: { kind: 'exited', code: 0 } },
  sessionsPerProxy: 'one',
  peerClosesAfter: 2,
  flood: {
    count: FLOOD,
    index: (message) => {
      const found = /"delta":"(\d+):x/.exec(message);
      return found ? Number(found[1]) : undefined;
    },
  },

  async record(dir = scratch('agent-proxy-contract-')) {
    let current: { done: Promise<StdioResult>; stdout: ClientStdout } | undefined;
    const out = dir.file('stdio.db');
    return {
      converse(script, ids) {
        if (current) throw new Error('a stdio proxy serves one conversation');
        const client = session(script, ids);
        const recorder = startStdioRecorder({ command: process.execPath, args: [PI_AGENT], protocol: 'pi-rpc', stdin: client.stdin, stdout: client.stdout, stderr: client.stderr, out, registry: bareRegistry(), pipeline: 'inline' });
        const done = recorder.then((r) => r.done);
        onCleanup(async () => {
          (await recorder).kill('SIGKILL');
          await done;
        });
        current = { done, stdout: client.stdout };
        client.start(done.then((result) => result.code));
        return client.run;
      },
      floodTaken: () => Math.max(0, (current?.stdout.handedLines ?? 0) - 2),
      peerSawLeave: async () => void (await current!.done),
      finish: async () => {
        await current!.done;
        return out;
      },
    };
  },

  async replay(recording, options = {}) {
    let last: { done: Promise<StdioReplayResult>; stdout: ClientStdout } | undefined;
    const misses: string[] = [];
    const start = (client: ReturnType<typeof session>) => {
      const done = replayStdio({ recording, stdin: client.stdin, stdout: client.stdout, stderr: client.stderr, timing: 'none', clock: options.clock, faults: options.faults, onMiss: (_miss, message) => misses.push(message) });
      last = { done, stdout: client.stdout };
      client.start(done.then((result) => result.exitCode ?? 0));
      onCleanup(async () => {
        client.stdin.end();
        await done;
      });
    };
    return {
      converse(script, ids) {
        const client = session(script, ids);
        start(client);
        return client.run;
      },
      floodTaken: () => Math.max(0, (last?.stdout.handedLines ?? 0) - 2),
      async miss() {
        const asked = { type: 'get_commands' };
        const client = session('conversation', 'idMiss', [asked, ...COMMANDS.conversation]);
        start(client);
        await client.run.ended;
        const expected = protocolById('pi-rpc').replay!.missAnswers!.message!({ id: 'idMiss-1', ...asked }, { message: misses[0], recordedMethods: new Set() });
        return { received: client.run.messages[0], expected: JSON.stringify(expected) + '\n' };
      },
      close: async () => (last ? tallies(await last.done) : []),
    };
  },
});
