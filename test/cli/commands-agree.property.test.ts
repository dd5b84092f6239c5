/**
 * The agreement property: `validate --json`, `show --exchange N --json`, `findings --json` and the
 * inspector API give one set of (exchange, message, rule, severity) for the same recording. The
 * corpus is built here, through the recorder's own pipeline (TrafficRecorder) as the relays hand it
 * their traffic, to hold every kind of exchange that once made the commands disagree: WebSocket
 * closes, a stream its client cut, one its upstream cut, a failed upstream TLS check, an upstream
 * that could not be reached, AG-UI over SSE and protobuf, Pi REST (a leaked secret, versions going
 * down), the daemon's RPC (an id-less rejection), ACP (an unanswered request), a Pi RPC agent on
 * stdio with its stderr, bodies that are not JSON, well-known credentials (stored redacted, a finding
 * that reading cannot find again), a stdio agent that never came up and an NDJSON socket that is not
 * there; and the example recordings shipped in the tree. The views are made in-process
 * (test/support/recording-agreement.ts), as after every test file for every recording it wrote; one
 * test here checks that they are what the CLI prints and the inspector serves.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { HttpContext, Sender } from '../../src/core/message.js';
import { RecordingClock } from '../../src/core/recording-clock.js';
import { closeFramePayload } from '../../src/net/ws-close-codes.js';
import { ACP_SUBPROTOCOL } from '../../src/protocols/acp/index.js';
import { TrafficRecorder, type ExchangeRecording } from '../../src/record/pipeline/traffic-recorder.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { startInspector, type RunningInspector } from '../../src/ui/server/inspector-server.js';
import { piScenario } from '../support/pi-daemon/scenario.js';
import { scratch } from '../support/temp-dir.js';
import { runCli } from './run-cli.js';
import { agreementViews, disagreement, validateView, type AgreementKey } from '../support/recording-agreement.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const SECRET = 'sk-property-8d1e4b7c2a';
const OPENAI_KEY = 'sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGH';
const GITHUB_TOKEN = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const registry = SchemaRegistry.load({ useEnv: false });
const runInput = { threadId: 't1', runId: 'r1', state: {}, messages: [], tools: [], context: [], forwardedProps: {} };
const event = (value: unknown) => Buffer.from(`data: ${JSON.stringify(value)}\n\n`);

/** An AG-UI POST: its RunAgentInput, then the answer's head, as the HTTP forwarder hands them over. */
function aguiRun(recorder: TrafficRecorder, transport: 'sse' | 'proto'): ExchangeRecording {
  const exchange = recorder.openExchange({ transport: 'http', method: 'POST', path: '/agent', requestHeaders: JSON_TYPE });
  const request: HttpContext = { method: 'POST', path: '/agent', requestHeaders: JSON_TYPE };
  exchange.record('client', Buffer.from(JSON.stringify(runInput)), { carrier: 'body', http: request });
  exchange.classify({ transport: 'http', method: 'POST', path: '/agent' });
  const contentType = transport === 'sse' ? 'text/event-stream' : 'application/vnd.ag-ui.event+proto';
  exchange.update({ status: 200, transport, responseHeaders: { 'content-type': contentType } });
  exchange.classify({ transport, method: 'POST', path: '/agent', contentType });
  return exchange;
}

function sseEvents(exchange: ExchangeRecording, values: unknown[]): void {
  for (const value of values) exchange.record('server', event(value), { carrier: 'event', payload: JSON.stringify(value) });
}

/** A WebSocket as ws-relay records it: upgraded, framed, closed with a close frame each way. */
function websocket(recorder: TrafficRecorder, path: string, subprotocol: string, frames: Array<[Sender, unknown]>): void {
  const exchange = recorder.openExchange({ transport: 'ws', method: 'GET', path, requestHeaders: {} });
  exchange.update({ status: 101, subprotocol });
  exchange.classify({ transport: 'ws', path, subprotocol });
  for (const [sender, value] of frames) exchange.record(sender, Buffer.from(JSON.stringify(value)), { carrier: 'frame', channel: 'text' });
  for (const side of ['server', 'client'] as const) {
    exchange.record(side, closeFramePayload(1000, Buffer.from('bye')), { carrier: 'frame', channel: 'close', judge: false, value: { code: 1000, reason: 'bye' } });
  }
  exchange.end({ outcome: 'complete', closeCode: 1000, closeReason: 'bye' });
}

