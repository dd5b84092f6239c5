/**
 * `proxy record` and `proxy show` as a user runs them: the built CLI under plain node
 * (`npm test` builds dist first), in front of the AG-UI stand-in.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, statSync } from 'node:fs';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import type { CliResult } from '../cli/run-cli.js';
import { runBatch } from '../cli/cli-batch.js';
import { tempDir } from '../support/temp-dir.js';
import { postRun, rawRequest, runInput, spawnRecorder, type CliRecorder } from './record-helpers.js';

const cleanups = fixturesAfterEach();
const { agui, scratch } = cleanups;

function recorder(args: string[], env?: NodeJS.ProcessEnv): CliRecorder {
  const r = spawnRecorder(args, env);
  cleanups.push(async () => {
    if (r.child.exitCode === null && r.child.signalCode === null) {
      r.child.kill('SIGKILL');
      await r.exited;
    }
  });
  return r;
}

/** The live view's line for exchange `n` (bold may wrap the request when colour is on); not its ✗ lines. */
const exchangeLine = (n: number) => new RegExp(`#${n} (\\x1b\\[1m)?POST `);

const LISTENING = /^listening on (http:\/\/127\.0\.0\.1:(\d+)) -> (.+)$/;

/** Starts `proxy record --listen 0` and returns the proxy URL from its first line. */
async function startCli(target: string, out: string, extra: string[] = [], env?: NodeJS.ProcessEnv): Promise<{ r: CliRecorder; url: string }> {
  const r = recorder(['--target', target, '--listen', '0', '--out', out, ...extra], env);
  const line = await r.waitForLine(/^listening on /);
  const match = LISTENING.exec(line);
  expect(match, line).not.toBeNull();
  return { r, url: match![1] };
}

async function stop(r: CliRecorder, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  r.child.kill(signal);
  return r.exited;
}

