/**
 * The CLI under `--disallow-code-generation-from-strings` (a hardening some users set, often through
 * NODE_OPTIONS), where `new Function` and `eval` throw: every command does its work as without it,
 * with the same output. The places that compile code from text for speed (the store's row binders,
 * a validator linked from its own statements) take a path that needs none. MCP tool schemas, which
 * only the run-time schema compiler can check, are reported unchecked, with that reason.
 * Recordings of each kind of stand-in are made under the flag and without it, then read by every
 * command under the flag and without it.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CODE_GENERATION_REFUSED } from '../../src/protocols/mcp/tool-schemas.js';
import { startInspector } from '../../src/ui/server/inspector-server.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { startAguiAgent, type AguiAgent } from '../support/agui-agent.js';
import { useCleanups, onCleanup } from '../support/cleanups.js';
import { closeWhenExited } from '../support/mcp-stdio-close.js';
import { startOpenAiUpstream, type OpenAiUpstream } from '../support/openai-upstream.js';
import { STANDIN_SCHEMAS_DIR } from '../support/shared.js';
import { tempDir } from '../support/temp-dir.js';
import { within } from '../support/waits.js';
import { runBatch } from './cli-batch.js';
import { BIN, runCli, spawnCli, type CliProcess, type CliResult } from './run-cli.js';
import { ACP_AGENT, PI_AGENT, recordStdio, replayStdioProcess, runAcpClient, spawnLines, type LineProcess } from '../stdio/stdio-helpers.js';

useCleanups();

/** The flag, after the options the runs inherit as the file starts (with AGENT_PROXY_TEST_CPU, the preload that counts their CPU). */
let REFUSED: { NODE_OPTIONS: string };
const MCP_SERVER = fileURLToPath(new URL('../support/stdio-mcp-server.mjs', import.meta.url));
const AGUI_EXAMPLE = fileURLToPath(new URL('../../recordings/examples/agui-sse-run.ndjson', import.meta.url));
const PI_DAEMON_EXAMPLE = fileURLToPath(new URL('../../recordings/examples/pi-daemon-session.ndjson', import.meta.url));

const dir = tempDir('agent-proxy-no-code-generation-');
/** Each recording made under the flag (`<name>.db`) and without it (`<name>-plain.db`). */
const KINDS = ['agui', 'pi-daemon', 'pi-rpc', 'acp', 'mcp', 'agui-live', 'openai'] as const;
const refused = (kind: (typeof KINDS)[number]) => dir.file(`${kind}.db`);
const plain = (kind: (typeof KINDS)[number]) => dir.file(`${kind}-plain.db`);
let agent: AguiAgent;
let upstream: OpenAiUpstream;

/** A Pi RPC frontend: get_state, prompt (17 lines), get_last_assistant_text, each awaited. */
async function piClient(proc: LineProcess): Promise<void> {
  proc.send('{"id":"s1","type":"get_state"}\n');
  await proc.waitForLines(1);
  proc.send('{"id":"p1","type":"prompt","message":"Say hello"}\n');
  await proc.waitForLines(18);
  proc.send('{"id":"t1","type":"get_last_assistant_text"}\n');
  await proc.waitForLines(19);
  proc.child.stdin.end();
}

async function endsWith0(proc: { exited: Promise<{ code: number | null }>; stderr(): string }): Promise<void> {
  expect((await proc.exited).code, proc.stderr()).toBe(0);
}

async function recordMcp(out: string, env: Record<string, string>): Promise<void> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'record', '--stdio', '--out', out, '--', process.execPath, MCP_SERVER], env: { ...getDefaultEnvironment(), NO_COLOR: '1', AGENT_PROXY_SCHEMAS: '', ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    await client.listTools();
    await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    // The SDK checks the result against the tool's outputSchema itself, and refuses it.
    await expect(client.callTool({ name: 'weather', arguments: { city: 'Nowhere' } })).rejects.toThrow(/output schema/);
  } finally {
    await closeWhenExited(client, transport, { terminate: false });
  }
}

/** A long-running CLI (record, replay, fixture, view) until its first line naming a URL; stopped with SIGINT after the test. */
async function serving(args: string[], env: Record<string, string>, line = /^(listening|inspector) on /): Promise<{ cli: CliProcess; url: string }> {
  const cli = spawnCli(args, env);
  onCleanup(() => void cli.child.kill('SIGKILL'));
  const url = /(https?:\/\/\S+)/.exec(await cli.waitForLine(line))![1];
  return { cli, url };
}

