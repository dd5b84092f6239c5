/**
 * Shared fixtures for the inspector tests: AG-UI recordings made through the real recorder, a big
 * synthetic recording and MCP and OpenAI ones written with RecordingWriter, and the browser (playwright-core driving
 * Debian's chromium) when both are present.
 */
import { existsSync } from 'node:fs';
import { startRecorder, type RunningRecorder } from '../../src/record/start-recorder.js';
import type { TlsFacts } from '../../src/core/tls-facts.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { startAguiAgent, type AguiAgent } from '../support/agui-agent.js';
import { bareRegistry } from '../support/shared.js';
import { chatChunks, chatReply, STANDIN_MODEL, WEATHER_TOOL } from '../support/openai-scenario.js';
import { postRun, runInput } from '../record/record-helpers.js';
import { TOOL_VERSION } from '../../src/core/version.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
export { spawnCli, type CliProcess } from '../cli/run-cli.js';

export const CHROMIUM = '/usr/bin/chromium';

/** One run through the proxy: the scenario is picked per request by the stand-in's `/scenario/<name>` path. */
export async function sendRun(recorderUrl: string, scenario: string, n: number, headers: Record<string, string> = {}): Promise<void> {
  const res = await postRun(`${recorderUrl}/scenario/${scenario}`, headers, runInput(`thread-${n}`, `run-${n}`));
  await res.arrayBuffer();
}

/** Records the scenarios, one AG-UI run each, in order, into `file`; every request carries `headers`. */
export async function recordAgui(file: string, scenarios: string[], headers: Record<string, string> = {}): Promise<void> {
  const agent = await startAguiAgent();
  let recorder: RunningRecorder | undefined;
  try {
    recorder = await startRecorder({ target: agent.url, listen: 0, out: file, registry: bareRegistry(), pipeline: 'inline' });
    let n = 0;
    for (const scenario of scenarios) await sendRun(recorder.url, scenario, ++n, headers);
  } finally {
    await recorder?.close();
    await agent.close();
  }
}

/** A live recorder in front of a fresh stand-in; close() stops both. */
export async function liveRecorder(file: string, listener: Parameters<typeof startRecorder>[0]['listener']): Promise<{ recorder: RunningRecorder; agent: AguiAgent; close(): Promise<void> }> {
  const agent = await startAguiAgent();
  const recorder = await startRecorder({ target: agent.url, listen: 0, out: file, registry: bareRegistry(), pipeline: 'inline', listener });
  return {
    recorder,
    agent,
    async close() {
      await recorder.close();
      await agent.close();
    },
  };
}

/**
 * A synthetic recording: one SSE exchange carrying `count` AG-UI events (every 1000th one invalid),
 * written straight with RecordingWriter, for the paging and page-load measurements.
 */
export function writeBigRecording(file: string, count: number): void {
  const writer = RecordingWriter.open(file, { toolVersion: 'test', target: 'http://127.0.0.1:1', mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
  const id = writer.beginExchange({ transport: 'sse', protocol: 'agui', method: 'POST', path: '/big', requestHeaders: { 'content-type': 'application/json' }, tOffsetMs: 0 });
  writer.updateExchange(id, { status: 200, responseHeaders: { 'content-type': 'text/event-stream' } });
  const input = { threadId: 't', runId: 'r', state: {}, messages: [], tools: [], context: [], forwardedProps: {} };
  writer.addMessage({ exchangeId: id, sender: 'client', carrier: 'body', tOffsetMs: 0, raw: Buffer.from(JSON.stringify(input)), json: input, verdict: { status: 'valid', findings: [] } });
  for (let i = 1; i <= count; i++) {
    const event = i === 1 ? { type: 'RUN_STARTED', threadId: 't', runId: 'r' } : { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: `tick ${i} ` };
    const invalid = i % 1000 === 0;
    const findings = invalid ? [{ rule: 'synthetic', severity: 'error' as const, pointer: '/delta', message: 'synthetic finding' }] : [];
    const raw = Buffer.from(`data: ${JSON.stringify(event)}\n\n`);
    writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'event', tOffsetMs: i * 0.01, raw, json: event, verdict: { status: invalid ? 'invalid' : 'valid', findings } });
  }
  writer.endExchange(id, { outcome: 'complete', tOffsetMs: count * 0.01 + 1 });
  writer.close();
}

