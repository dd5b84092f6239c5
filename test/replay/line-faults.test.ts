/**
 * `--fault` on the line transports: a replayed stdio agent that exits with a code after N lines
 * (the built CLI, driven over its pipes), latency and gaps on a clock the test moves by hand, and
 * an NDJSON socket whose connection ends cleanly or is reset after N daemon lines, seen by a raw
 * `net` client. Recordings are written by hand (test/support/ndjson-recording.ts).
 */
import { createConnection, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeNdjsonRecording, type HandExchange } from '../support/ndjson-recording.js';
import { ManualClock } from '../support/manual-clock.js';
import { scratch } from '../support/temp-dir.js';
import { within } from '../support/waits.js';
import { onCleanup, useCleanups } from './replay-helpers.js';
import { replayStdioProcess, spawnLines, BIN } from '../stdio/stdio-helpers.js';
import { replayStdio } from '../../src/replay/line/stdio-replay.js';
import { startNdjsonReplay, type NdjsonReplayLog } from '../../src/replay/line/ndjson-replay.js';

useCleanups();

const COMMAND = { id: 'c1', type: 'get_state' };
const line = (value: unknown) => JSON.stringify(value) + '\n';

/** One session: the client's command, then `replies` agent lines answering it. */
function session(transport: 'stdio' | 'ndjson', replies: number): HandExchange {
  return {
    transport,
    // Recorded lines keep their LF, as the recorder stores them.
    messages: [{ sender: 'client' as const, json: COMMAND }, ...Array.from({ length: replies }, (_, i) => ({ sender: 'server' as const, json: { id: 'c1', n: i + 1 } }))].map((m) => ({ ...m, raw: line(m.json) })),
  };
}

/** Collects what a readable writes, in lines, and resolves once `n` have come. */
function lineReader(stream: NodeJS.ReadableStream) {
  let text = '';
  const waiters: Array<() => void> = [];
  stream.setEncoding('utf8');
  stream.on('data', (d: string) => {
    text += d;
    for (const w of waiters.splice(0)) w();
  });
  const lines = () => text.split('\n').slice(0, -1);
  return {
    lines,
    atLeast: (n: number) =>
      within(
        new Promise<string[]>((resolve) => {
          const check = () => (lines().length >= n ? resolve(lines()) : waiters.push(check));
          check();
        }),
        `${n} lines`,
      ),
  };
}

describe('replay --stdio --fault', () => {
  it('exit=3,after=2 through the built CLI: the client reads exactly 2 lines and the replayed agent exits 3; an unmatched spec is reported', async () => {
    const rec = writeNdjsonRecording([session('stdio', 4)], 'stdio.ndjson');
    const proc = replayStdioProcess(rec, ['--fault', 'exit=3,after=2', '--fault', 'status=503']);
    onCleanup(() => void proc.child.kill('SIGKILL'));
    proc.send(line(COMMAND));
    const exit = await within(proc.exited, 'the replay to exit');
    expect(exit.code, proc.stderr()).toBe(3);
    expect(proc.lines().map((l) => JSON.parse(l) as unknown)).toEqual([
      { id: 'c1', n: 1 },
      { id: 'c1', n: 2 },
    ]);
    expect(proc.stderr()).toContain('fault injected: the replayed agent exits with code 3 (exit=3,after=2)\n');
    expect(proc.stderr()).toContain('fault status=503 matched nothing\n');
  });

  it('exit=0,after=0 exits before reading anything, with code 0 (a clean exit is a fault too)', async () => {
    const rec = writeNdjsonRecording([session('stdio', 2)], 'stdio.ndjson');
    const proc = spawnLines('node', [BIN, 'replay', '--stdio', rec, '--timing', 'none', '--fault', 'exit=0']);
    onCleanup(() => void proc.child.kill('SIGKILL'));
    const exit = await within(proc.exited, 'the replay to exit');
    expect(exit.code, proc.stderr()).toBe(0);
    expect(proc.lines()).toEqual([]);
    expect(proc.stderr()).toContain('exits with code 0 (exit=0)');
  });

  it('latency before the first agent line and gap before each later one run on the replay clock', async () => {
    const rec = writeNdjsonRecording([session('stdio', 3)], 'stdio.ndjson');
    const clock = new ManualClock();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const out = lineReader(stdout);
    const done = replayStdio({ recording: rec, stdin, stdout, stderr: new PassThrough(), timing: 'none', clock, faults: ['latency=200ms', 'gap=50ms', 'exit=9,after=5'] });
    stdin.write(line(COMMAND));
    expect(await clock.sleeping()).toBe(200);
    expect(out.lines()).toEqual([]);
    clock.advanceTo(200);
    await out.atLeast(1);
    expect(await clock.sleeping()).toBe(250);
    expect(out.lines()).toHaveLength(1);
    clock.advanceTo(250);
    await out.atLeast(2);
    expect(await clock.sleeping()).toBe(300);
    clock.advanceTo(300);
    await out.atLeast(3);
    stdin.end();
    const result = await within(done, 'the session to end');
    expect(clock.deadlines).toEqual([200, 250, 300]);
    expect(result.sent).toBe(3);
    // Three lines only: the exit after five never came.
    expect(result.exitCode).toBeUndefined();
    expect(result.faults).toEqual([
      { spec: 'latency=200ms', injected: 1 },
      { spec: 'gap=50ms', injected: 1 },
      { spec: 'exit=9,after=5', injected: 1 },
    ]);
  });
});

