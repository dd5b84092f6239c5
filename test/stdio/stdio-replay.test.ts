import { copyFileSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';
import { ACP_AGENT, BIN, PI_AGENT, readRecording, recordStdio, replayStdioProcess, runAcpClient, spawnLines, type LineProcess } from './stdio-helpers.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir('agent-proxy-stdio-replay-');
});
afterEach(() => dir.cleanup());

type Json = Record<string, unknown>;

/** get_state, prompt (17 lines), get_last_assistant_text, each awaited, with the given ids. */
async function piClient(proc: LineProcess, ids: [string, string, string], end = true): Promise<Json[]> {
  proc.send(`{"id":"${ids[0]}","type":"get_state"}\n`);
  await proc.waitForLines(1);
  proc.send(`{"id":"${ids[1]}","type":"prompt","message":"Say hello"}\n`);
  await proc.waitForLines(18);
  proc.send(`{"type":"get_last_assistant_text","id":"${ids[2]}"}\n`);
  const lines = await proc.waitForLines(19);
  if (end) proc.child.stdin.end();
  return lines.map((l) => JSON.parse(l) as Json);
}

/** The Pi stand-in's session, recorded to `out` through record --stdio: the lines its client got. */
async function recordPi(out: string): Promise<Json[]> {
  const proc = recordStdio(out, PI_AGENT, [], { STANDIN_STDERR: 'pi stand-in starting' });
  const lines = await piClient(proc, ['s1', 'p1', 't1']);
  expect((await proc.exited).code).toBe(0);
  return lines;
}

// The same session is recorded once per file (a recorder and the stand-in are ~0.7 s of CPU) by the
// first test that asks, and each test gets a copy of the file of its own to replay.
const piFolder = tempDir('agent-proxy-stdio-replay-pi-');
afterAll(() => piFolder.cleanup());
let piSession: Promise<Json[]> | undefined;

/** A copy of the recorded Pi session at `out`, and the lines its client got while it was recorded. */
async function recordedPi(out: string): Promise<Json[]> {
  piSession ??= recordPi(piFolder.file('pi.db'));
  const lines = await piSession;
  copyFileSync(piFolder.file('pi.db'), out);
  return lines;
}

describe('proxy replay --stdio', () => {
  it('answers a Pi RPC client with the recorded lines and its own command ids', async () => {
    const rec = dir.file('pi.db');
    const recorded = await recordedPi(rec);
    const replay = replayStdioProcess(rec, ['--strict']);
    const lines = await piClient(replay, ['live-a', 'live-b', 'live-c']);
    const exit = await replay.exited;
    expect(exit.code, replay.stderr()).toBe(0);
    expect(lines).toHaveLength(recorded.length);
    expect(lines[0]).toMatchObject({ id: 'live-a', type: 'response', command: 'get_state', success: true });
    expect(lines[1]).toMatchObject({ id: 'live-b', type: 'response', command: 'prompt' });
    expect(lines[18]).toMatchObject({ id: 'live-c', command: 'get_last_assistant_text', data: { text: 'Hello from the mock model.' } });
    // Everything but the ids is as recorded.
    const strip = (l: Json) => ({ ...l, id: undefined });
    expect(lines.map(strip)).toEqual(recorded.map(strip));
    // The child's stderr is replayed to stderr.
    expect(replay.stderr()).toContain('pi stand-in starting');
  });

  it('answers a changed Pi command with a Pi-style error response, reports the miss, and --strict exits 1', async () => {
    const rec = dir.file('pi-miss.db');
    await recordedPi(rec);
    const replay = replayStdioProcess(rec, ['--strict']);
    replay.send('{"id":"x1","type":"get_stat"}\n');
    const [answer] = (await replay.waitForLines(1)).map((l) => JSON.parse(l) as Json);
    expect(answer).toMatchObject({ id: 'x1', type: 'response', command: 'get_stat', success: false });
    expect(answer.error).toMatch(/^replay miss: line 1 .* does not match recorded line 1 \{"id":"s1","type":"get_state"\} at \/type/);
    await replay.waitForStderr('replay miss');
    // The replay still waits for the line it expects.
    replay.send('{"id":"x2","type":"get_state"}\n');
    const lines = await replay.waitForLines(2);
    expect(JSON.parse(lines[1])).toMatchObject({ id: 'x2', command: 'get_state', success: true });
    replay.child.stdin.end();
    const exit = await replay.exited;
    expect(exit.code).toBe(1);
    expect(replay.stderr()).toMatch(/1 miss, 2 recorded client lines unused/);
  });

  it('lets the official ACP client complete its session against a replay, and reports a changed prompt as a miss', async () => {
    const rec = dir.file('acp.db');
    const recorder = recordStdio(rec, ACP_AGENT);
    const live = await runAcpClient(recorder);
    recorder.child.stdin.end();
    expect((await recorder.exited).code).toBe(0);

    const replay = replayStdioProcess(rec, ['--strict']);
    const replayed = await runAcpClient(replay);
    replay.child.stdin.end();
    expect((await replay.exited).code, replay.stderr()).toBe(0);
    expect(replayed.stopReasons).toEqual(['end_turn', 'end_turn']);
    expect(replayed.permissionAsked).toBe(1);
    expect(replayed.received).toEqual(live.received);
    expect(replayed.updates).toEqual(live.updates);

    const missing = replayStdioProcess(rec, ['--strict']);
    const failure = await runAcpClient(missing, ['Say goodbye']).then(
      () => undefined,
      (error: unknown) => error as { code?: number; message?: string },
    );
    missing.child.stdin.end();
    expect(failure).toMatchObject({ code: -32600 });
    expect(failure?.message).toMatch(/replay miss: line 3 .*recorded line \d+ .*session\/prompt.* at \/params\/prompt\/0\/text/);
    expect((await missing.exited).code).toBe(1);
    expect(missing.stderr()).toMatch(/agent-proxy: replay miss/);
  });

  it('round trip: record, replay, record the replay: the same lines and verdicts', async () => {
    const first = dir.file('first.db');
    await recordedPi(first);
    const second = dir.file('second.db');
    const proc = spawnLines('node', [BIN, 'record', '--stdio', '--out', second, '--', process.execPath, BIN, 'replay', '--stdio', first, '--timing', 'none', '--quiet', '--strict']);
    await piClient(proc, ['s1', 'p1', 't1']);
    expect((await proc.exited).code, proc.stderr()).toBe(0);
    const view = (file: string) => {
      const rec = readRecording(file);
      expect(rec.exchanges).toHaveLength(1);
      expect(rec.exchanges[0]).toMatchObject({ transport: 'stdio', protocol: 'pi-rpc', exitCode: 0 });
      return rec.messages(rec.exchanges[0].id).map((m) => ({ sender: m.sender, channel: m.channel, raw: m.raw.toString('utf8'), status: m.verdict.status, findings: m.verdict.findings }));
    };
    const a = view(first);
    const b = view(second);
    // Stderr may interleave differently in time; the protocol lines must be identical in order.
    expect(b.filter((m) => m.channel !== 'stderr')).toEqual(a.filter((m) => m.channel !== 'stderr'));
    expect(b.filter((m) => m.channel === 'stderr')).toEqual(a.filter((m) => m.channel === 'stderr'));
  });
});