function rest(recorder: TrafficRecorder, method: string, path: string, status: number, body: { client?: unknown; server?: unknown; serverRaw?: string; json?: boolean }): void {
  const exchange = recorder.openExchange({ transport: 'http', method, path, requestHeaders: JSON_TYPE });
  const request: HttpContext = { method, path, requestHeaders: JSON_TYPE };
  if (body.client !== undefined) exchange.record('client', Buffer.from(JSON.stringify(body.client)), { carrier: 'body', http: request });
  exchange.classify({ transport: 'http', method, path });
  const contentType = body.json === false ? 'text/html' : 'application/json';
  exchange.update({ status, transport: 'http', responseHeaders: { 'content-type': contentType } });
  const raw = body.serverRaw ?? JSON.stringify(body.server);
  exchange.record('server', Buffer.from(raw), { carrier: 'body', http: { ...request, status }, ...(body.json === false ? { json: false } : {}) });
  exchange.end({ outcome: 'complete' });
}

async function buildCorpus(file: string): Promise<void> {
  const writer = RecordingWriter.open(file, { toolVersion: 'test', mode: 'record', schemaHashes: registry.hashes(), startedAt: new Date() });
  const recorder = new TrafficRecorder({ writer, registry, clock: new RecordingClock() });
  // 1: an AG-UI run with an event before RUN_STARTED.
  const early = aguiRun(recorder, 'sse');
  sseEvents(early, [
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm0', delta: 'too early' },
    { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
    { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' },
  ]);
  early.end({ outcome: 'complete' });
  // 2, 3, 4: a run cut by its client, by the proxy's shutdown, and by the upstream.
  for (const errorCode of ['E_CLIENT_ABORTED', 'E_PROXY_SHUTDOWN', 'E_UPSTREAM_RESET'] as const) {
    const cut = aguiRun(recorder, 'sse');
    sseEvents(cut, [
      { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
    ]);
    cut.end({ outcome: 'aborted', errorCode, errorMessage: 'cut' });
  }
  // 5: an AG-UI run over protobuf, decoded by the tap (the value given), finished twice.
  const proto = aguiRun(recorder, 'proto');
  for (const value of [{ type: 'RUN_STARTED', threadId: 't1', runId: 'r1' }, { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' }, { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' }]) {
    proto.record('server', Buffer.from([0, 0, 0, 2, 8, 1]), { carrier: 'event', channel: 'proto', value });
  }
  proto.end({ outcome: 'complete' });
  // 6: a failed upstream TLS check; 7: an upstream that could not be reached, after the run's input.
  const tls = recorder.openExchange({ transport: 'http', method: 'GET', path: '/health', requestHeaders: {} });
  tls.update({ status: 502, tls: { authorized: false, authorizationError: 'CERT_HAS_EXPIRED' } });
  tls.end({ outcome: 'error', errorCode: 'E_UPSTREAM_TLS', errorMessage: 'TLS certificate check of https://agents.example.test failed: its certificate has expired [CERT_HAS_EXPIRED]' });
  const unreachable = recorder.openExchange({ transport: 'http', method: 'POST', path: '/agent', requestHeaders: JSON_TYPE });
  unreachable.record('client', Buffer.from(JSON.stringify(runInput)), { carrier: 'body', http: { method: 'POST', path: '/agent', requestHeaders: JSON_TYPE } });
  unreachable.classify({ transport: 'http', method: 'POST', path: '/agent' });
  unreachable.update({ status: 502 });
  unreachable.end({ outcome: 'error', errorCode: 'E_UPSTREAM_UNREACHABLE', errorMessage: 'cannot reach http://127.0.0.1:9: ECONNREFUSED' });
  // 8-10: Pi REST: a session made with an env secret, whose generation goes down and whose name leaks it.
  const scenario = piScenario();
  const session = scenario.session as Record<string, unknown>;
  const envelope = (requestId: string, data: unknown) => ({ apiVersion: '1.0', requestId, hostInstanceId: '00000000-0000-4000-8000-0000000000d1', ok: true, data });
  rest(recorder, 'POST', '/v1/session', 202, { client: { ...scenario.createRequest, spec: { ...(scenario.createRequest.spec as object), env: { API_TOKEN: SECRET } } }, server: envelope('req-0', session) });
  rest(recorder, 'GET', '/v1/session/agent-a', 200, { server: envelope('req-1', { ...session, generation: 3, revision: 3 }) });
  rest(recorder, 'GET', '/v1/session/agent-a', 200, { server: envelope('req-2', { ...session, generation: 2, revision: 2, name: `agent ${SECRET}` }) });
  // 11, 12: bodies that are not JSON, and one that is broken JSON.
  rest(recorder, 'GET', '/', 200, { serverRaw: '<html>hi</html>', json: false });
  rest(recorder, 'GET', '/v1/capabilities', 200, { serverRaw: '{"ok":' });
  // 13: the daemon's RPC: an answered command and an id-less rejection.
  websocket(recorder, '/v1/session/pd-x/rpc', 'pi-daemon-rpc.v1', [
    ['client', { kind: 'command', command: { id: 'c1', type: 'get_state' } }],
    ['client', { kind: 'command', command: { id: 'c2', type: 'get_state' } }],
    ['server', { kind: 'response', response: { id: 'c1', type: 'response', command: 'get_state', success: true, data: {} } }],
    ['server', { kind: 'response', response: { type: 'response', command: 'get_state', success: false, error: 'rpc_in_flight_capacity' } }],
  ]);
  // 14: ACP over a WebSocket, a request never answered.
  websocket(recorder, '/v1/session/agent-a/apc', ACP_SUBPROTOCOL, [
    ['client', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }],
    ['server', { jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } }],
    ['client', { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/', mcpServers: [] } }],
    ['server', { jsonrpc: '2.0', id: 9, result: {} }],
  ]);
  // 15: a Pi RPC agent on stdio, as the stdio recorder taps it, with a line of stderr.
  const stdio = recorder.openExchange({ transport: 'stdio', url: 'pi --mode rpc' });
  const taps = {
    in: stdio.tap({ kind: 'lines', sender: 'client', channel: 'stdin', sniffStdio: true }),
    out: stdio.tap({ kind: 'lines', sender: 'server', channel: 'stdout', sniffStdio: true }),
    err: stdio.tap({ kind: 'lines', sender: 'server', channel: 'stderr', judge: false, sniffStdio: true }),
  };
  taps.in.push(Buffer.from('{"id":"1","type":"get_state"}\n{"id":"2","type":"get_state"}\n'));
  taps.out.push(Buffer.from('{"id":"1","type":"response","command":"get_state","success":true,"data":{}}\n'));
  taps.err.push(Buffer.from('warning: something {not json\n'));
  for (const tap of Object.values(taps)) await tap.end(true);
  stdio.end({ outcome: 'complete', exitCode: 0 });
  // 16: well-known credentials: in a judged AG-UI run input, a header, the URL, a text body and stderr (secret-in-traffic, stored redacted).
  const keyed = recorder.openExchange({ transport: 'http', method: 'POST', path: '/agent', query: `k=${GITHUB_TOKEN}`, url: `/agent?k=${GITHUB_TOKEN}`, requestHeaders: { ...JSON_TYPE, 'x-note': AWS_KEY } });
  keyed.record('client', Buffer.from(JSON.stringify({ ...runInput, forwardedProps: { apiKey2: OPENAI_KEY } })), { carrier: 'body', http: { method: 'POST', path: '/agent', requestHeaders: JSON_TYPE } });
  keyed.classify({ transport: 'http', method: 'POST', path: '/agent' });
  keyed.update({ status: 200, transport: 'sse', responseHeaders: { 'content-type': 'text/event-stream' } });
  keyed.classify({ transport: 'sse', method: 'POST', path: '/agent', contentType: 'text/event-stream' });
  sseEvents(keyed, [
    { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
    { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: `here: ${OPENAI_KEY}` },
    { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
    { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' },
  ]);
  keyed.end({ outcome: 'complete' });
  rest(recorder, 'POST', '/notes', 200, { client: undefined, serverRaw: `token ${OPENAI_KEY}`, json: false });
  // 18, 19: a stdio agent that could not be started, and one that exited before its first line; 20: an NDJSON socket not there.
  const notStarted = recorder.openExchange({ transport: 'stdio', url: 'pi --mode rpc' });
  notStarted.end({ outcome: 'error', errorCode: 'E_SPAWN', errorMessage: 'could not start pi: no such command (ENOENT)' });
  const exitedEarly = recorder.openExchange({ transport: 'stdio', url: 'pi --mode rpc' });
  exitedEarly.end({ outcome: 'error', errorCode: 'E_AGENT_EXITED_EARLY', errorMessage: 'pi --mode rpc exited with code 1 before it wrote a line on stdout', exitCode: 1 });
  const noSocket = recorder.openExchange({ transport: 'ndjson', url: 'unix:/run/pi.sock' });
  noSocket.classify({ transport: 'ndjson' });
  noSocket.end({ outcome: 'error', errorCode: 'E_UPSTREAM_UNREACHABLE', errorMessage: 'could not connect to unix:/run/pi.sock: no socket at that path (ENOENT)' });
  // 21-24: MCP's older HTTP+SSE transport: the GET stream's answers interleave with the POSTs they answer (judged in that order, in either form).
  await legacyMcpSession(recorder);
  // 25: a forward proxy's client that did not trust the local CA: its CONNECT's exchange.
  const untrusting = recorder.openExchange({ transport: 'tunnel', method: 'CONNECT', path: 'api.example.test:443', url: 'api.example.test:443' });
  untrusting.update({ status: 200 });
  untrusting.end({ outcome: 'error', errorCode: 'E_CLIENT_TLS', errorMessage: 'the client of CONNECT api.example.test does not trust the local CA: it refused the proxy\'s certificate (tlsv1 alert unknown ca); make it trust the local CA: eval "$(agent-proxy ca --env)", or see docs/forward.md [ERR_SSL_TLSV1_ALERT_UNKNOWN_CA]', tunnel: { clientBytes: 0, serverBytes: 0 } });
  writer.close();
}

/** A 2024-11-05 HTTP+SSE session as the relays record it: the GET stream names the URL to POST to, and carries every answer. */
async function legacyMcpSession(recorder: TrafficRecorder): Promise<void> {
  const stream = recorder.openExchange({ transport: 'http', method: 'GET', path: '/sse', requestHeaders: { accept: 'text/event-stream' } });
  stream.classify({ transport: 'http', method: 'GET', path: '/sse' });
  stream.update({ status: 200, transport: 'sse', responseHeaders: { 'content-type': 'text/event-stream' } });
  stream.classify({ transport: 'sse', method: 'GET', path: '/sse', contentType: 'text/event-stream' });
  const events = stream.tap({ kind: 'sse', sender: 'server' });
  events.push(Buffer.from('event: endpoint\ndata: /message?sessionId=s1\n\n'));
  const answer = (value: unknown) => events.push(Buffer.from(`event: message\ndata: ${JSON.stringify(value)}\n\n`));
  const post = (value: unknown) => {
    const request: HttpContext = { method: 'POST', path: '/message', query: new URLSearchParams('sessionId=s1'), requestHeaders: JSON_TYPE };
    const exchange = recorder.openExchange({ transport: 'http', method: 'POST', path: '/message', query: 'sessionId=s1', url: '/message?sessionId=s1', requestHeaders: JSON_TYPE });
    exchange.record('client', Buffer.from(JSON.stringify(value)), { carrier: 'body', http: request });
    exchange.classify({ transport: 'http', method: 'POST', path: '/message' });
    exchange.update({ status: 202, transport: 'http', responseHeaders: { 'content-type': 'text/plain' } });
    exchange.record('server', Buffer.from('Accepted'), { carrier: 'body', http: { ...request, status: 202 }, json: false });
    exchange.end({ outcome: 'complete' });
  };
  post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
  answer({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } });
  post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  answer({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
  await events.end(true);
  stream.end({ outcome: 'complete' });
}

interface Finding {
  rule: string;
  severity: string;
}
type Key = string;
const key = (exchange: number, seq: number, f: Finding): Key => `#${exchange}.${seq} ${f.severity} ${f.rule}`;
const sorted = (keys: Key[]) => [...keys].sort();

async function cliJson(args: string[]): Promise<any> {
  const r = await runCli(args);
  expect(r.stderr, args.join(' ')).toBe('');
  return JSON.parse(r.stdout);
}

async function fromValidate(file: string): Promise<Key[]> {
  const report = await cliJson(['validate', '--json', file]);
  return [
    ...report.messages.flatMap((m: { exchange: number; seq: number; verdict: { findings: Finding[] } }) => m.verdict.findings.map((f) => key(m.exchange, m.seq, f))),
    ...(report.exchangeFindings ?? []).map((f: Finding & { exchange: number }) => key(f.exchange, 0, f)),
  ];
}

// Three tests read the corpus's findings: the command runs once per file for each recording.
const findingsRuns = new Map<string, Promise<Key[]>>();

function fromFindings(file: string): Promise<Key[]> {
  if (!findingsRuns.has(file)) findingsRuns.set(file, findingsOf(file));
  return findingsRuns.get(file)!;
}

async function findingsOf(file: string): Promise<Key[]> {
  const doc = await cliJson(['findings', '--json', file]);
  return doc.findings.map((f: Finding & { exchange: number; seq: number }) => key(f.exchange, f.seq, f));
}

async function fromInspector(file: string): Promise<Key[]> {
  const inspector: RunningInspector = await startInspector({ recording: file, listen: 0 });
  try {
    const get = async (path: string) => {
      const res = await fetch(inspector.url + path);
      expect(res.status, path).toBe(200);
      return res.json() as Promise<any>;
    };
    const keys: Key[] = [];
    for (const { id } of (await get('/api/exchanges')) as Array<{ id: number }>) {
      const exchange = await get(`/api/exchanges/${id}`);
      for (const f of exchange.findings as Finding[]) keys.push(key(id, 0, f));
      const page = await get(`/api/exchanges/${id}/messages?limit=500`);
      for (const m of page.items as Array<{ seq: number; findingCount: number }>) {
        if (m.findingCount === 0) continue;
        const detail = await get(`/api/messages/${id}/${m.seq}`);
        for (const f of detail.findings as Finding[]) keys.push(key(id, m.seq, f));
      }
    }
    return keys;
  } finally {
    await inspector.close();
  }
}

const dir = scratch('agent-proxy-agreement-');
const corpus = dir.file('corpus.db');
const exported = dir.file('corpus.ndjson');
const files = [corpus, exported, 'recordings/examples/agui-sse-run.ndjson', 'recordings/examples/pi-daemon-session.ndjson'];

describe('the agreement property: validate, show, findings and the inspector tell one story of every recording', () => {
  beforeAll(async () => {
    await buildCorpus(corpus);
    // The same recording in its NDJSON form, read through the import every command does.
    expect((await runCli(['export', corpus, '--format', 'ndjson', '--out', exported])).code).toBe(0);
  });

  it('the corpus holds what once made the commands disagree', async () => {
    const keys = await fromFindings(corpus);
    for (const rule of ['first-event-must-be-run-started', 'stream-truncated', 'upstream-tls-failed', 'upstream-unreachable', 'client-tls-failed', 'secret-leak', 'secret-in-traffic', 'response-uncorrelatable', 'invalid-json']) {
      expect(keys.some((k) => k.endsWith(` ${rule}`)), rule).toBe(true);
    }
    // Only the stream its upstream cut is truncated: not those its client or the proxy's shutdown cut.
    expect(keys.filter((k) => k.endsWith(' stream-truncated')).map((k) => k.split(' ')[0])).toEqual(['#4.3']);
    // An agent that could not be started, one that exited before its first line, a socket not there: each its exchange's error.
    expect(keys.filter((k) => k.endsWith(' upstream-unreachable')).map((k) => k.split(' ')[0])).toEqual(['#7.0', '#18.0', '#19.0', '#20.0']);
    expect(keys.filter((k) => k.endsWith(' client-tls-failed'))).toEqual(['#25.0 error client-tls-failed']);
  });

  it('an MCP session over HTTP+SSE, its answers on the GET stream between the POSTs they answer, is judged in that order in either form', async () => {
    const mcp = (keys: AgreementKey[]) => keys.filter((k) => /^#2[1-4]\./.test(k));
    expect(mcp(await fromFindings(corpus))).toEqual([]);
    expect(mcp(validateView(exported))).toEqual([]);
  });

  it('the views made in-process are those the CLI prints and the inspector serves', async () => {
    const views = agreementViews(corpus);
    expect(sorted(await fromValidate(corpus)), 'validate --json').toEqual(sorted(views.validate));
    expect(sorted(await fromFindings(corpus)), 'findings --json').toEqual(sorted(views.findings));
    expect(sorted(await fromInspector(corpus)), 'the inspector API').toEqual(sorted(views.inspector));
  });

  // Every recording any test writes is checked the same way after its file (test/support/agreement-setup.ts).
  it.each(files.map((f) => [f]))('%s: the same (exchange, message, rule, severity) from each', (file) => {
    expect(disagreement(file)).toBeUndefined();
  });
});