describe('proxy record (CLI)', () => {
  it('prints the listening line first, one line per exchange and per invalid message, and stops on SIGINT with a summary', async () => {
    const good = await agui();
    const dir = scratch();
    const out = dir.file('cli.db');
    const r = recorder(['--target', good.url, '--listen', '0', '--out', out]);
    const first = await r.waitForLine(/./);
    expect(r.lines[0]).toBe(first);
    const match = LISTENING.exec(first);
    expect(match, first).not.toBeNull();
    expect(match![3]).toBe(good.url);
    expect(Number(match![2])).toBeGreaterThan(0);
    const url = match![1];

    // A valid run, then a broken one (per-request scenario on the same agent).
    await (await postRun(`${url}/agent`)).text();
    await r.waitForLine(exchangeLine(1));
    await (await postRun(`${url}/scenario/broken-content-before-start`)).text();
    await r.waitForLine(exchangeLine(2));

    const exchangeLines = r.lines.filter((l) => / #\d+ (POST|GET) /.test(l));
    expect(exchangeLines).toHaveLength(2);
    // method, path, status, message count, verdict
    expect(exchangeLines[0]).toMatch(/ #1 POST \/agent 200 sse\/agui 15 msg valid /);
    expect(exchangeLines[1]).toMatch(/ #2 POST \/scenario\/broken-content-before-start 200 sse\/agui 7 msg \d+ invalid /);
    const invalidLines = r.lines.filter((l) => l.includes('✗'));
    expect(invalidLines.length).toBeGreaterThanOrEqual(1);
    expect(invalidLines[0]).toMatch(/✗ #2 ← TEXT_MESSAGE_CONTENT invalid: first-event-must-be-run-started at \/type: /);
    // Invalid-message lines print as they happen, before their exchange's line.
    expect(r.lines.indexOf(invalidLines[0])).toBeLessThan(r.lines.indexOf(exchangeLines[1]));

    const exit = await stop(r, 'SIGINT');
    expect(exit).toEqual({ code: 0, signal: null });
    const summary = r.lines.at(-1)!;
    expect(summary).toMatch(/^stopped \(SIGINT\): 2 exchanges, 22 messages, (\d+) invalid, (\d+) findings? -> (.+)$/);
    expect(summary.endsWith(`-> ${out}`)).toBe(true);
    expect(r.stderr()).toBe('');

    // The summary agrees with the file.
    const reader = RecordingReader.open(out);
    try {
      const totals = reader.totals();
      expect(summary).toContain(`${totals.exchanges} exchanges, ${totals.messages} messages, ${totals.invalid} invalid, ${totals.findings} finding${totals.findings === 1 ? '' : 's'}`);
      expect(totals.invalid).toBeGreaterThanOrEqual(1);
      expect(reader.recording().endedAt).toBeDefined();
    } finally {
      reader.close();
    }
  });

  it('--json prints NDJSON: listening first, one object per exchange and invalid message, then the summary on SIGTERM', async () => {
    const a = await agui({ script: 'broken-content-before-start' });
    const dir = scratch();
    const out = dir.file('json.db');
    const r = recorder(['--target', a.url, '--listen', '0', '--out', out, '--json']);
    const first = JSON.parse(await r.waitForLine(/./)) as Record<string, unknown>;
    expect(Object.keys(first)).toEqual(['event', 'url', 'target', 'out']);
    expect(first).toMatchObject({ event: 'listening', target: a.url, out });
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    await (await postRun(first.url as string)).text();
    await r.waitForLine(/"event":"exchange"/);
    const exit = await stop(r, 'SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });

    const events = r.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => e.event)).toEqual(['listening', ...events.slice(1, -2).map(() => 'invalid'), 'exchange', 'summary']);
    const invalid = events.filter((e) => e.event === 'invalid');
    expect(invalid.length).toBeGreaterThanOrEqual(1);
    expect(invalid[0]).toMatchObject({ exchangeId: 1, sender: 'server', label: 'TEXT_MESSAGE_CONTENT', status: 'invalid' });
    expect(invalid[0].findings).toContainEqual(expect.objectContaining({ rule: 'first-event-must-be-run-started' }));
    expect(events.at(-2)).toMatchObject({ event: 'exchange', exchangeId: 1, method: 'POST', path: '/', status: 200, transport: 'sse', protocol: 'agui', outcome: 'complete', messages: 7 });
    expect(events.at(-1)).toMatchObject({ event: 'summary', signal: 'SIGTERM', exchanges: 1, messages: 7, out });
    expect(r.stderr()).toBe('');
  });

  it('SIGINT with a stream still open ends it cleanly, stops the agent, records it and exits 0', async () => {
    const a = await agui({ script: 'endless', intervalMs: 5 });
    const dir = scratch();
    const out = dir.file('open.db');
    const { r, url } = await startCli(a.url, out);
    const res = await postRun(url);
    const reader = res.body!.getReader();
    let text = '';
    while ((text.match(/TEXT_MESSAGE_CONTENT/g) ?? []).length < 5) text += new TextDecoder().decode((await reader.read()).value);
    const reading = (async () => {
      try {
        while (!(await reader.read()).done);
        return 'ended';
      } catch {
        return 'failed';
      }
    })();

    expect(await stop(r, 'SIGINT')).toEqual({ code: 0, signal: null });
    // Closed cleanly: the client's body ends normally (a proper end of the chunked body), not with an error.
    expect(await reading).toBe('ended');
    expect(await a.requests[0].aborted).toBe(true);
    expect(r.lines.some((l) => / #1 POST \/ 200 sse\/agui \d+ msg .*cut by proxy shutdown/.test(l))).toBe(true);
    expect(r.lines.at(-1)).toMatch(/^stopped \(SIGINT\): 1 exchange, \d+ messages, \d+ invalid, \d+ findings? -> /);
    expect(r.stderr()).toBe('');

    const reader2 = RecordingReader.open(out);
    try {
      const [exchange] = reader2.exchanges();
      expect(exchange).toMatchObject({ outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN' });
      const events = reader2.messages(exchange.id).filter((m) => m.sender === 'server');
      expect(Buffer.concat(events.map((m) => m.raw)).toString().startsWith(text)).toBe(true);
      expect(reader2.recording().endedAt).toBeDefined();
    } finally {
      reader2.close();
    }
  });

  it('--listen unix: and --target unix: work from the command line; SIGTERM stops it with exit 0', async () => {
    const dir = scratch();
    const agentSocket = dir.file('agent.sock');
    const proxySocket = dir.file('proxy.sock');
    const a = await agui({ listen: { path: agentSocket } });
    const out = dir.file('unix.db');
    const r = recorder(['--target', `unix:${agentSocket}`, '--listen', `unix:${proxySocket}`, '--out', out]);
    expect(await r.waitForLine(/./)).toBe(`listening on unix:${proxySocket} -> unix:${agentSocket}`);
    expect(statSync(proxySocket).mode & 0o777).toBe(0o600);
    const res = await rawRequest({ socketPath: proxySocket }, 'POST', '/', { 'content-type': 'application/json', accept: 'text/event-stream' }, JSON.stringify(runInput()));
    expect(res.status).toBe(200);
    expect(res.body.toString()).toContain('"RUN_FINISHED"');
    expect(a.requests).toHaveLength(1);
    await r.waitForLine(exchangeLine(1));

    expect(await stop(r, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expect(r.lines.at(-1)).toBe(`stopped (SIGTERM): 1 exchange, 15 messages, 0 invalid, 0 findings -> ${out}`);
    expect(existsSync(proxySocket)).toBe(false);
  });

  it('NO_COLOR wins over FORCE_COLOR: no escape codes anywhere', async () => {
    const a = await agui({ script: 'broken-content-before-start' });
    const dir = scratch();

    // Control: with FORCE_COLOR alone the same run is coloured, so the check below can fail.
    const coloured = await startCli(a.url, dir.file('colour.db'), [], { NO_COLOR: '', FORCE_COLOR: '1' });
    await (await postRun(coloured.url)).text();
    await coloured.r.waitForLine(exchangeLine(1));
    await stop(coloured.r, 'SIGINT');
    expect(coloured.r.stdout()).toContain('\x1b[');

    const plain = await startCli(a.url, dir.file('plain.db'), [], { NO_COLOR: '1', FORCE_COLOR: '1' });
    await (await postRun(plain.url)).text();
    await plain.r.waitForLine(exchangeLine(1));
    expect(await stop(plain.r, 'SIGINT')).toEqual({ code: 0, signal: null });
    expect(plain.r.stdout()).toMatch(/invalid/);
    expect(plain.r.stdout()).not.toContain('\x1b');
    expect(plain.r.stderr()).not.toContain('\x1b');
  });

  it('a bad --target gives one clear line on stderr and exit 2, and creates no recording', async () => {
    const dir = scratch();
    const targets = ['ftp://127.0.0.1:21', 'not a url', 'unix:'];
    const outOf = (target: string) => dir.file(`bad-${target.length}.db`);
    // One batch of CLI runs (test/cli/cli-batch.ts), the first also as a process of its own.
    const results = await runBatch([...targets.map((target) => ['record', '--target', target, '--listen', '0', '--out', outOf(target)]), ['record', '--listen', '0', '--out', dir.file('none.db')]]);
    for (const [i, target] of targets.entries()) {
      const out = outOf(target);
      const r = results[i];
      expect(r.code, target).toBe(2);
      expect(r.stdout, target).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^agent-proxy: --target '.*'/);
      expect(lines[0]).toContain(target);
      expect(existsSync(out), target).toBe(false);
    }
    const missing = results[targets.length];
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--target/);
  });
});

describe('proxy show', () => {
  // The two runs are recorded once for the block (a recorder is ~0.5 s of CPU), by the first test that
  // asks, and the block's four `show` runs of it (which only read it) are made then, in one batch of
  // CLI runs (test/cli/cli-batch.ts), the first also as a process of its own.
  const shared = tempDir('agent-proxy-show-');
  afterAll(() => shared.cleanup());
  let twoRuns: Promise<CliResult[]> | undefined;
  const SHOWS = ['--json', '--exchange 2', '--exchange 1', '--exchange 9'] as const;

  /** What `show <the two runs> <args>` printed and its exit code. */
  async function showOfTwoRuns(args: (typeof SHOWS)[number]): Promise<CliResult> {
    twoRuns ??= recordTwoRunsOnce().then((out) => runBatch(SHOWS.map((show) => ['show', out, ...show.split(' ')])));
    return (await twoRuns)[SHOWS.indexOf(args)];
  }

  async function recordTwoRunsOnce(): Promise<string> {
    const a = await agui();
    const out = shared.file('show.db');
    const { r, url } = await startCli(a.url, out);
    await (await postRun(`${url}/agent`)).text();
    await (await postRun(`${url}/scenario/broken-content-before-start`)).text();
    await r.waitForLine(exchangeLine(2));
    expect((await stop(r, 'SIGINT')).code).toBe(0);
    return out;
  }

  it('--json has exactly the documented fields', async () => {
    const r = await showOfTwoRuns('--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { recording: Record<string, unknown>; exchanges: Array<Record<string, unknown>>; totals: Record<string, unknown>; tokens: unknown[] };
    expect(Object.keys(doc).sort()).toEqual(['exchanges', 'recording', 'tokens', 'totals']);
    // No model answered in an AG-UI run: no token totals.
    expect(doc.tokens).toEqual([]);
    expect(doc.recording).toMatchObject({ mode: 'record', target: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(doc.exchanges).toHaveLength(2);
    for (const e of doc.exchanges) {
      expect(Object.keys(e).sort()).toEqual(['endedBy', 'id', 'invalid', 'messages', 'method', 'outcome', 'path', 'protocol', 'protocolEvidence', 'status', 'tls', 'transport', 'unchecked', 'verdict']);
    }
    expect(doc.exchanges[0]).toEqual({ id: 1, transport: 'sse', protocol: 'agui', protocolEvidence: 'RunAgentInput body', method: 'POST', path: '/agent', status: 200, messages: 15, invalid: 0, unchecked: 0, verdict: 'valid', outcome: 'complete', endedBy: null, tls: null });
    expect(doc.exchanges[1]).toMatchObject({ id: 2, transport: 'sse', protocol: 'agui', method: 'POST', path: '/scenario/broken-content-before-start', status: 200, messages: 7, outcome: 'complete' });
    expect(doc.exchanges[1].invalid).toBeGreaterThanOrEqual(1);
    expect(Object.keys(doc.totals).sort()).toEqual(['exchanges', 'findings', 'invalid', 'messages']);
    expect(doc.totals).toMatchObject({ exchanges: 2, messages: 22, invalid: doc.exchanges[1].invalid });
    expect(doc.totals.findings).toBeGreaterThanOrEqual(1);
  });

  it('--exchange N lists the messages with verdicts and findings', async () => {
    const r = await showOfTwoRuns('--exchange 2');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^#2 POST \/scenario\/broken-content-before-start 200 sse\/agui complete$/);
    expect(lines[1]).toMatch(/^  7 messages: \d+ invalid; starts \+[\d.]+ ms into the recording$/);
    const rows = lines.filter((l) => /^\s+\d+\s+\+[\d.]+ ms {2}[→←] /.test(l));
    expect(rows).toHaveLength(7);
    // A body with no type of its own is named by its request line, as in validate and findings.
    expect(rows[0]).toMatch(/^\s+1 .* → POST \/scenario\/broken-content-before-start valid$/);
    expect(rows[1]).toMatch(/← TEXT_MESSAGE_CONTENT invalid$/);
    expect(rows[2]).toMatch(/← RUN_STARTED valid$/);
    const firstFinding = lines[lines.indexOf(rows[1]) + 1];
    expect(firstFinding).toMatch(/^\s+error first-event-must-be-run-started at \/type: /);
    expect(r.stdout).not.toContain('\x1b');

    const good = await showOfTwoRuns('--exchange 1');
    expect(good.code).toBe(0);
    expect(good.stdout).not.toMatch(/invalid|error /);
    expect(good.stdout.match(/ valid$/gm)).toHaveLength(15);

    const missing = await showOfTwoRuns('--exchange 9');
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  });
});