async function stop(cli: CliProcess): Promise<void> {
  cli.child.kill('SIGINT');
  const { code } = await within(cli.exited, 'the CLI to exit');
  expect(code, cli.stderr()).toBe(0);
}

async function recordHttp(out: string, env: Record<string, string>): Promise<void> {
  const aguiRecorder = await serving(['record', '--target', agent.url, '--listen', '0', '--out', out.replace('openai', 'agui-live'), '--quiet'], env);
  const openaiRecorder = await serving(['record', '--target', upstream.origin, '--listen', '0', '--out', out, '--quiet'], env);
  const run = await fetch(`${aguiRecorder.url}/agent`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ threadId: 't1', runId: 'r1', state: {}, messages: [{ id: 'm1', role: 'user', content: 'Hi' }], tools: [], context: [], forwardedProps: {} }) });
  expect(run.status).toBe(200);
  await run.text();
  for (const stream of [false, true]) {
    const answer = await fetch(`${openaiRecorder.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-standin' }, body: JSON.stringify({ model: 'gpt-standin', messages: [{ role: 'user', content: 'Hi' }], stream }) });
    expect(answer.status).toBe(200);
    await answer.text();
  }
  await Promise.all([stop(aguiRecorder.cli), stop(openaiRecorder.cli)]);
}

beforeAll(async () => {
  REFUSED = { NODE_OPTIONS: [process.env.NODE_OPTIONS, '--disallow-code-generation-from-strings'].filter(Boolean).join(' ') };
  [agent, upstream] = await Promise.all([startAguiAgent(), startOpenAiUpstream()]);
  const imports = (file: (kind: (typeof KINDS)[number]) => string) => [
    ['import', AGUI_EXAMPLE, '--out', file('agui')],
    ['import', PI_DAEMON_EXAMPLE, '--out', file('pi-daemon')],
  ];
  const made = async (file: (kind: (typeof KINDS)[number]) => string, env: Record<string, string>) => {
    for (const result of await runBatch(imports(file), { env, real: [] })) expect(result.code, result.stderr).toBe(0);
    const pi = recordStdio(file('pi-rpc'), PI_AGENT, [], env);
    await piClient(pi);
    await endsWith0(pi);
    const acp = recordStdio(file('acp'), ACP_AGENT, [], env);
    await runAcpClient(acp);
    acp.child.stdin.end();
    await endsWith0(acp);
    await recordMcp(file('mcp'), env);
    await recordHttp(file('openai'), env);
  };
  // Its stored verdicts say the tool schemas went unchecked; validate, run here with code generation allowed, checks them.
  verdictsWrittenByHand(refused('mcp'));
  await made(refused, REFUSED);
  await made(plain, {});
}, 120_000);

afterAll(async () => {
  await Promise.all([agent?.close(), upstream?.close()]);
  dir.cleanup();
});

/** What each read command prints of `file` (and `other`, a recording of the same session). */
const readRuns = (file: string, other: string): string[][] => [
  ['validate', file],
  ['validate', '--json', file],
  ['show', file],
  ['show', '--json', file],
  ['show', '--exchange', '1', file],
  ['findings', file],
  ['findings', '--json', file],
  ['export', file],
  ['export', '--format', 'har', file],
  ['export', '--format', 'html', file],
  ['diff', file, other],
  ['diff', '--semantic', '--json', file, other],
];

/**
 * The read runs of every test, made once for the file in two batches: one process with code
 * generation allowed and one under the flag (each batch also runs some of them as processes of their
 * own and compares, as runBatch does). Each test takes its runs' results by name.
 */
const READS = {
  importDiffs: () => [
    ['diff', refused('agui'), plain('agui')],
    ['diff', refused('pi-daemon'), plain('pi-daemon')],
  ],
  importExports: () => [
    ['export', refused('agui')],
    ['export', plain('agui')],
    ['export', refused('pi-daemon')],
    ['export', plain('pi-daemon')],
  ],
  recordDiffs: () => KINDS.map((kind) => ['diff', '--json', refused(kind), plain(kind)]),
  everyKind: () => KINDS.filter((kind) => kind !== 'mcp').flatMap((kind) => readRuns(refused(kind), plain(kind))),
  mcp: () => readRuns(plain('mcp'), refused('mcp')),
} satisfies Record<string, () => string[][]>;
type ReadName = keyof typeof READS;
/** The runs made under the flag as well. */
const READ_UNDER: readonly ReadName[] = ['everyKind', 'mcp'];

const batches = new Map<'under' | 'without', Promise<Map<ReadName, CliResult[]>>>();

/** What the runs `name` printed, with code generation allowed (`without`) or under the flag. */
async function reads(name: ReadName, how: 'under' | 'without' = 'without'): Promise<CliResult[]> {
  let batch = batches.get(how);
  if (!batch) {
    const names = how === 'under' ? READ_UNDER : (Object.keys(READS) as ReadName[]);
    const runs = names.map((n) => READS[n]());
    const all = runs.flat();
    // As processes of their own too: the first run, and under the flag MCP's validate --json, the one whose verdicts the flag changes.
    const real = how === 'under' ? [0, runs[0].length + 1] : [0];
    batch = runBatch(all, { env: how === 'under' ? REFUSED : {}, real }).then((results) => {
      let at = 0;
      return new Map(names.map((n, i) => [n, results.slice(at, (at += runs[i].length))]));
    });
    batches.set(how, batch);
  }
  return (await batch).get(name)!;
}

describe('--disallow-code-generation-from-strings', () => {
  it('import writes the same recording under it: the same NDJSON export, byte for byte', async () => {
    const [agui, piDaemon] = await reads('importDiffs');
    expect(agui.code, agui.stdout).toBe(0);
    expect(piDaemon.code, piDaemon.stdout).toBe(0);
    const exports = await reads('importExports');
    expect(exports[0].stdout.length).toBeGreaterThan(0);
    expect(exports[0]).toEqual(exports[1]);
    expect(exports[2]).toEqual(exports[3]);
  });

  it('record writes the same exchanges and messages under it (diff finds them equal)', async () => {
    const runs = READS.recordDiffs();
    const results = await reads('recordDiffs');
    results.forEach((result, i) => {
      if (KINDS[i] === 'mcp') return;
      expect(result.code, `${runs[i].join(' ')}: ${result.stdout}${result.stderr}`).toBe(0);
      expect((JSON.parse(result.stdout) as { equal: boolean }).equal).toBe(true);
    });
    // MCP: the same messages; only weather's result, whose outputSchema could not be checked under the flag, is judged otherwise.
    type Report = { exchanges: Array<{ messages: Array<{ a: { seq: number; status: string }; b: { status: string }; differences: unknown[] }> }> };
    const mcp = results[KINDS.indexOf('mcp')];
    expect(mcp.code).toBe(1);
    expect((JSON.parse(mcp.stdout) as Report).exchanges.flatMap((e) => e.messages).map((m) => ({ seq: m.a.seq, a: m.a.status, b: m.b.status, differences: m.differences }))).toEqual([
      { seq: 9, a: 'valid', b: 'invalid', differences: [] },
    ]);
  });

  it('show, findings, validate, export and diff print the same bytes and exit with the same codes under it', async () => {
    const runs = READS.everyKind();
    const [under, without] = await Promise.all([reads('everyKind', 'under'), reads('everyKind')]);
    runs.forEach((run, i) => expect(under[i], run.join(' ')).toEqual(without[i]));
    // The comparison holds something: each recording has messages, and the AG-UI stand-in's run broke no rule.
    expect(without.filter((r) => r.code === 2)).toEqual([]);
  });

  it('MCP: the tool schemas are reported unchecked, with the reason; every other verdict is the same', async () => {
    const runs = READS.mcp();
    const [under, without] = await Promise.all([reads('mcp', 'under'), reads('mcp')]);
    type Report = { messages: Array<{ verdict: { status: string; findings: Array<{ rule: string; message: string }> } }> };
    const validateUnder = JSON.parse(under[1].stdout) as Report;
    const validateWithout = JSON.parse(without[1].stdout) as Report;
    const unchecked = validateUnder.messages.flatMap((m) => m.verdict.findings).filter((f) => f.rule === 'mcp-tool-schema-unchecked');
    // echo's and weather's inputSchema, weather's outputSchema, break's inputSchema.
    expect(unchecked).toHaveLength(4);
    for (const f of unchecked) expect(f.message).toContain(CODE_GENERATION_REFUSED);
    // Without the flag weather's result breaks its outputSchema; with it that check is not made.
    const withoutRefusal = (report: Report) => report.messages.map((m) => m.verdict.findings.filter((f) => f.rule !== 'mcp-tool-schema-unchecked' && f.rule !== 'mcp-tool-structured-content-invalid').map((f) => `${f.rule} ${f.message}`));
    expect(withoutRefusal(validateUnder)).toEqual(withoutRefusal(validateWithout));
    expect(validateWithout.messages.flatMap((m) => m.verdict.findings).map((f) => f.rule)).toContain('mcp-tool-structured-content-invalid');
    // The stored verdicts (show, findings, export) and diff do not judge again: the same bytes.
    for (const i of [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]) expect(under[i], runs[i].join(' ')).toEqual(without[i]);
  });

  it('validate with --schemas: a message whose schema was not compiled at build time is unchecked, saying why; the rest as without it', async () => {
    const args = ['validate', '--json', '--schemas', STANDIN_SCHEMAS_DIR, PI_DAEMON_EXAMPLE];
    const [under, without] = await Promise.all([runCli(args, { env: REFUSED }), runCli(args)]);
    expect(under.stderr).toBe('');
    type Report = { messages: Array<{ verdict: { status: string; reason?: string; findings: Array<{ rule: string }> } }> };
    const verdictsUnder = (JSON.parse(under.stdout) as Report).messages.map((m) => m.verdict);
    const verdictsWithout = (JSON.parse(without.stdout) as Report).messages.map((m) => m.verdict);
    expect(verdictsUnder).toHaveLength(verdictsWithout.length);
    let refusedCount = 0;
    verdictsUnder.forEach((verdict, i) => {
      expect(verdict.findings.map((f) => f.rule)).not.toContain('checker-failed');
      if (verdict.reason?.includes('--disallow-code-generation-from-strings')) {
        refusedCount++;
        expect(verdict.status).toBe('unchecked');
      } else expect(verdict, String(i)).toEqual(verdictsWithout[i]);
    });
    // The stand-in documents replace the daemon's: its REST bodies and frames reach them.
    expect(refusedCount).toBeGreaterThan(0);
    expect(verdictsWithout.filter((v) => v.status === 'valid').length).toBeGreaterThan(refusedCount / 2);
  });

  it('replay and fixture answer the same under it (Pi RPC over stdio, AG-UI over HTTP)', async () => {
    const replays = [replayStdioProcess(plain('pi-rpc')), spawnLinesUnder(plain('pi-rpc'))];
    for (const replay of replays) {
      await piClient(replay);
      await endsWith0(replay);
    }
    expect(replays[1].stdout().toString()).toEqual(replays[0].stdout().toString());

    const run = JSON.stringify({ threadId: 't1', runId: 'r1', state: {}, messages: [{ id: 'm1', role: 'user', content: 'Hi' }], tools: [], context: [], forwardedProps: {} });
    const answers: string[] = [];
    for (const [args, env] of [
      [['replay', plain('agui-live'), '--listen', '0', '--timing', 'none', '--quiet'], {}],
      [['replay', plain('agui-live'), '--listen', '0', '--timing', 'none', '--quiet'], REFUSED],
      [['fixture', plain('agui-live'), '--mode', 'replay', '--listen', '0', '--quiet'], REFUSED],
    ] as const) {
      const { cli, url } = await serving([...args], env);
      const answer = await fetch(`${url}/agent`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: run });
      answers.push(`${answer.status} ${await answer.text()}`);
      await stop(cli);
    }
    expect(answers[0]).toMatch(/^200 .*RUN_FINISHED/s);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it("the inspector's server answers the same under it", async () => {
    const paths = ['/api/recording', '/api/exchanges', '/api/exchanges/2', '/api/exchanges/2/messages', '/api/exchanges/2/answer', '/api/messages/2/1'];
    const pagesOf = (url: string) =>
      Promise.all(
        paths.map(async (path) => {
          const answer = await fetch(url + path);
          return `${path} ${answer.status} ${await answer.text()}`;
        }),
      );
    // Without the flag, the server `view` starts (view-command.ts), in this process, where code generation is allowed.
    const inspector = await startInspector({ recording: plain('openai'), listen: 0 });
    const without = await pagesOf(inspector.url).finally(() => inspector.close());
    const { cli, url } = await serving(['view', plain('openai'), '--listen', '0'], REFUSED);
    const under = await pagesOf(url);
    await stop(cli);
    expect(without.every((page) => / 200 /.test(page))).toBe(true);
    expect(under).toEqual(without);
  });
});

/** replay --stdio of `recording` under the flag (replayStdioProcess, with NODE_OPTIONS). */
function spawnLinesUnder(recording: string): LineProcess {
  return spawnLines('node', [BIN, 'replay', '--stdio', recording, '--timing', 'none'], REFUSED);
}