interface RawClient {
  socket: Socket;
  lines(): string[];
  atLeast(n: number): Promise<string[]>;
  /** How the connection ended: `end` (the replay ended it), or the error it failed with. */
  ended: Promise<string>;
  closed: Promise<void>;
}

function rawClient(options: { path: string; allowHalfOpen?: boolean }): Promise<RawClient> {
  const socket = createConnection(options);
  onCleanup(() => void socket.destroy());
  const reader = lineReader(socket);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const ended = new Promise<string>((resolve) => {
    socket.once('end', () => resolve('end'));
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, ...reader, ended: within(ended, 'the connection to end'), closed: within(closed, 'the connection to close') }));
    socket.once('error', reject);
  });
}

async function ndjsonReplay(exchanges: HandExchange[], options: { faults: string[]; clock?: ManualClock }) {
  const served: Parameters<NdjsonReplayLog['served']>[0][] = [];
  const listen = `unix:${scratch('agent-proxy-ndjson-fault-').file('replay.sock')}`;
  const replay = await startNdjsonReplay({ recording: writeNdjsonRecording(exchanges, 'daemon.ndjson'), listen, timing: 'none', faults: options.faults, clock: options.clock, log: { served: (e) => served.push(e), miss: () => undefined } });
  onCleanup(() => replay.close().then(() => undefined));
  return { replay, served };
}

