/**
 * redrive in-process: a recording made through the recorder in front of a stand-in (AG-UI, the Pi
 * daemon, MCP over Streamable HTTP, the OpenAI and Anthropic APIs) is sent again to a stand-in,
 * recorded anew and diffed with the original.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { UsageError } from '../../src/core/errors.js';
import { RedactedValues } from '../../src/redrive/redacted-values.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { exportNdjsonText } from '../../src/export/ndjson-export.js';
import { describe, expect, it } from 'vitest';
import { EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { defaultAguiScript, startAguiAgent, type AguiAgent, type AguiAgentOptions } from '../support/agui-agent.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { startRecorder } from '../../src/record/start-recorder.js';
import { runRedrive, type RedriveEvent } from '../../src/redrive/run-redrive.js';
import { startPiDaemon } from '../support/pi-daemon-standin.js';
import { openRecording } from '../../src/store/open-recording.js';
import { wsOpen } from '../support/ws-client.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../support/waits.js';
import { ManualClock } from '../support/manual-clock.js';
import { ANSWER_WAIT_MS } from '../../src/redrive/ws-conversation.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startMcpHttpEverything } from '../support/mcp-http-replay-servers.js';
import { startHttpMcpStandIn, type HttpMcpStandIn } from '../support/http-mcp-server.js';
import { startOpenAiUpstream } from '../support/openai-upstream.js';
import { STANDIN_MODEL, WEATHER_TOOL } from '../support/openai-scenario.js';
import { startAnthropicUpstream } from '../support/anthropic-upstream.js';
import { CLAUDE_WEATHER_TOOL } from '../support/anthropic-scenario.js';
import { request as httpRequest } from 'node:http';
import { storedBytes } from '../support/stored-bytes.js';

useCleanups();

const SECRET = 'Bearer redrive-secret-7f3a9c';
const TENANT = 'tenant-secret-51be02';

async function agent(options: AguiAgentOptions = {}): Promise<AguiAgent> {
  const started = await startAguiAgent(options);
  onCleanup(() => started.close());
  return started;
}

function runInput(runId: string): RunAgentInput {
  return { threadId: 'thread-1', runId, messages: [{ id: 'u1', role: 'user', content: 'hello' }], tools: [], context: [], state: {}, forwardedProps: {} };
}

/** Two AG-UI runs (SSE streams) recorded through the recorder, the first with credentials the recording redacts (by default, by --redact-header). */
async function recordGolden(target: string, out: string): Promise<void> {
  const recorder = await startRecorder({ target, listen: 0, out, redactHeaders: ['x-tenant'] });
  for (const [path, runId, headers] of [['/agent', 'run-1', { authorization: 'Bearer recorded-token', 'x-tenant': 'recorded-tenant' }], ['/other', 'run-2', {}]] as const) {
    const response = await fetch(`${recorder.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers }, body: JSON.stringify(runInput(runId)) });
    await response.text();
  }
  await recorder.close();
}

/** The default run with one answer changed: the text message's content. */
function changedText(input: RunAgentInput): BaseEvent[] {
  return defaultAguiScript(input).map((event) => (event.type === EventType.TEXT_MESSAGE_CONTENT ? ({ ...event, delta: 'Goodbye' } as BaseEvent) : event));
}

async function mcpStandIn(always: readonly string[] = []): Promise<HttpMcpStandIn> {
  const started = await startHttpMcpStandIn(always);
  onCleanup(() => started.close());
  return started;
}

/** One MCP session over Streamable HTTP (initialize, tools/list, tools/call, DELETE) by the SDK client, through the recorder. */
async function recordMcpSession(origin: string, out: string): Promise<string> {
  const recorder = await startRecorder({ target: origin, listen: 0, out });
  const transport = new StreamableHTTPClientTransport(new URL(`${recorder.url}/ok/mcp`));
  const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' });
  await client.connect(transport);
  const session = transport.sessionId!;
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
  await transport.terminateSession();
  await client.close();
  await recorder.close();
  return session;
}

/** One MCP session over the older HTTP+SSE transport (GET /ok/sse, then initialize, tools/list, tools/call POSTed to its endpoint) by the SDK client, through the recorder; closed without a DELETE, as that transport has none. */
async function recordLegacyMcpSession(origin: string, out: string): Promise<void> {
  const recorder = await startRecorder({ target: origin, listen: 0, out });
  const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(`${recorder.url}/ok/sse`)));
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
  await client.close();
  await recorder.close();
}

/**
 * Each POST of the legacy session the recording `file` holds: its method, the session it named, and
 * how many events its GET stream (exchange 1) had carried when it was sent.
 */
function legacyPosts(file: string): string[] {
  const reader = openRecording(file);
  try {
    const [stream, ...posts] = reader.exchanges();
    const events = reader.messages(stream!.id).filter((m) => m.channel !== 'comment');
    return posts.map((post) => {
      const body = reader.messages(post.id).find((m) => m.sender === 'client')?.json as { method?: string; id: number };
      return `${body.method ?? `response ${body.id}`} ${post.query} after ${events.filter((e) => e.tOffsetMs < post.startedMs).length}`;
    });
  } finally {
    reader.close();
  }
}

/** The session id the endpoint event of the recording's legacy stream (exchange 1) named. */
function endpointSession(file: string): string {
  const reader = openRecording(file);
  try {
    const [endpoint] = reader.messages(1);
    return /sessionId=([^\s&]+)/.exec(endpoint!.raw.toString('utf8'))![1]!;
  } finally {
    reader.close();
  }
}

/** The Mcp-Session-Id each request the recording `file` holds sent, after its method (initialize sent none). */
function sessionIdsSent(file: string): string[] {
  const reader = openRecording(file);
  try {
    return reader.exchanges().map((e) => `${e.method} ${String(e.requestHeaders?.['mcp-session-id'] ?? '-')}`);
  } finally {
    reader.close();
  }
}

describe('runRedrive', () => {
  it('against the agent that produced the recording: equal, requests sent in order, a header the recording redacted supplied again where it was recorded', async () => {
    const dir = scratch();
    const upstream = await agent();
    await recordGolden(upstream.url, dir.file('golden.db'));
    const result = await runRedrive({ recording: dir.file('golden.db'), target: upstream.url, out: dir.file('new.db'), headers: [{ name: 'Authorization', value: SECRET }, { name: 'X-Tenant', value: TENANT }], diff: { semantic: true } });
    expect(result).toMatchObject({ sent: 2, skipped: [] });
    expect(result.report.equal).toBe(true);
    const redriven = upstream.requests.slice(2);
    expect(redriven.map((r) => [r.path, r.body?.runId, r.headers.authorization, r.headers['x-tenant']])).toEqual([
      ['/agent', 'run-1', SECRET, TENANT],
      ['/other', 'run-2', undefined, undefined],
    ]);
    const stored = [dir.file('new.db'), dir.file('new.db-wal')].filter((file) => existsSync(file));
    expect(stored.length).toBeGreaterThan(0);
    for (const file of stored) {
      const bytes = readFileSync(file);
      expect([bytes.includes('redrive-secret-7f3a9c'), bytes.includes(TENANT)]).toEqual([false, false]);
    }
  });

  it('against an agent changed in one answer: that change and nothing else', async () => {
    const dir = scratch();
    await recordGolden((await agent()).url, dir.file('golden.db'));
    const changed = await agent({ script: changedText });
    const { report } = await runRedrive({ recording: dir.file('golden.db'), target: changed.url, out: dir.file('new.db'), diff: { semantic: true } });
    expect(report.equal).toBe(false);
    expect(report.summary).toMatchObject({ exchanges: { equal: 0, changed: 2, added: 0, removed: 0 }, regressions: 0 });
    const differences = report.exchanges.flatMap((e) => e.messages.flatMap((m) => m.differences));
    expect(differences.length).toBeGreaterThan(0);
    expect(differences.every((d) => d.b === 'Goodbye' || (typeof d.b === 'string' && d.b.includes('Goodbye')))).toBe(true);
  });

  it('against an agent that now sends an invalid message: a regression', async () => {
    const dir = scratch();
    await recordGolden((await agent()).url, dir.file('golden.db'));
    const broken = await agent({ script: 'broken-content-before-start' });
    const { report } = await runRedrive({ recording: dir.file('golden.db'), target: broken.url, out: dir.file('new.db'), diff: { semantic: true } });
    expect(report.summary.regressions).toBeGreaterThan(0);
  });

  it('carries forward the ids the new server mints: each poll of a Pi daemon ticket reaches the ticket the fresh daemon made', async () => {
    const dir = scratch();
    const token = { authorization: 'Bearer test-token' };
    const recorded = await startPiDaemon();
    onCleanup(() => recorded.close());
    const recorder = await startRecorder({ target: recorded.url, listen: 0, out: dir.file('golden.db') });
    const create = { requestId: 'req-create-1', spec: { cwd: '/srv/work', target: { mode: 'new' } } };
    const created = await fetch(`${recorder.url}/v1/session`, { method: 'POST', headers: { ...token, 'content-type': 'application/json', 'idempotency-key': 'create-1' }, body: JSON.stringify(create) });
    const ticketId = ((await created.json()) as { data: { ticketId: string } }).data.ticketId;
    for (let poll = 0; poll < 2; poll++) expect((await fetch(`${recorder.url}/v1/ticket/${ticketId}`, { headers: token })).status).toBe(200);
    await recorder.close();

    const fresh = await startPiDaemon();
    onCleanup(() => fresh.close());
    const result = await runRedrive({ recording: dir.file('golden.db'), target: fresh.url, out: dir.file('new.db'), headers: [{ name: 'Authorization', value: 'Bearer test-token' }], diff: { semantic: true } });
    const polls = fresh.received.http.filter((r) => r.path.startsWith('/v1/ticket/'));
    expect(polls).toHaveLength(2);
    expect(polls.map((r) => r.path)).not.toContain(`/v1/ticket/${ticketId}`);
    const reader = openRecording(dir.file('new.db'));
    try {
      expect(reader.exchanges().map((e) => e.status)).toEqual([202, 200, 200]);
    } finally {
      reader.close();
    }
    expect(result.report.equal).toBe(true);
  });

  it('puts the values given for fields the recording redacted (a Pi session env value) where they were, and stores them redacted again; refuses a redacted field given no value before sending anything', async () => {
    const dir = scratch();
    const ENV_SECRET = 'env-secret-value-93c1d7e0';
    const token = { authorization: 'Bearer test-token' };
    const recorded = await startPiDaemon();
    onCleanup(() => recorded.close());
    const recorder = await startRecorder({ target: recorded.url, listen: 0, out: dir.file('golden.db') });
    const create = { requestId: 'req-create-1', spec: { cwd: '/srv/work', target: { mode: 'new' }, env: { SERVICE_TOKEN: ENV_SECRET } } };
    const created = await fetch(`${recorder.url}/v1/session`, { method: 'POST', headers: { ...token, 'content-type': 'application/json', 'idempotency-key': 'create-1' }, body: JSON.stringify(create) });
    const ticketId = ((await created.json()) as { data: { ticketId: string } }).data.ticketId;
    for (let poll = 0; poll < 2; poll++) expect((await fetch(`${recorder.url}/v1/ticket/${ticketId}`, { headers: token })).status).toBe(200);
    await recorder.close();
    expect(readFileSync(dir.file('golden.db')).includes(ENV_SECRET)).toBe(false);

    const fresh = await startPiDaemon();
    onCleanup(() => fresh.close());
    const headers = [{ name: 'Authorization', value: 'Bearer test-token' }];
    const refused = runRedrive({ recording: dir.file('golden.db'), target: fresh.url, out: dir.file('refused.db'), headers, diff: { semantic: true } });
    await expect(refused).rejects.toThrow(
      new UsageError('the recording redacted /spec/env/SERVICE_TOKEN (exchange 1) and no value is given for it: give it as FIELD=value in a --redacted-values file'),
    );
    expect([fresh.received.http.length, existsSync(dir.file('refused.db'))]).toEqual([0, false]);

    writeFileSync(dir.file('values.env'), `# given in CI\nSERVICE_TOKEN="${ENV_SECRET}"\n`);
    const result = await runRedrive({ recording: dir.file('golden.db'), target: fresh.url, out: dir.file('new.db'), headers, redactedValues: RedactedValues.read(dir.file('values.env')), diff: { semantic: true } });
    expect((fresh.received.http[0]!.body as { spec: { env: Record<string, string> } }).spec.env).toEqual({ SERVICE_TOKEN: ENV_SECRET });
    expect(result.report.equal).toBe(true);
    const reader = RecordingReader.open(dir.file('new.db'));
    writeFileSync(dir.file('new.ndjson'), exportNdjsonText(reader));
    reader.close();
    for (const file of [dir.file('new.db'), dir.file('new.ndjson')]) {
      expect(storedBytes(file).includes(ENV_SECRET), file).toBe(false);
    }
  });

  it('plays a WebSocket conversation: each client frame once the answers it waited for have come, then the recorded close', async () => {
    const dir = scratch();
    const bearer = { authorization: 'Bearer test-token' };
    const recorded = await startPiDaemon({ rpcTurn: 'text' });
    onCleanup(() => recorded.close());
    const recorder = await startRecorder({ target: recorded.url, listen: 0, out: dir.file('golden.db') });
    const c = await wsOpen(`${recorder.url.replace('http:', 'ws:')}/v1/session/agent-a/rpc?role=controller`, 'pi-daemon-rpc.v1', { headers: bearer });
    await c.take(1);
    c.ws.send(JSON.stringify({ kind: 'command', command: { id: 'p-1', type: 'prompt', message: 'Say hello' } }));
    await c.take(2 + 16);
    c.ws.close(1000, 'done');
    await c.closed;
    await recorder.close();

    const fresh = await startPiDaemon({ rpcTurn: 'text' });
    onCleanup(() => fresh.close());
    const result = await runRedrive({ recording: dir.file('golden.db'), target: fresh.url, out: dir.file('new.db'), headers: [{ name: 'Authorization', value: 'Bearer test-token' }], diff: { semantic: true } });
    expect(result).toMatchObject({ sent: 1, skipped: [] });
    expect(fresh.received.ws[0]).toMatchObject({ route: 'rpc', mode: 'framed', protocol: 'pi-daemon-rpc.v1', fromClient: [{ kind: 'command', command: { id: 'p-1', type: 'prompt' } }] });
    expect(fresh.received.ws[0]!.toClient).toHaveLength(2 + 16);
    const reader = openRecording(dir.file('new.db'));
    try {
      expect(reader.exchanges()).toMatchObject([{ transport: 'ws', status: 101, closeCode: 1000, closeReason: 'done' }]);
    } finally {
      reader.close();
    }
    expect(result.report.equal).toBe(true);
  });

  it('carries an id minted within a WebSocket conversation into its later frames: the confirm dialog the fresh daemon opened is the one answered', async () => {
    const dir = scratch();
    const options = { rpcTurn: 'text', confirmBeforeTurn: true, mintDialogIds: true } as const;
    const recorded = await startPiDaemon(options);
    onCleanup(() => recorded.close());
    const recorder = await startRecorder({ target: recorded.url, listen: 0, out: dir.file('golden.db') });
    const c = await wsOpen(`${recorder.url.replace('http:', 'ws:')}/v1/session/agent-a/rpc?role=controller`, 'pi-daemon-rpc.v1', { headers: { authorization: 'Bearer test-token' } });
    await c.take(1);
    c.ws.send(JSON.stringify({ kind: 'command', command: { id: 'p-1', type: 'prompt', message: 'Say hello' } }));
    const asked = (JSON.parse((await c.take(3))[2]) as { event: { id: string } }).event.id;
    c.ws.send(JSON.stringify({ kind: 'extension_ui_response', response: { type: 'extension_ui_response', id: asked, confirmed: true } }));
    await c.take(4 + 16);
    c.ws.close(1000, 'done');
    await c.closed;
    await recorder.close();

    const fresh = await startPiDaemon(options);
    onCleanup(() => fresh.close());
    const result = await runRedrive({ recording: dir.file('golden.db'), target: fresh.url, out: dir.file('new.db'), headers: [{ name: 'Authorization', value: 'Bearer test-token' }], diff: { semantic: true } });
    const conversation = fresh.received.ws[0]!;
    const freshAsked = (conversation.toClient[2] as { event: { id: string } }).event.id;
    expect(freshAsked).not.toBe(asked);
    expect(conversation.fromClient[1]).toMatchObject({ kind: 'extension_ui_response', response: { id: freshAsked } });
    // The answer was taken: the turn ran to its end.
    expect(conversation.toClient).toHaveLength(4 + 16);
    expect(result.report.equal).toBe(true);
  });

  it('exchanges that overlapped in the recording overlap again: a long poll answered once a later request comes', async () => {
    /** GET /wait is answered once GET /release has come: sent one after the other, they would never end. */
    const longPoll = async () => {
      const waiting: Array<() => void> = [];
      const paths: string[] = [];
      const server = createServer((req, res) => {
        paths.push(req.url!);
        const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url }));
        if (req.url === '/wait') waiting.push(answer);
        else {
          for (const w of waiting.splice(0)) w();
          answer();
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, waiting };
    };
    const dir = scratch();
    const first = await longPoll();
    const recorder = await startRecorder({ target: first.url, listen: 0, out: dir.file('golden.db') });
    const held = fetch(`${recorder.url}/wait`).then((r) => r.text());
    await waitFor(() => first.waiting.length === 1, 'the long poll to arrive');
    await (await fetch(`${recorder.url}/release`)).text();
    await held;
    await recorder.close();

    const second = await longPoll();
    const { report } = await runRedrive({ recording: dir.file('golden.db'), target: second.url, out: dir.file('new.db'), diff: { semantic: true } });
    expect(second.paths).toEqual(['/wait', '/release']);
    expect(report.equal).toBe(true);
  });

  it('an MCP session over Streamable HTTP: every later request carries the Mcp-Session-Id the fresh server issued; equal', async () => {
    const dir = scratch();
    const recorded = await recordMcpSession((await mcpStandIn()).origin, dir.file('golden.db'));
    // A fresh server that issues another session id than the recording's.
    const fresh = await mcpStandIn();
    await fetch(`${fresh.origin}/ok/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18' } }) });
    const result = await runRedrive({ recording: dir.file('golden.db'), target: fresh.origin, out: dir.file('new.db'), diff: { semantic: true } });
    const sent = sessionIdsSent(dir.file('new.db'));
    const issued = 'session-2';
    expect(issued).not.toBe(recorded);
    expect(sent).toEqual(sessionIdsSent(dir.file('golden.db')).map((line) => line.replace(recorded, issued)));
    expect(sent.filter((line) => line.endsWith(issued)).length).toBeGreaterThanOrEqual(4);
    expect(result.report.equal).toBe(true);
  });

  it('an MCP session its client closed without DELETE: the GET stream the server keeps open is closed where the client closed it; equal', async () => {
    const dir = scratch();
    const recorder = await startRecorder({ target: (await mcpStandIn()).origin, listen: 0, out: dir.file('golden.db') });
    const transport = new StreamableHTTPClientTransport(new URL(`${recorder.url}/ok/mcp`));
    const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' });
    await client.connect(transport);
    await client.listTools();
    await client.close();
    await recorder.close();
    const result = await runRedrive({ recording: dir.file('golden.db'), target: (await mcpStandIn()).origin, out: dir.file('new.db'), diff: { semantic: true } });
    expect(sessionIdsSent(dir.file('new.db'))).toEqual(sessionIdsSent(dir.file('golden.db')));
    expect(sessionIdsSent(dir.file('new.db'))).toContain('GET session-1');
    expect(result.report.equal).toBe(true);
  });

  it('an MCP session over HTTP+SSE: the POSTs go to the endpoint the fresh server named, each once the stream has carried what it had before it; equal', async () => {
    const dir = scratch();
    await recordLegacyMcpSession((await mcpStandIn()).origin, dir.file('golden.db'));
    const recorded = legacyPosts(dir.file('golden.db'));
    expect(recorded).toEqual(['initialize sessionId=session-1 after 1', 'notifications/initialized sessionId=session-1 after 2', 'tools/list sessionId=session-1 after 2', 'tools/call sessionId=session-1 after 3']);
    // A fresh server that holds each answer until released, and has issued one session before: the redriven one is session-2.
    const fresh = await mcpStandIn(['held']);
    await fetch(`${fresh.origin}/ok/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05' } }) });
    const clock = new ManualClock();
    const events: RedriveEvent[] = [];
    const redriving = runRedrive({ recording: dir.file('golden.db'), target: fresh.origin, out: dir.file('new.db'), diff: { semantic: true }, pacing: { timing: { mode: 'none' }, clock }, progress: (e) => events.push(e) });
    // Each step: the POSTs up to one that waits for an answer (on its bounded wait's clock), held back until released.
    for (const posted of [['initialize'], ['initialize', 'notifications/initialized', 'tools/list'], ['initialize', 'notifications/initialized', 'tools/list', 'tools/call']]) {
      await waitFor(() => fresh.legacyPosts.length === posted.length, `${posted.at(-1)} to come`);
      await clock.sleeping();
      expect(fresh.legacyPosts).toEqual(posted);
      fresh.release();
    }
    const result = await redriving;
    expect(legacyPosts(dir.file('new.db'))).toEqual(recorded.map((line) => line.replace('session-1', 'session-2')));
    expect(events.filter((e) => e.kind !== 'sent')).toEqual([]);
    expect(result).toMatchObject({ sent: 5, skipped: [] });
    expect(result.report.equal).toBe(true);
  });

  it('the reference server over HTTP+SSE, recorded with the SDK client: its elicitation request answered once it has come again; equal', async () => {
    const dir = scratch();
    const recorded = await startMcpHttpEverything();
    onCleanup(() => recorded.close());
    const recorder = await startRecorder({ target: recorded.origin, listen: 0, out: dir.file('golden.db') });
    // Elicitation only: a client that offers roots is asked for them whenever the server gets to it, in no set order.
    const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
    await client.connect(new SSEClientTransport(new URL(`${recorder.url}/sse`)));
    await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    await client.close();
    await recorder.close();

    const fresh = await startMcpHttpEverything();
    onCleanup(() => fresh.close());
    const result = await runRedrive({ recording: dir.file('golden.db'), target: fresh.origin, out: dir.file('new.db'), diff: { semantic: true } });
    const [was, now] = [endpointSession(dir.file('golden.db')), endpointSession(dir.file('new.db'))];
    expect(now).not.toBe(was);
    // Each POST went once the stream had carried at least what it had before it in the recording (the
    // server's notifications may come sooner): the client's answer to the server's request (id 0) after that request.
    const split = (line: string) => [line.replace(/ after \d+$/, ''), Number(/ after (\d+)$/.exec(line)![1])] as const;
    const posts = legacyPosts(dir.file('golden.db')).map(split);
    const redriven = legacyPosts(dir.file('new.db')).map(split);
    expect(posts.filter(([post]) => post.startsWith('response 0'))).toHaveLength(1);
    expect(redriven.map(([post]) => post)).toEqual(posts.map(([post]) => post.replace(was, now)));
    expect(redriven.filter(([, after], i) => after < posts[i]![1])).toEqual([]);
    expect(result.report.equal, JSON.stringify(result.report.exchanges)).toBe(true);
  });

  it('an MCP session over HTTP+SSE against a server changed in one answer: that change (one exchange at a time too); against one whose stream never carries an answer, the waits end and say so', async () => {
    const dir = scratch();
    await recordLegacyMcpSession((await mcpStandIn()).origin, dir.file('golden.db'));
    // --serial: the POSTs do not wait for their session's stream to end, which it would not before they are sent.
    const { report } = await runRedrive({ recording: dir.file('golden.db'), target: (await mcpStandIn(['echo-number'])).origin, out: dir.file('changed.db'), serial: true, diff: { semantic: true } });
    const messages = report.exchanges.flatMap((e) => e.messages);
    expect(messages.flatMap((m) => m.differences.map((d) => [d.pointer, d.a, d.b]))).toEqual([['/tools/echo/inputSchema/properties/message/type', 'string', 'number']]);
    expect(report.equal).toBe(false);

    // The waits run on a clock the test moves, past each deadline once nothing else can come.
    const clock = new ManualClock();
    const silentServer = await mcpStandIn(['silent-list']);
    const events: RedriveEvent[] = [];
    const redriving = runRedrive({ recording: dir.file('golden.db'), target: silentServer.origin, out: dir.file('silent.db'), diff: { semantic: true }, pacing: { timing: { mode: 'none' }, clock }, progress: (e) => events.push(e) });
    // tools/call waits for the answer to tools/list, which never comes, until the wait is over.
    await waitFor(() => silentServer.legacyPosts.includes('tools/list'), 'the stand-in to get tools/list');
    const deadline = await clock.sleeping();
    expect(deadline).toBeGreaterThanOrEqual(ANSWER_WAIT_MS);
    clock.advanceTo(deadline);
    // Then the stream waits for as many events as it had; the server ends it first.
    await waitFor(() => silentServer.legacyPosts.includes('tools/call'), 'the stand-in to get tools/call');
    await silentServer.close();
    const silent = await redriving;
    expect(silentServer.legacyPosts).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call']);
    expect(events.flatMap((e) => (e.kind === 'unmet' ? [`${e.exchange.id} ${e.reason.replace(/\(waited [\d.]+ s\)/, '(waited …)')}`] : []))).toEqual([
      '5 sent without all it waited for: the stream of exchange 1 had carried 2 of the 3 events it had before it in the recording (waited …)',
      '1 ended with 3 of the 4 events the recording holds of it (the stream ended)',
    ]);
    expect(silent.report.equal).toBe(false);
    expect(silent.report.summary.exchanges).toMatchObject({ added: 0, removed: 0 });
  });

  it('an MCP session against a server changed in one answer (a tool schema): that change, and the recorded call it now breaks', async () => {
    const dir = scratch();
    await recordMcpSession((await mcpStandIn()).origin, dir.file('golden.db'));
    const changed = await mcpStandIn(['echo-number']);
    const { report } = await runRedrive({ recording: dir.file('golden.db'), target: changed.origin, out: dir.file('new.db'), diff: { semantic: true } });
    expect(report.equal).toBe(false);
    expect(report.summary.exchanges).toMatchObject({ changed: 2, added: 0, removed: 0 });
    const messages = report.exchanges.flatMap((e) => e.messages);
    expect(messages.flatMap((m) => m.differences.map((d) => [d.pointer, d.a, d.b]))).toEqual([['/tools/echo/inputSchema/properties/message/type', 'string', 'number']]);
    expect(messages.flatMap((m) => (m.verdict ? [[m.verdict.change, m.verdict.findings.map((f) => f.rule)]] : []))).toEqual([['regression', ['mcp-tool-arguments-invalid']]]);
  });
});

