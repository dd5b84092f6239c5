/**
 * `agent-proxy redrive` as run from the shell: its exit codes (as diff's, or for regressions alone
 * with --fail-on regression), its report and its usage errors. What it sends and records is
 * test/redrive/run-redrive.test.ts's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { defaultAguiScript, startAguiAgent, type AguiAgentOptions } from '../support/agui-agent.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch, type TempDir } from '../support/temp-dir.js';
import { startRecorder } from '../../src/record/start-recorder.js';
import { runCli } from './run-cli.js';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { startStdioRecorder } from '../../src/record/relay/stdio-recorder.js';
import { waitFor } from '../support/waits.js';
import { useJunitSchema } from '../support/junit-schema.js';

const MCP_SERVER = fileURLToPath(new URL('../support/stdio-mcp-server.mjs', import.meta.url));

useCleanups();
/** The JUnit reports below, checked against junit-10.xsd by libxml2 after the file's tests. */
const expectValidJunit = useJunitSchema();

async function agentUrl(options: AguiAgentOptions = {}): Promise<string> {
  const agent = await startAguiAgent(options);
  onCleanup(() => agent.close());
  return agent.url;
}

/** One AG-UI run recorded through the recorder in front of the default stand-in. */
async function golden(dir: TempDir, forwardedProps: Record<string, unknown> = {}): Promise<string> {
  const recorder = await startRecorder({ target: await agentUrl(), listen: 0, out: dir.file('golden.db') });
  const input: RunAgentInput = { threadId: 't1', runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'hi' }], tools: [], context: [], state: {}, forwardedProps };
  await (await fetch(`${recorder.url}/agent`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(input) })).text();
  await recorder.close();
  return recorder.out;
}

function changedText(input: RunAgentInput): BaseEvent[] {
  return defaultAguiScript(input).map((event) => (event.type === EventType.TEXT_MESSAGE_CONTENT ? ({ ...event, delta: 'Goodbye' } as BaseEvent) : event));
}

describe('agent-proxy redrive', () => {
  it('a changed answer: exit 1 with the change printed, but 0 with --fail-on regression, which notes it in the report', async () => {
    const dir = scratch();
    const recording = await golden(dir);
    const target = await agentUrl({ script: changedText });
    const changed = await runCli(['redrive', recording, '--target', target, '--out', dir.file('new.db'), '--report', `junit=${dir.file('changed.xml')}`]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('Goodbye');
    expectValidJunit('redrive, a change', readFileSync(dir.file('changed.xml'), 'utf8'));
    expect(changed.stderr).toContain('redrive: sent 1 exchange to');
    const noted = await runCli(['redrive', recording, '--target', target, '--out', dir.file('again.db'), '--fail-on', 'regression', '--report', `json=${dir.file('report.json')}`, '--report', `junit=${dir.file('noted.xml')}`]);
    expect(noted.code).toBe(0);
    expectValidJunit('redrive --fail-on regression, a note', readFileSync(dir.file('noted.xml'), 'utf8'));
    expect(JSON.parse(readFileSync(dir.file('report.json'), 'utf8'))).toMatchObject({ command: 'redrive', ok: true });
  });

  it('a new invalid message: exit 1 with --fail-on regression', async () => {
    const dir = scratch();
    const recording = await golden(dir);
    const broken = await runCli(['redrive', recording, '--target', await agentUrl({ script: 'broken-content-before-start' }), '--out', dir.file('new.db'), '--fail-on', 'regression']);
    expect(broken.code).toBe(1);
  });

  it('a --header that is not `Name: value`, a --timing that is not one: exit 2 before anything is recorded', async () => {
    const dir = scratch();
    const bad = await runCli(['redrive', dir.file('none.db'), '--target', 'http://127.0.0.1:9', '--out', dir.file('new.db'), '--header', 'no colon here']);
    expect({ code: bad.code, stderr: bad.stderr }).toEqual({ code: 2, stderr: "agent-proxy: --header takes 'Name: value' (a header name, a colon, its value)\n" });
    const pace = await runCli(['redrive', dir.file('none.db'), '--target', 'http://127.0.0.1:9', '--out', dir.file('new.db'), '--timing', 'fast']);
    expect({ code: pace.code, stderr: pace.stderr }).toEqual({ code: 2, stderr: "agent-proxy: --timing 'fast' is not a timing: expected recorded, none, or a speed such as 2x or 0.5x\n" });
    expect(existsSync(dir.file('new.db'))).toBe(false);
  });

  it('a field the recording redacted in a body, given no value: exit 2 with one line naming it, before anything is sent', async () => {
    const dir = scratch();
    const recording = await golden(dir, { apiKey: 'fp-secret-4be1a0c9' });
    const refused = await runCli(['redrive', recording, '--target', 'http://127.0.0.1:9', '--out', dir.file('new.db')]);
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({
      code: 2,
      stderr: 'agent-proxy: the recording redacted /forwardedProps/apiKey (exchange 1) and no value is given for it: give it as FIELD=value in a --redacted-values file\n',
    });
    expect(existsSync(dir.file('new.db'))).toBe(false);
  });

  it('--stdio -- <agent command>: the recorded stdio session played to the agent started; a changed answer exits 1 with the change printed', async () => {
    const dir = scratch();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let lines = 0;
    stdout.on('data', (chunk: Buffer) => (lines += chunk.toString('utf8').split('\n').length - 1));
    const recorder = await startStdioRecorder({ command: process.execPath, args: [MCP_SERVER], out: dir.file('golden.db'), stdin, stdout, stderr: new PassThrough().resume() });
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } })}\n`);
    await waitFor(() => lines >= 1 || undefined, 'the answer', { wakeOn: [[stdout, 'data']] });
    stdin.end();
    await recorder.done;
    const changed = await runCli(['redrive', dir.file('golden.db'), '--stdio', '--out', dir.file('new.db'), '--', process.execPath, MCP_SERVER], { env: { MCP_STANDIN_CHANGE: 'echo-upper' } });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('"Echo: hi" → "Echo: HI"');
    expect(changed.stderr).toContain('redrive: sent 1 exchange to');
  });

  it('--stdio with --target, or neither: exit 2', async () => {
    const dir = scratch();
    const both = await runCli(['redrive', dir.file('none.db'), '--stdio', '--target', 'http://127.0.0.1:9', '--out', dir.file('new.db'), '--', 'node']);
    expect({ code: both.code, stderr: both.stderr }).toEqual({ code: 2, stderr: 'agent-proxy: --stdio and --target exclude each other\n' });
    const neither = await runCli(['redrive', dir.file('none.db'), '--out', dir.file('new.db')]);
    expect({ code: neither.code, stderr: neither.stderr }).toEqual({ code: 2, stderr: 'agent-proxy: redrive needs --target <url>, or --stdio and the agent command after --\n' });
  });
});