describe('replay --ndjson --fault', () => {
  it('cut=clean,after=2: the client reads exactly 2 daemon lines, then the connection ends; the next connection is whole', async () => {
    const { replay, served } = await ndjsonReplay([session('ndjson', 4), session('ndjson', 4)], { faults: ['cut=clean,after=2,nth=1'] });
    const path = replay.url.slice('unix:'.length);
    const cut = await rawClient({ path });
    cut.socket.write(line(COMMAND));
    expect(await cut.ended).toBe('end');
    expect(cut.lines().map((l) => JSON.parse(l) as { n: number }).map((l) => l.n)).toEqual([1, 2]);
    const whole = await rawClient({ path });
    whole.socket.write(line(COMMAND));
    expect(await whole.atLeast(4)).toHaveLength(4);
    // Played out, the replay waits for the client to end.
    whole.socket.end();
    expect(await whole.ended).toBe('end');
    const summary = await replay.close();
    expect(served.map((s) => [s.exchangeId, s.sent, s.faults])).toEqual([
      [1, 2, ['cut=clean,after=2,nth=1']],
      [2, 4, undefined],
    ]);
    expect(summary.faults).toEqual([{ spec: 'cut=clean,after=2,nth=1', injected: 1 }]);
  });

  it('cut=reset,after=3: the client gets exactly 3 daemon lines, then the connection is gone (clean: only half closed)', async () => {
    const { replay, served } = await ndjsonReplay([session('ndjson', 5), session('ndjson', 5)], { faults: ['cut=reset,after=3,nth=1', 'cut=clean,after=3,nth=2'] });
    const path = replay.url.slice('unix:'.length);
    /** After the replay's end of the connection, what a line written back meets: EPIPE once the replay's side is closed. */
    const writeAfterEnd = async (client: RawClient) => {
      expect(await client.ended).toBe('end');
      const failed = new Promise<string>((resolve) => client.socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message)));
      const written = new Promise<string>((resolve) => client.socket.write(line(COMMAND), (error) => resolve(error ? ((error as NodeJS.ErrnoException).code ?? error.message) : 'written')));
      return within(Promise.race([failed, written]), 'the write to settle');
    };
    const reset = await rawClient({ path, allowHalfOpen: true });
    reset.socket.write(line(COMMAND));
    expect(await writeAfterEnd(reset)).toBe('EPIPE');
    expect(reset.lines().map((l) => (JSON.parse(l) as { n: number }).n)).toEqual([1, 2, 3]);
    const clean = await rawClient({ path, allowHalfOpen: true });
    clean.socket.write(line(COMMAND));
    expect(await writeAfterEnd(clean)).toBe('written');
    expect(clean.lines()).toHaveLength(3);
    clean.socket.end();
    await clean.closed;
    await replay.close();
    expect(served.map((s) => [s.sent, s.faults])).toEqual([
      [3, ['cut=reset,after=3,nth=1']],
      [3, ['cut=clean,after=3,nth=2']],
    ]);
  });

  it('through the built CLI: the served line names the fault, and a spec that matched nothing is said at the end', async () => {
    const rec = writeNdjsonRecording([session('ndjson', 3)], 'daemon.ndjson');
    const path = scratch('agent-proxy-ndjson-fault-').file('cli.sock');
    const proc = spawnLines('node', [BIN, 'replay', '--ndjson', rec, '--listen', `unix:${path}`, '--timing', 'none', '--fault', 'cut=clean,after=1', '--fault', 'exit=1']);
    onCleanup(() => void proc.child.kill('SIGKILL'));
    expect((await proc.waitForLines(1))[0]).toBe(`listening on unix:${path}`);
    const client = await rawClient({ path });
    client.socket.write(line(COMMAND));
    expect(await client.ended).toBe('end');
    expect(client.lines()).toHaveLength(1);
    expect((await proc.waitForLines(2))[1]).toBe('#1 ndjson 1 line sent fault cut=clean,after=1');
    proc.child.kill('SIGTERM');
    expect((await within(proc.exited, 'the replay to stop')).code).toBe(0);
    expect(proc.lines().slice(2)).toEqual(['stopped (SIGTERM): 0 misses, 0 unused connections, 0 unused lines', 'fault cut=clean,after=1 injected 1 time', 'fault exit=1 matched nothing']);
  });

  it('latency and gap on the replay clock; a spec no connection selects is counted 0', async () => {
    const clock = new ManualClock();
    const { replay, served } = await ndjsonReplay([session('ndjson', 2)], { clock, faults: ['latency=1s', 'gap=10ms', 'close=1011'] });
    const client = await rawClient({ path: replay.url.slice('unix:'.length) });
    client.socket.write(line(COMMAND));
    expect(await clock.sleeping()).toBe(1000);
    clock.advanceTo(1000);
    expect(await clock.sleeping()).toBe(1010);
    clock.advanceTo(1010);
    expect(await client.atLeast(2)).toHaveLength(2);
    client.socket.end();
    expect(await client.ended).toBe('end');
    expect(clock.deadlines).toEqual([1000, 1010]);
    const summary = await replay.close();
    expect(served[0].faults).toEqual(['latency=1s', 'gap=10ms']);
    expect(summary.faults).toEqual([
      { spec: 'latency=1s', injected: 1 },
      { spec: 'gap=10ms', injected: 1 },
      { spec: 'close=1011', injected: 0 },
    ]);
  });
});