/** A model API turn: the path, the headers and the body the client posts. */
type Turn = { path: string; headers: Record<string, string>; body: Record<string, unknown> };

/**
 * Posts the turns through a recorder in front of `origin` into `out`: each body made from the
 * answers before it (`next` reads the tool call id the model minted, and echoes it).
 */
async function recordTurns(origin: string, out: string, turns: Array<(answers: unknown[]) => Turn>): Promise<unknown[]> {
  const recorder = await startRecorder({ target: origin, listen: 0, out });
  const answers: unknown[] = [];
  for (const turn of turns) {
    const { path, headers, body } = turn(answers);
    const response = await fetch(`${recorder.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    answers.push(body.stream === true ? await response.text() : await response.json());
  }
  await recorder.close();
  return answers;
}

/** A server in front of `origin` that answers as it does, with `from` replaced by `to` in every answer: the model changed in one answer. */
async function changedModel(origin: string, from: string, to: string): Promise<string> {
  const server = createServer((req, res) => {
    const upstream = new URL(origin);
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const body = Buffer.from(Buffer.concat(chunks).toString('utf8').split(from).join(to), 'utf8');
        const headers = { ...answer.headers, 'content-length': String(body.length) };
        delete headers['transfer-encoding'];
        res.writeHead(answer.statusCode ?? 502, headers).end(body);
      });
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const WEATHER_QUESTION = { role: 'user', content: "What's the weather in Paris?" };
const OPENAI_KEY = { authorization: 'Bearer sk-recorded' };
/** A chat completion with a tool call, the tool's result sent back (streamed), then a plain streamed turn. */
const OPENAI_TURNS: Array<(answers: unknown[]) => Turn> = [
  () => ({ path: '/v1/chat/completions', headers: OPENAI_KEY, body: { model: STANDIN_MODEL, messages: [WEATHER_QUESTION], tools: [WEATHER_TOOL] } }),
  ([first]) => {
    const call = (first as { choices: Array<{ message: { tool_calls: Array<{ id: string; function: unknown }> } }> }).choices[0]!.message.tool_calls[0]!;
    const messages = [WEATHER_QUESTION, { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: call.function }] }, { role: 'tool', tool_call_id: call.id, content: 'sunny' }];
    return { path: '/v1/chat/completions', headers: OPENAI_KEY, body: { model: STANDIN_MODEL, stream: true, messages, tools: [WEATHER_TOOL] } };
  },
  () => ({ path: '/v1/chat/completions', headers: OPENAI_KEY, body: { model: STANDIN_MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }] } }),
];
const ANTHROPIC_HEADERS = { 'x-api-key': 'sk-ant-recorded', 'anthropic-version': '2023-06-01' };
/** A message with a tool use, its result sent back (streamed), then a plain streamed turn. */
const ANTHROPIC_TURNS: Array<(answers: unknown[]) => Turn> = [
  () => ({ path: '/v1/messages', headers: ANTHROPIC_HEADERS, body: { model: 'claude-standin', max_tokens: 256, messages: [WEATHER_QUESTION], tools: [CLAUDE_WEATHER_TOOL] } }),
  ([first]) => {
    const content = (first as { content: Array<{ type: string; id?: string }> }).content;
    const use = content.find((block) => block.type === 'tool_use')!;
    const messages = [WEATHER_QUESTION, { role: 'assistant', content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] }];
    return { path: '/v1/messages', headers: ANTHROPIC_HEADERS, body: { model: 'claude-standin', max_tokens: 256, stream: true, messages, tools: [CLAUDE_WEATHER_TOOL] } };
  },
  () => ({ path: '/v1/messages', headers: ANTHROPIC_HEADERS, body: { model: 'claude-standin', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'Hi' }] } }),
];

describe('runRedrive of model API recordings', () => {
  for (const api of [
    { name: 'OpenAI chat completions', start: startOpenAiUpstream, turns: OPENAI_TURNS, key: { name: 'Authorization', value: 'Bearer sk-live' }, protocol: 'openai', echoed: (body: unknown) => (body as { messages: Array<{ tool_call_id: string }> }).messages[2]!.tool_call_id },
    { name: 'Anthropic messages', start: startAnthropicUpstream, turns: ANTHROPIC_TURNS, key: { name: 'X-Api-Key', value: 'sk-ant-live' }, protocol: 'anthropic', echoed: (body: unknown) => (body as { messages: Array<{ content: Array<{ tool_use_id: string }> }> }).messages[2]!.content[0]!.tool_use_id },
  ]) {
    it(`${api.name}, plain and streamed, a tool call id echoed: equal against the stand-in; one changed answer: that change`, async () => {
      const dir = scratch();
      const recorded = await api.start();
      onCleanup(() => recorded.close());
      await recordTurns(recorded.origin, dir.file('golden.db'), api.turns);
      const callId = api.echoed(recorded.requests[1]!.body);

      const fresh = await api.start();
      onCleanup(() => fresh.close());
      const result = await runRedrive({ recording: dir.file('golden.db'), target: fresh.origin, out: dir.file('new.db'), headers: [api.key], diff: { semantic: true } });
      expect(result).toMatchObject({ sent: 3, skipped: [] });
      // The stand-in derives its ids from the request: the fresh one mints the same tool call id, echoed as recorded.
      expect(fresh.requests.map((r) => r.body)).toEqual(recorded.requests.map((r) => r.body));
      expect(api.echoed(fresh.requests[1]!.body)).toBe(callId);
      const reader = openRecording(dir.file('new.db'));
      try {
        expect(reader.exchanges().map((e) => [e.protocol, e.status])).toEqual([[api.protocol, 200], [api.protocol, 200], [api.protocol, 200]]);
      } finally {
        reader.close();
      }
      expect(result.report.equal).toBe(true);

      const before = await api.start();
      onCleanup(() => before.close());
      const changed = await changedModel(before.origin, 'Hello', 'Goodbye');
      const { report } = await runRedrive({ recording: dir.file('golden.db'), target: changed, out: dir.file('changed.db'), headers: [api.key], diff: { semantic: true } });
      expect(report.equal).toBe(false);
      expect(report.summary).toMatchObject({ exchanges: { equal: 2, changed: 1, added: 0, removed: 0 }, regressions: 0 });
      const differences = report.exchanges.flatMap((e) => e.messages.flatMap((m) => m.differences));
      expect(differences.length).toBeGreaterThan(0);
      expect(differences.every((d) => typeof d.b === 'string' && d.b.includes('Goodbye') && typeof d.a === 'string' && d.a.includes('Hello'))).toBe(true);
    });
  }
});
