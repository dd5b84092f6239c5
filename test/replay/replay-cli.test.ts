/**
 * `proxy replay` as a user runs it: the built CLI in a child process, stopped with SIGINT/SIGTERM.
 * Exit codes: 0, or 1 with --strict after a miss or an unused exchange; 2 for bad usage.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { startAguiAgent } from '../support/agui-agent.js';
import { BIN, REPO, runCli } from '../cli/run-cli.js';
import { runBatch } from '../cli/cli-batch.js';
import { rawRequest, runInput } from '../record/record-helpers.js';
import { onCleanup, record, useCleanups } from './replay-helpers.js';
import { within } from '../support/waits.js';
import { scratch } from '../support/temp-dir.js';
import { expectAbsent, recordingBytes } from '../record/pi-helpers.js';
import { STANDIN_SCHEMAS_DIR } from '../support/shared.js';
import { AGUI_SSE_RUN, writeNdjsonRecording, type HandExchange } from '../support/ndjson-recording.js';

useCleanups();

const SSE_HEADERS = { 'content-type': 'application/json', accept: 'text/event-stream' };

/** A recording of one AG-UI run (POST /agent), made through the in-process recorder. */
async function oneRunRecording(): Promise<{ out: string; agentUrl: string }> {
  const agent = await startAguiAgent();
  onCleanup(() => agent.close());
  const rec = await record(agent.url);
  await rawRequest({ url: rec.url }, 'POST', '/agent', SSE_HEADERS, JSON.stringify(runInput()));
  await rec.finish();
  return { out: rec.out, agentUrl: agent.url };
}

interface CliReplay {
  url: string;
  firstLine: string;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function spawnReplay(args: string[]): Promise<CliReplay> {
  const child = spawn(process.execPath, [BIN, 'replay', ...args], { cwd: REPO, env: { ...process.env, NO_COLOR: '1', AGENT_PROXY_SCHEMAS: '' } });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  onCleanup(() => void child.kill('SIGKILL'));
  const first = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    });
    void exited.then(() => reject(new Error(`replay exited early: ${stdout} ${stderr}`)));
  });
  return within(first, 'the listening line').then((firstLine) => ({
    firstLine,
    url: firstLine.startsWith('{') ? (JSON.parse(firstLine) as { url: string }).url : firstLine.replace('listening on ', ''),
    async stop(signal: NodeJS.Signals = 'SIGINT') {
      child.kill(signal);
      const code = await within(exited, 'the replay to exit');
      return { code, stdout, stderr };
    },
  }));
}

