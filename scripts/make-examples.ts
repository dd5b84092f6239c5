/**
 * Regenerates the example recordings in recordings/examples/ from the test stand-ins, so that
 * `proxy show` and `proxy replay` have something to work on straight after install:
 *
 *   npm run build && MAKE_EXAMPLES=1 npx vitest run test/diff/examples.test.ts
 *
 * (vitest runs this TypeScript file; the stand-ins live in test/support.) Each example is recorded
 * through the real recorder into a temporary .db, then written with `proxy export --format ndjson`.
 * They are our own synthetic traffic, nothing copied from elsewhere:
 *
 * - agui-sse-run.ndjson: one AG-UI run over SSE (text, state, a tool call) with one invalid event
 *   (arguments for a tool call that has already ended), and a health check;
 * - pi-daemon-session.ndjson: a Pi daemon REST session (capabilities, a session created through a
 *   ticket polled until it succeeds, the session read back) and a framed RPC WebSocket (get_state,
 *   then a prompt streaming a tool-call turn), from the deterministic daemon stand-in.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { startRecorder } from '../src/record/start-recorder.js';
import { defaultAguiScript, startAguiAgent } from '../test/support/agui-agent.js';
import { startPiDaemon } from '../test/support/pi-daemon-standin.js';
import { fullRegistry } from '../test/support/shared.js';
import { api, wsOpen } from '../test/record/pi-helpers.js';

export const EXAMPLES_DIR = fileURLToPath(new URL('../recordings/examples/', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));

export const EXAMPLES = {
  agui: 'agui-sse-run.ndjson',
  pi: 'pi-daemon-session.ndjson',
} as const;

/** The input the AG-UI example sends (fixed ids, so the file only changes where the run does). */
export const EXAMPLE_INPUT: RunAgentInput = {
  threadId: 'thread-example-1',
  runId: 'run-example-1',
  state: {},
  messages: [{ id: 'user-msg-example-1', role: 'user', content: 'What is the weather in Paris?' }],
  tools: [{ name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
  context: [],
  forwardedProps: {},
};

/** The stand-in's default run, plus one event that breaks the tool-call lifecycle. */
function aguiExampleScript(input: RunAgentInput): BaseEvent[] {
  const events = defaultAguiScript(input);
  const end = events.findIndex((e) => e.type === EventType.TOOL_CALL_END);
  events.splice(end + 1, 0, { type: EventType.TOOL_CALL_ARGS, toolCallId: 'call-1', delta: ' ' } as BaseEvent);
  return events;
}

/** Records both examples and writes them into `outDir` (default recordings/examples); returns the files. */
export async function makeExamples(outDir: string = EXAMPLES_DIR): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'agent-proxy-examples-'));
  try {
    const agui = await recordAguiExample(join(work, 'agui.db'));
    const pi = await recordPiExample(join(work, 'pi.db'));
    const files = [join(outDir, EXAMPLES.agui), join(outDir, EXAMPLES.pi)];
    await exportNdjson(agui, files[0]);
    await exportNdjson(pi, files[1]);
    return files;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function recordAguiExample(out: string): Promise<string> {
  const agent = await startAguiAgent({ script: aguiExampleScript });
  const recorder = await startRecorder({ target: agent.url, listen: 0, out, registry: fullRegistry() });
  try {
    const run = await fetch(`${recorder.url}/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(EXAMPLE_INPUT),
    });
    await run.text();
    await (await fetch(`${recorder.url}/health`)).text();
  } finally {
    await recorder.close();
    await agent.close();
  }
  return out;
}

async function recordPiExample(out: string): Promise<string> {
  const daemon = await startPiDaemon({ deterministic: true, closeCodeAfterPrompt: { code: 4001, reason: 'turn over' } });
  const recorder = await startRecorder({ target: daemon.url, listen: 0, out, registry: fullRegistry() });
  try {
    const auth = { authorization: `Bearer ${daemon.token}` };
    await api(recorder.url, 'GET', '/v1/capabilities', { headers: auth });
    const createBody = { requestId: 'req-create-example', sessionId: 'example', spec: { cwd: '/srv/work/example', name: 'example', target: { mode: 'new' } } };
    const created = await api(recorder.url, 'POST', '/v1/session', { headers: { ...auth, 'idempotency-key': 'create-example-1', 'x-request-id': 'req-create-example' }, body: createBody });
    const ticket = created.headers.location;
    await api(recorder.url, 'GET', ticket, { headers: auth });
    await api(recorder.url, 'GET', ticket, { headers: auth });
    await api(recorder.url, 'GET', '/v1/session/example', { headers: auth });
    const ws = await wsOpen(`${recorder.url.replace(/^http/, 'ws')}/v1/session/agent-a/rpc?role=controller`, 'pi-daemon-rpc.v1', { headers: auth });
    await ws.take(1);
    ws.ws.send(JSON.stringify({ kind: 'command', command: { id: 'state-1', type: 'get_state' } }));
    await ws.take(2);
    ws.ws.send(JSON.stringify({ kind: 'command', command: { id: 'prompt-1', type: 'prompt', message: 'READFILE please read hello.txt' } }));
    await ws.closed;
    // Let the recorder see both legs close before stopping it.
    await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await recorder.close();
    await daemon.close();
  }
  return out;
}

/** `proxy export <db> --format ndjson --out <file> --overwrite` with the built CLI. */
function exportNdjson(db: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'export', db, '--format', 'ndjson', '--out', file, '--overwrite'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`proxy export ${db} exited with ${code}: ${stderr}`))));
  });
}