/** A Pi RPC session over stdio (no headers, no request line): a command, its response, one event. */
export function writeStdioRecording(file: string): void {
  const writer = RecordingWriter.open(file, { toolVersion: 'test', target: undefined, mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
  const id = writer.beginExchange({ transport: 'stdio', protocol: 'pi-rpc', url: 'pi --mode rpc', tOffsetMs: 0 });
  const lines: Array<['client' | 'server', unknown]> = [
    ['client', { id: 'c-1', type: 'prompt', message: 'Hi' }],
    ['server', { id: 'c-1', type: 'response', command: 'prompt', success: true }],
    ['server', { type: 'agent_end', messages: [] }],
  ];
  lines.forEach(([sender, json], i) => {
    const channel = sender === 'client' ? 'stdin' : 'stdout';
    writer.addMessage({ exchangeId: id, sender, carrier: 'line', channel, tOffsetMs: i + 1, raw: Buffer.from(JSON.stringify(json) + '\n'), json, verdict: { status: 'valid', findings: [] } });
  });
  writer.endExchange(id, { outcome: 'complete', tOffsetMs: 10 });
  writer.close();
}

/** The one tool writeMcpRecording's server lists. */
export const MCP_ECHO_TOOL = { name: 'echo', description: 'Echoes the message back', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } };

/**
 * An MCP session over stdio, as [sender, offset ms, message]: initialize, tools/list (MCP_ECHO_TOOL), a
 * tools/call with progress (its request is the 6th line, its answer the 8th), a resources/read answered
 * with an error, and a list_changed notification (11 lines).
 */
export const MCP_SESSION_LINES: ReadonlyArray<readonly ['client' | 'server', number, object]> = [
  ['client', 1, { id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }],
  ['server', 3, { id: 0, result: { protocolVersion: '2025-11-25', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 's', version: '1' } } }],
  ['client', 4, { method: 'notifications/initialized' }],
  ['client', 5, { id: 1, method: 'tools/list' }],
  ['server', 6, { id: 1, result: { tools: [MCP_ECHO_TOOL] } }],
  ['client', 10, { id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' }, _meta: { progressToken: 2 } } }],
  ['server', 11, { method: 'notifications/progress', params: { progressToken: 2, progress: 1 } }],
  ['server', 17, { id: 2, result: { content: [{ type: 'text', text: 'Echo: hi' }] } }],
  ['client', 20, { id: 3, method: 'resources/read', params: { uri: 'file:///gone' } }],
  ['server', 22, { id: 3, error: { code: -32002, message: 'Resource not found' } }],
  ['server', 23, { method: 'notifications/tools/list_changed' }],
];

/** A recording of MCP_SESSION_LINES' first `lines` lines, left open for more (`add`) while an inspector reads it live. */
export function openMcpRecording(file: string, lines = MCP_SESSION_LINES.length): { add(lines: typeof MCP_SESSION_LINES): void; close(): void } {
  const w = RecordingWriter.open(file, { toolVersion: 'test', target: undefined, mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
  const id = w.beginExchange({ transport: 'stdio', protocol: 'mcp', url: 'node server.js', tOffsetMs: 0 });
  const add = (more: typeof MCP_SESSION_LINES) => {
    for (const [sender, t, body] of more) {
      const json = { jsonrpc: '2.0', ...body };
      w.addMessage({ exchangeId: id, sender, carrier: 'line', channel: sender === 'client' ? 'stdin' : 'stdout', tOffsetMs: t, raw: Buffer.from(JSON.stringify(json) + '\n'), json, verdict: { status: 'valid', findings: [] } });
    }
    w.flush();
  };
  add(MCP_SESSION_LINES.slice(0, lines));
  return {
    add,
    close() {
      w.endExchange(id, { outcome: 'complete', tOffsetMs: 30 });
      w.close();
    },
  };
}

/** The whole MCP session of MCP_SESSION_LINES, written by hand. */
export function writeMcpRecording(file: string): void {
  openMcpRecording(file).close();
}

/**
 * OpenAI chat completions over HTTP, written by hand from the stand-in's scenario: a streamed answer
 * with a tool call (its arguments in fragments), then a streamed text answer with usage.
 */
export function writeOpenAiRecording(file: string): void {
  const w = RecordingWriter.open(file, { toolVersion: 'test', target: 'http://127.0.0.1:1', mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
  const asks = [
    { model: STANDIN_MODEL, messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [WEATHER_TOOL], stream: true },
    { model: STANDIN_MODEL, messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } },
  ];
  for (const request of asks) {
    const id = w.beginExchange({ transport: 'http', protocol: 'openai', method: 'POST', path: '/v1/chat/completions', requestHeaders: { 'content-type': 'application/json' }, tOffsetMs: 0 });
    w.updateExchange(id, { status: 200, responseHeaders: { 'content-type': 'text/event-stream' } });
    w.addMessage({ exchangeId: id, sender: 'client', carrier: 'body', tOffsetMs: 1, raw: Buffer.from(JSON.stringify(request)), json: request, verdict: { status: 'valid', findings: [] } });
    chatChunks(request, chatReply(request)).forEach((chunk, i) => {
      w.addMessage({ exchangeId: id, sender: 'server', carrier: 'event', tOffsetMs: 2 + i, raw: Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`), json: chunk, verdict: { status: 'valid', findings: [] } });
    });
    w.endExchange(id, { outcome: 'complete', tOffsetMs: 50 });
  }
  w.close();
}

export interface RestRecordingOptions {
  /** The request path, as given (hostile text too). */
  path?: string;
  /** The request body's `spec.cwd`. */
  cwd?: string;
  /** The answer is invalid, with this finding's rule. */
  invalidAnswer?: string;
  /** The upstream's TLS facts (an https:// target). */
  tls?: TlsFacts;
}

/**
 * A REST exchange whose bodies have no type of their own, as the Pi daemon's: a request checked
 * against a schema, its answer checked against none (or found invalid).
 */
export function writeRestRecording(file: string, options: RestRecordingOptions = {}): void {
  const { path = '/v1/session', cwd = '/w', invalidAnswer, tls } = options;
  // Judged as this build judges now (its version, the schemas it loads): diff and view --diff then show
  // the verdicts written here as they are, instead of judging both sides again.
  const judgedNow = { toolVersion: TOOL_VERSION, schemaHashes: SchemaRegistry.load().hashes() };
  const writer = RecordingWriter.open(file, { ...judgedNow, target: 'http://127.0.0.1:1', mode: 'record', startedAt: new Date() });
  verdictsWrittenByHand(file);
  const id = writer.beginExchange({ transport: 'http', protocol: 'pi-rest', method: 'POST', path, requestHeaders: { 'content-type': 'application/json' }, tOffsetMs: 0 });
  writer.updateExchange(id, { status: 202, responseHeaders: { 'content-type': 'application/json' }, tls });
  const request = { sessionId: 'pd-x', spec: { cwd } };
  const answer = { ticketId: 'T-1' };
  writer.addMessage({ exchangeId: id, sender: 'client', carrier: 'body', tOffsetMs: 1, raw: Buffer.from(JSON.stringify(request)), json: request, verdict: { status: 'valid', schemaRef: 'https://example.test/session-api.schema.json#/$defs/sessionCreateRequest', findings: [] } });
  writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'body', tOffsetMs: 2, raw: Buffer.from(JSON.stringify(answer)), json: answer, verdict: invalidAnswer === undefined ? { status: 'unchecked', findings: [] } : { status: 'invalid', findings: [{ rule: invalidAnswer, severity: 'error', pointer: '/ticketId', message: `the ticket id ${answer.ticketId} is not a ticket` }] } });
  writer.endExchange(id, { outcome: 'complete', tOffsetMs: 3 });
  writer.close();
}

/**
 * A `record --forward` recording, written straight: five exchanges to three hosts, interleaved in time
 * (a.test, b.test's CONNECT whose client did not trust the CA, a.test, b.test, then a tunnel to c.test:8443).
 */
export function writeForwardRecording(file: string): void {
  const writer = RecordingWriter.open(file, { toolVersion: TOOL_VERSION, schemaHashes: SchemaRegistry.load().hashes(), target: 'forward proxy', mode: 'record', startedAt: new Date() });
  const exchanges = [
    { transport: 'http', method: 'GET', path: '/v1/models', url: 'http://a.test/v1/models', status: 200, end: { outcome: 'complete' } },
    { transport: 'tunnel', method: 'CONNECT', path: 'b.test:443', url: 'b.test:443', status: 200, end: { outcome: 'error', errorCode: 'E_CLIENT_TLS', errorMessage: 'the client of CONNECT b.test does not trust the local CA: …; make it trust the local CA: eval "$(agent-proxy ca --env)"', tunnel: { clientBytes: 0, serverBytes: 0 } } },
    { transport: 'http', method: 'GET', path: '/two', url: 'http://a.test/two', status: 200, end: { outcome: 'complete' } },
    { transport: 'http', method: 'GET', path: '/x', url: 'https://b.test/x', status: 200, end: { outcome: 'complete' } },
    { transport: 'tunnel', method: 'CONNECT', path: 'c.test:8443', url: 'c.test:8443', status: 200, end: { outcome: 'complete', tunnel: { clientBytes: 5, serverBytes: 7 } } },
  ] as const;
  exchanges.forEach(({ status, end, ...start }, i) => {
    const id = writer.beginExchange({ ...start, tOffsetMs: i * 10 });
    writer.updateExchange(id, { status });
    writer.endExchange(id, { ...end, tOffsetMs: i * 10 + 5 });
  });
  writer.close();
}

/** The Chromium launch arguments that work in a container without a sandbox or a GPU. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Why the browser tests cannot run here, or undefined when they can. */
export async function browserUnavailable(): Promise<string | undefined> {
  if (!existsSync(CHROMIUM)) return `no ${CHROMIUM} (apt-get install chromium)`;
  try {
    await import('playwright-core');
  } catch {
    return 'playwright-core is not installed (npm i -D playwright-core)';
  }
  return undefined;
}