describe('proxy replay (CLI)', () => {
  it('prints the listening line first, one line per served exchange, and exits 0 on SIGINT', async () => {
    const { out } = await oneRunRecording();
    const cli = await spawnReplay([out, '--listen', '0', '--timing', 'none', '--strict']);
    expect(cli.firstLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const res = await rawRequest({ url: cli.url }, 'POST', '/agent', SSE_HEADERS, JSON.stringify(runInput('thread-x', 'run-x')));
    expect(res.status).toBe(200);
    const done = await cli.stop();
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^#1 POST \/agent 200 sse 14 messages 2 ids substituted$/m);
    expect(done.stdout).toMatch(/stopped \(SIGINT\): 1 served, 0 misses, 0 of 1 recorded exchange unused/);
  });

  it("the start line says what a miss gets for the protocols the recording holds, not a fixed 404", async () => {
    const agui: HandExchange = {
      ...AGUI_SSE_RUN,
      messages: [
        { sender: 'client', json: runInput() },
        { sender: 'server', json: { type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-1' } },
        { sender: 'server', json: { type: 'RUN_FINISHED', threadId: 'thread-1', runId: 'run-1' } },
      ],
    };
    const piRest: HandExchange = { transport: 'http', protocol: 'pi-rest', method: 'GET', path: '/v1/health', status: 200, messages: [{ sender: 'server', json: { ok: true } }] };
    const acp: HandExchange = {
      transport: 'ws',
      protocol: 'acp',
      path: '/v1/session/s1/apc',
      subprotocol: 'agent-client-protocol.v1',
      messages: [
        { sender: 'client', json: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } } },
        { sender: 'server', json: { jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } } },
      ],
    };
    const unknown: HandExchange = { transport: 'http', protocol: null, path: '/health', status: 200, messages: [{ sender: 'server', json: { up: true } }] };
    const startLine = async (exchanges: HandExchange[]) => {
      const cli = await spawnReplay([writeNdjsonRecording(exchanges), '--listen', '0', '--timing', 'none']);
      const done = await cli.stop();
      return done.stdout.split('\n')[1];
    };

    expect(await startLine([agui])).toMatch(/\(timing none\); misses: AG-UI runs get a 200 RUN_ERROR event stream, anything else gets 404; Ctrl-C to stop$/);
    expect(await startLine([piRest, acp])).toMatch(
      /; misses: Pi REST requests get 404 with the daemon's error envelope, ACP requests get a JSON-RPC error response, anything else gets 404, a WebSocket frame nothing answers closes its connection \(1008\); Ctrl-C to stop$/,
    );
    expect(await startLine([unknown])).toMatch(/; misses: every request gets 404; Ctrl-C to stop$/);
  });

  it('--strict exits 1 after a miss, and prints the miss as one line', async () => {
    const { out } = await oneRunRecording();
    const cli = await spawnReplay([out, '--listen', '0', '--strict', '--quiet']);
    await rawRequest({ url: cli.url }, 'POST', '/agent', SSE_HEADERS, JSON.stringify(runInput()));
    const changed = { ...runInput(), messages: [{ id: 'u1', role: 'user', content: 'changed' }] };
    const miss = await rawRequest({ url: cli.url }, 'POST', '/agent', SSE_HEADERS, JSON.stringify(changed));
    expect(miss.body.toString()).toContain('"type":"RUN_ERROR"');
    const done = await cli.stop('SIGTERM');
    expect(done.code).toBe(1);
    const missLines = done.stdout.split('\n').filter((l) => l.startsWith('miss '));
    expect(missLines).toHaveLength(1);
    expect(missLines[0]).toContain('/messages/0/content');
    expect(done.stdout).not.toMatch(/^#1 /m);
  });

  it('--strict exits 1 when a recorded exchange was never used, and names it', async () => {
    const { out } = await oneRunRecording();
    const cli = await spawnReplay([out, '--listen', '0', '--strict']);
    const done = await cli.stop();
    expect(done.code).toBe(1);
    expect(done.stdout).toContain('unused #1 POST /agent');
    // Without --strict the same run exits 0, and still says how many of the recorded exchanges went unused.
    const lenient = await spawnReplay([out, '--listen', '0', '--json']);
    const done2 = await lenient.stop();
    expect(done2.code).toBe(0);
    const summary = JSON.parse(done2.stdout.trim().split('\n').at(-1)!);
    expect(summary).toMatchObject({ event: 'summary', misses: 0, unused: [1], unusedCount: 1, recorded: 1, strict: false, ok: true });
  });

  it('--json prints NDJSON events, the first being {"event":"listening","url":…}', async () => {
    const { out } = await oneRunRecording();
    const cli = await spawnReplay([out, '--listen', '0', '--json', '--timing', 'none']);
    const listening = JSON.parse(cli.firstLine);
    expect(listening).toMatchObject({ event: 'listening', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    await rawRequest({ url: cli.url }, 'POST', '/agent', SSE_HEADERS, JSON.stringify(runInput()));
    const done = await cli.stop();
    const events = done.stdout.trim().split('\n').map((l) => JSON.parse(l) as { event: string });
    expect(events.map((e) => e.event)).toEqual(['listening', 'served', 'summary']);
    expect(events[2]).toMatchObject({ served: 1, misses: 0, unused: [], ok: true });
  });

  it('--on-miss passthrough forwards a miss to --target and appends it to the recording; the next replay serves it without a miss', async () => {
    const { out, agentUrl } = await oneRunRecording();
    const before = RecordingReader.open(out);
    const original = { exchanges: before.exchanges(), messages: before.messages(1) };
    before.close();

    const cli = await spawnReplay([out, '--listen', '0', '--timing', 'none', '--on-miss', 'passthrough', '--target', agentUrl]);
    // Twice: this replay serves from memory, so its own new episode is not served back to it.
    for (const run of ['run-a', 'run-b']) {
      const res = await rawRequest({ url: cli.url }, 'POST', '/other', SSE_HEADERS, JSON.stringify(runInput('thread-p', run)));
      expect(res.status).toBe(200);
      expect(res.body.toString()).toContain('RUN_FINISHED');
    }
    const done = await cli.stop();
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('misses are forwarded to');
    expect(done.stdout).toContain('appended to the recording (served from the next replay on)');
    expect(done.stdout).toMatch(/stopped \(SIGINT\): 0 served, 2 misses, 1 of 1 recorded exchange unused/);
    expect(done.stdout).toContain(`2 forwarded misses appended to ${out} (new episodes, served from the next replay on)`);
    expect(existsSync(out.replace(/\.db$/, '.misses.db'))).toBe(false);

    const reader = RecordingReader.open(out);
    try {
      const exchanges = reader.exchanges();
      expect(exchanges[0]).toEqual(original.exchanges[0]);
      expect(reader.messages(1)).toEqual(original.messages);
      expect(exchanges.slice(1)).toMatchObject([
        { id: 2, method: 'POST', path: '/other', transport: 'sse', protocol: 'agui', outcome: 'complete' },
        { id: 3, method: 'POST', path: '/other', transport: 'sse', protocol: 'agui', outcome: 'complete' },
      ]);
      // Offsets count from the recording's start, so the new episodes come after the recorded run.
      expect(exchanges[1].startedMs).toBeGreaterThanOrEqual(exchanges[0].endedMs!);
      expect(reader.messages(2)[0].id).toBe(original.messages.at(-1)!.id + 1);
    } finally {
      reader.close();
    }

    // The next replay of the same file serves the new episodes: no miss, nothing unused, without a target.
    const next = await spawnReplay([out, '--listen', '0', '--timing', 'none', '--strict']);
    for (const run of ['run-c', 'run-d']) {
      const res = await rawRequest({ url: next.url }, 'POST', '/other', SSE_HEADERS, JSON.stringify(runInput('thread-q', run)));
      expect(res.status).toBe(200);
      expect(res.body.toString()).toContain('RUN_FINISHED');
      expect(res.body.toString()).toContain(run);
    }
    expect((await rawRequest({ url: next.url }, 'POST', '/agent', SSE_HEADERS, JSON.stringify(runInput()))).status).toBe(200);
    const second = await next.stop();
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^#2 POST \/other 200 sse /m);
    expect(second.stdout).toMatch(/^#3 POST \/other 200 sse /m);
    expect(second.stdout).toMatch(/stopped \(SIGINT\): 3 served, 0 misses, 0 of 3 recorded exchanges unused/);
  });

  it('--on-miss passthrough --misses-out <file> records the misses into that new file and leaves the recording as it was', async () => {
    const { out, agentUrl } = await oneRunRecording();
    const missesFile = scratch().file('misses.db');
    const cli = await spawnReplay([out, '--listen', '0', '--on-miss', 'passthrough', '--target', agentUrl, '--misses-out', missesFile]);
    const res = await rawRequest({ url: cli.url }, 'POST', '/other', SSE_HEADERS, JSON.stringify(runInput()));
    expect(res.status).toBe(200);
    expect(res.body.toString()).toContain('RUN_FINISHED');
    const done = await cli.stop();
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`recorded to ${missesFile}`);
    expect(done.stdout).toContain(`1 forwarded miss recorded to ${missesFile}`);
    const misses = RecordingReader.open(missesFile);
    try {
      expect(misses.exchanges()).toMatchObject([{ id: 1, method: 'POST', path: '/other', transport: 'sse', protocol: 'agui', outcome: 'complete' }]);
    } finally {
      misses.close();
    }
    const recording = RecordingReader.open(out);
    try {
      expect(recording.exchanges().map((e) => e.path)).toEqual(['/agent']);
    } finally {
      recording.close();
    }
  });

  it('--on-miss passthrough takes the redaction flags: a forwarded miss reaches the agent as sent and is appended redacted', async () => {
    const { out, agentUrl } = await oneRunRecording();
    const secrets = { header: 'hdr-secret-2b7e9d1c5a3f', query: 'qry-secret-8c4a2e6f0b1d', field: 'fld-secret-3f9b7d5e1a2c' };
    const cli = await spawnReplay([out, '--listen', '0', '--on-miss', 'passthrough', '--target', agentUrl, '--redact-header', 'x-team-token', '--redact-query', 'sig', '--redact-field', 'teamKey']);
    const input = { ...runInput('t-secret', 'r-secret'), forwardedProps: { teamKey: secrets.field } };
    const res = await rawRequest({ url: cli.url }, 'POST', `/other?sig=${secrets.query}`, { ...SSE_HEADERS, 'x-team-token': secrets.header }, JSON.stringify(input));
    expect(res.status).toBe(200);
    expect((await cli.stop()).code).toBe(0);
    const bytes = recordingBytes(out);
    for (const [what, secret] of Object.entries(secrets)) expectAbsent(bytes, secret, `the ${what} secret`);
    const recording = RecordingReader.open(out);
    try {
      expect(recording.exchanges()[1]).toMatchObject({ path: '/other', query: 'sig=%3Credacted%3E', requestHeaders: { 'x-team-token': '<redacted>' } });
    } finally {
      recording.close();
    }
  });

  it('--on-miss passthrough --misses-out records the misses with --schemas and --max-body, as record would', async () => {
    const { out, agentUrl } = await oneRunRecording();
    const missesFile = scratch().file('misses.db');
    const cli = await spawnReplay([out, '--listen', '0', '--on-miss', 'passthrough', '--target', agentUrl, '--misses-out', missesFile, '--schemas', STANDIN_SCHEMAS_DIR, '--max-body', '64']);
    expect((await rawRequest({ url: cli.url }, 'POST', '/other', SSE_HEADERS, JSON.stringify(runInput()))).status).toBe(200);
    expect((await cli.stop()).code).toBe(0);
    const misses = RecordingReader.open(missesFile);
    try {
      expect(Object.keys(misses.recording().schemaHashes)).toContain('https://a.skh.am/pi-daemon/protocol.schema.json');
      const request = misses.messages(1).find((m) => m.sender === 'client')!;
      expect(request.raw.length).toBe(64);
      expect(request.rawTruncatedFrom).toBeGreaterThan(64);
    } finally {
      misses.close();
    }
  });

  it('exits 2 on bad usage', async () => {
    const dir = scratch();
    const { out } = await oneRunRecording();
    // One batch of CLI runs (test/cli/cli-batch.ts); the first also as a process of its own.
    const [missing, bad, noTarget, unused] = await runBatch([
      ['replay', dir.file('missing.db'), '--listen', '0'],
      ['replay', out, '--timing', 'fast'],
      ['replay', out, '--on-miss', 'passthrough'],
      ['replay', out, '--redact-field', 'teamKey'],
    ]);
    expect(missing.code).toBe(2);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--timing 'fast'");
    expect(noTarget.stderr).toContain('--target');
    expect(unused).toMatchObject({ code: 2, stdout: '' });
    expect(unused.stderr).toBe('agent-proxy: --redact-field says how --on-miss passthrough records the misses it forwards; add --on-miss passthrough --target <url>, or drop it\n');
  });
});

describe('proxy replay --fault (CLI)', () => {
  it('names the fault on the served line, and at the end says how often each spec was injected and which matched nothing', async () => {
    const { out } = await oneRunRecording();
    const cli = await spawnReplay([out, '--listen', '0', '--timing', 'none', '--fault', 'cut=clean,after=2', '--fault', 'status=503,nth=9']);
    const res = await rawRequest({ url: cli.url }, 'POST', '/agent', SSE_HEADERS, JSON.stringify(runInput()));
    expect(res.status).toBe(200);
    const done = await cli.stop();
    expect(done.code).toBe(0);
    expect(done.stderr).toBe('');
    expect(done.stdout).toMatch(/^#1 POST \/agent 200 sse 2 messages fault cut=clean,after=2$/m);
    expect(done.stdout).toMatch(/^fault cut=clean,after=2 injected 1 time$/m);
    expect(done.stdout).toMatch(/^fault status=503,nth=9 matched nothing$/m);
  });

  it('--json: a status fault is a served event naming the spec and the exchange kept for the retry; the summary lists every spec', async () => {
    const { out } = await oneRunRecording();
    const cli = await spawnReplay([out, '--listen', '0', '--json', '--timing', 'none', '--fault', 'status=503,nth=1', '--fault', 'latency=5ms,path=/nowhere']);
    const body = JSON.stringify(runInput());
    const failed = await rawRequest({ url: cli.url }, 'POST', '/agent', SSE_HEADERS, body);
    expect(failed.status).toBe(503);
    expect(JSON.parse(failed.body.toString())).toMatchObject({ error: { code: 'fault_injected', fault: 'status=503,nth=1' } });
    expect((await rawRequest({ url: cli.url }, 'POST', '/agent', SSE_HEADERS, body)).status).toBe(200);
    const done = await cli.stop();
    const events = done.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => e.event)).toEqual(['listening', 'served', 'served', 'summary']);
    expect(events[1]).toEqual({ event: 'served', exchangeId: 1, transport: 'sse', method: 'POST', path: '/agent', status: 503, messages: 0, substitutions: 0, redacted: 0, reused: false, faults: ['status=503,nth=1'], faultStatus: 503 });
    expect(events[2]).toMatchObject({ exchangeId: 1, status: 200, messages: 14 });
    expect(events[2]).not.toHaveProperty('faults');
    expect(events[3]).toMatchObject({
      event: 'summary',
      served: 2,
      unused: [],
      faults: [
        { spec: 'status=503,nth=1', injected: 1 },
        { spec: 'latency=5ms,path=/nowhere', injected: 0 },
      ],
    });
  });

  it('a status fault prints a served line that says which status and spec stood in for which exchange', async () => {
    const { out } = await oneRunRecording();
    const cli = await spawnReplay([out, '--listen', '0', '--timing', 'none', '--fault', 'status=500,nth=1']);
    await rawRequest({ url: cli.url }, 'POST', '/agent', SSE_HEADERS, JSON.stringify(runInput()));
    const done = await cli.stop();
    expect(done.stdout).toMatch(/^fault POST \/agent 500 status=500,nth=1 \(instead of #1, kept for the next request\)$/m);
    expect(done.stdout).toMatch(/stopped \(SIGINT\): 1 served, 0 misses, 1 of 1 recorded exchange unused/);
    expect(done.stdout).toMatch(/^fault status=500,nth=1 injected 1 time$/m);
  });

  it('a bad spec is one line on stderr, exit 2, and nothing listens', async () => {
    const { out } = await oneRunRecording();
    for (const command of ['replay', 'fixture']) {
      const bad = await runCli([command, out, '--listen', '0', '--fault', 'cut=sideways,after=2']);
      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe('');
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toContain("--fault 'cut=sideways,after=2': cut must be clean or reset, not 'sideways'");
    }
  });
});
