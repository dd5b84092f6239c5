/**
 * The stand-in servers, exercised directly with real clients (no proxy): they must behave as
 * documented before integration tests put the proxy in between.
 */
import { describe, expect, it, vi } from 'vitest';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { HttpAgent } from '@ag-ui/client';
import { EventEncoder } from '@ag-ui/encoder';
import { decode as decodeProto } from '@ag-ui/proto';
import type { BaseEvent, Message, RunAgentInput } from '@ag-ui/core';
import { ClientSideConnection, PROTOCOL_VERSION, type SessionNotification } from '@agentclientprotocol/sdk';
import { AGUI_MEDIA_TYPE, defaultAguiScript, ProtobufHttpAgent } from './agui-agent.js';
import { fixturesAfterEach } from './fixtures-after-each.js';
import { startPiDaemon, type PiDaemon, type PiDaemonOptions } from './pi-daemon-standin.js';
import { acpStreamFromWebSocket } from './acp-over-ws.js';
import { testRegistry } from './shared.js';
import { useCleanups } from './cleanups.js';
import { wsOpen, wsRefusal } from './ws-client.js';
import { within } from './waits.js';
import { ManualClock } from './manual-clock.js';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import { scratch } from './temp-dir.js';

// ---------------------------------------------------------------------------------------------
// helpers

const cleanups = fixturesAfterEach();
const { agui } = cleanups;
// The WebSocket clients end their sockets through this one.
useCleanups();

async function daemon(options?: PiDaemonOptions): Promise<PiDaemon> {
  const d = await startPiDaemon(options);
  cleanups.push(() => d.close());
  return d;
}

const runInput = (threadId = 'thread-1', runId = 'run-1'): RunAgentInput => ({
  threadId,
  runId,
  state: {},
  messages: [{ id: 'u1', role: 'user', content: 'Hi' }],
  tools: [],
  context: [],
  forwardedProps: {},
});

function postRun(url: string, headers: Record<string, string> = {}, input = runInput(), signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers }, body: JSON.stringify(input), signal });
}

/** A spec-compliant SSE parser (CR, LF and CRLF line ends; comments, event:, id: handled). */
function parseSseSpec(text: string): Array<{ event?: string; id?: string; data: string }> {
  const out: Array<{ event?: string; id?: string; data: string }> = [];
  let data: string[] = [];
  let event: string | undefined;
  let id: string | undefined;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length) out.push({ event, id, data: data.join('\n') });
      data = [];
      event = undefined;
      id = undefined;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id') id = value;
  }
  return out;
}

function decodeProtoFrames(buf: Buffer): BaseEvent[] {
  const events: BaseEvent[] = [];
  let off = 0;
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    events.push(decodeProto(new Uint8Array(buf.subarray(off + 4, off + 4 + len))));
    off += 4 + len;
  }
  expect(off).toBe(buf.length);
  return events;
}

function rawRequest(
  target: { url: string } | { socketPath: string },
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const location = 'url' in target ? new URL(target.url) : undefined;
    const req = httpRequest(
      {
        method,
        path,
        headers,
        ...(location ? { host: location.hostname, port: Number(location.port) } : { socketPath: (target as { socketPath: string }).socketPath }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function expectMaterialisedDefaultRun(messages: Message[], state: unknown): void {
  const assistant = messages.find((m) => m.id === 'msg-1') as { role: string; content: string; toolCalls?: Array<{ id: string; function: { name: string; arguments: string } }> };
  expect(assistant.role).toBe('assistant');
  expect(assistant.content).toBe('Hello from the AG-UI stand-in.');
  expect(assistant.toolCalls).toEqual([{ id: 'call-1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
  const tool = messages.find((m) => m.role === 'tool') as { toolCallId: string; content: string };
  expect(tool).toMatchObject({ id: 'tool-result-1', toolCallId: 'call-1', content: '{"tempC":21}' });
  expect(state).toEqual({ counter: 1, status: 'done' });
}

const registry = () => testRegistry();
function expectValid(def: string, value: unknown): void {
  const check = registry().def(PI_SESSION_API_ID, def);
  if (!check.ok) throw new Error(check.reason);
  expect(check.validate(value), `${def}: ${JSON.stringify(value).slice(0, 200)}`).toEqual([]);
}

async function api(d: PiDaemon, method: string, path: string, init: { headers?: Record<string, string>; body?: unknown; auth?: boolean } = {}) {
  const headers: Record<string, string> = { ...(init.auth === false ? {} : { authorization: `Bearer ${d.token}` }), ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(d.url + path, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as Record<string, any> };
}

/** A WebSocket client whose frames are JSON, parsed as they are taken. */
async function wsConnect(url: string, protocols: string[], headers: Record<string, string>) {
  const session = await wsOpen(url, protocols, { headers });
  return {
    ws: session.ws,
    /** Every frame received so far, parsed. */
    get messages(): unknown[] {
      return session.frames.map((frame) => JSON.parse(frame) as unknown);
    },
    take: async (n: number): Promise<unknown[]> => (await session.take(n)).map((frame) => JSON.parse(frame) as unknown),
    get closed() {
      return session.closed;
    },
  };
}

/** A refused upgrade, its body parsed as the JSON error it is. */
async function wsRefusedJson(url: string, protocols: string[], headers: Record<string, string>) {
  const refusal = await wsRefusal(url, protocols, { headers });
  return { status: refusal.status, headers: refusal.headers, body: JSON.parse(refusal.text) as Record<string, any> };
}

// ---------------------------------------------------------------------------------------------
// AG-UI agent

describe('AG-UI stand-in agent', () => {
  it('serves GET /health', async () => {
    const a = await agui();
    const res = await fetch(`${a.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', agent: 'agui-stand-in' });
  });

  it('runs the default script for @ag-ui/client HttpAgent over SSE and echoes threadId/runId', async () => {
    const a = await agui();
    const agent = new HttpAgent({ url: `${a.url}/agent`, threadId: 'thread-sse', initialMessages: [{ id: 'u1', role: 'user', content: 'Hi' }] });
    const seen: string[] = [];
    await agent.runAgent({ runId: 'run-sse' }, { onEvent: ({ event }) => void seen.push(event.type) });
    expectMaterialisedDefaultRun(agent.messages, agent.state);
    expect(seen).toEqual(defaultAguiScript(runInput('t', 'r')).map((e) => e.type));
    const [run] = a.requests;
    expect(run.contentType).toBe('text/event-stream');
    expect(run.path).toBe('/agent');
    expect(run.headers.accept).toBe('text/event-stream');
    expect(run.body).toMatchObject({ threadId: 'thread-sse', runId: 'run-sse' });
    expect(await run.aborted).toBe(false);
    expect(run.closedAt).toBeGreaterThan(0);
    expect(run.eventsSent).toBe(14);
  });

  it('writes exactly what EventEncoder.encodeSSE produces', async () => {
    const a = await agui();
    const res = await postRun(a.url);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const encoder = new EventEncoder({ accept: 'text/event-stream' });
    expect(await res.text()).toBe(defaultAguiScript(runInput()).map((e) => encoder.encodeSSE(e)).join(''));
  });

  it('answers protobuf when Accept admits it, and ProtobufHttpAgent materialises the run', async () => {
    const a = await agui();
    const res = await postRun(a.url, { accept: AGUI_MEDIA_TYPE });
    expect(res.headers.get('content-type')).toBe(AGUI_MEDIA_TYPE);
    const events = decodeProtoFrames(Buffer.from(await res.arrayBuffer()));
    expect(events.map((e) => e.type)).toEqual(defaultAguiScript(runInput()).map((e) => e.type));
    expect(events[0]).toMatchObject({ threadId: 'thread-1', runId: 'run-1' });

    const agent = new ProtobufHttpAgent({ url: a.url, threadId: 'thread-proto' });
    await agent.runAgent({ runId: 'run-proto' });
    expectMaterialisedDefaultRun(agent.messages, agent.state);
    expect(a.requests[1].headers.accept).toBe(AGUI_MEDIA_TYPE);
    expect(a.requests[1].contentType).toBe(AGUI_MEDIA_TYPE);
  });

  it('chooses protobuf for */* exactly as the encoder does', async () => {
    const a = await agui();
    const res = await postRun(a.url, { accept: '*/*' });
    expect(res.headers.get('content-type')).toBe(AGUI_MEDIA_TYPE);
    await res.arrayBuffer();
  });

  it('extraSse adds keep-alives, event:/id: lines, CRLF and split data lines that both parsers accept', async () => {
    const a = await agui({ extraSse: true });
    const text = await (await postRun(a.url)).text();
    expect(text.startsWith(': keep-alive\n\n')).toBe(true);
    expect(text).toContain('event: TEXT_MESSAGE_START\r\nid: 2\r\ndata: ');
    expect(text).toContain('id: 3\nevent: TEXT_MESSAGE_CONTENT\ndata: ');
    expect(text.endsWith(': keep-alive\n\n')).toBe(true);
    const parsed = parseSseSpec(text).map((f) => JSON.parse(f.data) as BaseEvent);
    expect(parsed).toEqual(defaultAguiScript(runInput()));

    const agent = new HttpAgent({ url: a.url, threadId: 'thread-extra' });
    await agent.runAgent({ runId: 'run-extra' });
    expectMaterialisedDefaultRun(agent.messages, agent.state);
  });

  it('gzips the body when Accept-Encoding allows it', async () => {
    const a = await agui({ gzip: true });
    const raw = await rawRequest({ url: a.url }, 'POST', '/', { 'content-type': 'application/json', accept: 'text/event-stream', 'accept-encoding': 'gzip' }, JSON.stringify(runInput()));
    expect(raw.headers['content-encoding']).toBe('gzip');
    const encoder = new EventEncoder();
    expect(gunzipSync(raw.body).toString()).toBe(defaultAguiScript(runInput()).map((e) => encoder.encodeSSE(e)).join(''));

    const plain = await rawRequest({ url: a.url }, 'POST', '/', { 'content-type': 'application/json', 'accept-encoding': 'identity' }, JSON.stringify(runInput()));
    expect(plain.headers['content-encoding']).toBeUndefined();

    const agent = new HttpAgent({ url: a.url, threadId: 'thread-gz' });
    await agent.runAgent({ runId: 'run-gz' });
    expectMaterialisedDefaultRun(agent.messages, agent.state);
    expect(a.requests[2].gzip).toBe(true);
  });

  it('replays a fixture with threadId/runId rewritten to the input', async () => {
    const a = await agui({ script: 'fixture:text-message-run' });
    const res = await postRun(a.url, {}, runInput('thread-fx', 'run-fx'));
    const events = parseSseSpec(await res.text()).map((f) => JSON.parse(f.data) as Record<string, unknown>);
    expect(events).toHaveLength(13);
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: 'thread-fx', runId: 'run-fx' });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', threadId: 'thread-fx', runId: 'run-fx' });

    const agent = new HttpAgent({ url: a.url, threadId: 'thread-fx2' });
    await agent.runAgent({ runId: 'run-fx2' });
    expect(agent.messages.map((m) => m.content)).toEqual(['Hello! How can I help you today?']);
  });

  it('picks a scenario per request from POST /scenario/<name>', async () => {
    const a = await agui();
    const agent = new HttpAgent({ url: `${a.url}/scenario/fixture:two-sequential-runs`, threadId: 't-two' });
    await agent.runAgent({ runId: 'r-two' });
    expect(agent.messages).toHaveLength(2);
    expect(a.requests[0].scenario).toBe('fixture:two-sequential-runs');
    const missing = await postRun(`${a.url}/scenario/fixture:no-such-fixture`);
    expect(missing.status).toBe(404);
  });

  it("'broken-content-before-start' fails HttpAgent's verifier", async () => {
    const a = await agui({ script: 'broken-content-before-start' });
    const agent = new HttpAgent({ url: a.url, threadId: 'thread-broken' });
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      await expect(agent.runAgent({ runId: 'run-broken' })).rejects.toThrow(/First event must be 'RUN_STARTED'/);
    } finally {
      console.error = original;
    }
    const text = await (await postRun(a.url)).text();
    expect(parseSseSpec(text).map((f) => (JSON.parse(f.data) as BaseEvent).type).slice(0, 2)).toEqual(['TEXT_MESSAGE_CONTENT', 'RUN_STARTED']);
  });

  it("'endless' streams until the client aborts, and `aborted` resolves true", async () => {
    const a = await agui({ script: 'endless', intervalMs: 5 });
    const controller = new AbortController();
    const res = await postRun(a.url, {}, runInput(), controller.signal);
    const reader = res.body!.getReader();
    let text = '';
    while ((text.match(/TEXT_MESSAGE_CONTENT/g) ?? []).length < 3) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await reader.read().catch(() => undefined);
    expect(await a.requests[0].aborted).toBe(true);
    expect(a.requests[0].closedAt).toBeGreaterThan(0);
    // The stream loop ends: the stand-in stops writing, having sent what the client saw and at most a little more.
    await within(a.requests[0].finished, 'the stand-in to stop streaming');
    expect(a.requests[0].eventsSent).toBeGreaterThanOrEqual(3);
  });

  it("'reset-mid-stream' sends some events, then resets the connection", async () => {
    const a = await agui({ script: 'reset-mid-stream' });
    const res = await postRun(a.url);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(a.requests[0].eventsSent).toBe(4);
    expect(await a.requests[0].aborted).toBe(false);

    // Not driven through HttpAgent here: @ag-ui/client 1.0.0's runHttpRequest teardown calls
    // reader.cancel() on the errored body and rethrows the rejection ("TypeError: terminated"),
    // which surfaces as an unhandled rejection that vitest reports as an error.
  });

  it('rejects a body without threadId/runId with 400 and no stream', async () => {
    const a = await agui();
    const res = await fetch(a.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messages":[]}' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
  });

  it('honours eventDelayMs and a custom script function', async () => {
    const clock = new ManualClock();
    const a = await agui({
      eventDelayMs: 25,
      sleep: (ms) => clock.sleep(ms),
      script: (input) => [
        { type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId },
        { type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId },
      ] as BaseEvent[],
    });
    const response = postRun(a.url);
    // It waits the delay between the events, after the first and before the second.
    expect(await within(clock.sleeping(), 'the stand-in to wait between events')).toBe(25);
    expect(a.requests[0].eventsSent).toBe(1);
    clock.advanceTo(25);
    const events = parseSseSpec(await (await response).text());
    expect(events).toHaveLength(2);
    expect(clock.deadlines).toEqual([25]);
    expect(a.requests[0].scenario).toBe('custom');
  });

  it('listens on a unix socket', async () => {
    const dir = scratch('agui-sock-').dir;
    const socketPath = join(dir, 'agent.sock');
    const a = await agui({ listen: { path: socketPath } });
    expect(a.url).toBe(`unix:${socketPath}`);
    expect((await rawRequest({ socketPath }, 'GET', '/health')).status).toBe(200);
    const run = await rawRequest({ socketPath }, 'POST', '/', { 'content-type': 'application/json', accept: AGUI_MEDIA_TYPE }, JSON.stringify(runInput()));
    expect(run.headers['content-type']).toBe(AGUI_MEDIA_TYPE);
    expect(decodeProtoFrames(run.body)).toHaveLength(14);
  });
});

// ---------------------------------------------------------------------------------------------
// Pi daemon: REST

describe('Pi daemon stand-in: REST', () => {
  it('refuses a missing or wrong bearer with 401 + WWW-Authenticate', async () => {
    const d = await daemon();
    for (const headers of [{}, { authorization: 'Bearer nope' }] as Array<Record<string, string>>) {
      const res = await api(d, 'GET', '/v1/capabilities', { auth: false, headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.body).toMatchObject({ ok: false, hostInstanceId: d.hostInstanceId, error: { code: 'unauthorized' } });
      expect(res.body.requestId).toMatch(/^http-[0-9a-f-]{36}$/);
      expectValid('apiErrorEnvelope', res.body);
    }
  });

  it('serves the captured capabilities with its own hostInstanceId and echoes X-Request-Id', async () => {
    const d = await daemon({ token: 'other-token' });
    expect(d.token).toBe('other-token');
    const res = await api(d, 'GET', '/v1/capabilities', { headers: { 'x-request-id': 'req-caps-1' } });
    expect(res.status).toBe(200);
    expect(res.body.requestId).toBe('req-caps-1');
    expect(res.body.hostInstanceId).toBe(d.hostInstanceId);
    expect(res.body.hostInstanceId).not.toBe('65ba84e8-535c-4dd2-9c98-e020c047e399');
    expect(res.body.data.rpcSubprotocols).toEqual(['pi-rpc.v1', 'pi-daemon-rpc.v1']);
    expectValid('capabilitiesEnvelope', res.body);
  });

  it('creates a session through a ticket that goes queued → running → succeeded, never echoing env', async () => {
    const d = await daemon();
    const secret = 'super-secret-value-42';
    const createBody = {
      requestId: 'req-create-b',
      sessionId: 'agent-b',
      spec: { cwd: '/srv/work/b', name: 'bee', target: { mode: 'new' }, env: { API_KEY: secret } },
    };
    const missingKey = await api(d, 'POST', '/v1/session', { body: createBody });
    expect(missingKey.status).toBe(400);
    expect(missingKey.body.error.code).toBe('invalid_idempotency_key');
    expectValid('apiErrorEnvelope', missingKey.body);

    const created = await api(d, 'POST', '/v1/session', { body: createBody, headers: { 'idempotency-key': 'create-b-1' } });
    expect(created.status).toBe(202);
    expect(created.body.requestId).toBe('req-create-b');
    expect(created.body.data).toMatchObject({ operation: 'create', state: 'queued', sessionId: 'agent-b', idempotencyKey: 'create-b-1', requestId: 'req-create-b' });
    expect(created.body.data.ticketId).toMatch(/^ticket-[A-Za-z0-9_-]{43}$/);
    expect(created.headers.get('location')).toBe(`/v1/ticket/${created.body.data.ticketId}`);
    expectValid('ticketEnvelope', created.body);

    expect((await api(d, 'GET', '/v1/session/agent-b')).status).toBe(404);
    const poll1 = await api(d, 'GET', created.headers.get('location')!);
    expect(poll1.body.data.state).toBe('running');
    expectValid('ticketEnvelope', poll1.body);
    const poll2 = await api(d, 'GET', created.headers.get('location')!);
    expect(poll2.body.data.state).toBe('succeeded');
    expect(poll2.body.data.result).toMatchObject({ sessionId: 'agent-b', name: 'bee', generation: 1, revision: 1, environment: { keys: ['API_KEY'], provisioned: true } });
    expectValid('ticketEnvelope', poll2.body);

    const replay = await api(d, 'POST', '/v1/session', { body: createBody, headers: { 'idempotency-key': 'create-b-1' } });
    expect(replay.status).toBe(202);
    expect(replay.body.data).toMatchObject({ ticketId: created.body.data.ticketId, state: 'succeeded' });
    const conflict = await api(d, 'POST', '/v1/session', { body: { ...createBody, requestId: 'req-other' }, headers: { 'idempotency-key': 'create-b-1' } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('idempotency_conflict');
    const lookup = await api(d, 'GET', '/v1/ticket?method=POST&target=%2Fv1%2Fsession', { headers: { 'idempotency-key': 'create-b-1' } });
    expect(lookup.body.data.ticketId).toBe(created.body.data.ticketId);

    const got = await api(d, 'GET', '/v1/session/bee');
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(`"${Buffer.from('agent-b').toString('base64url')}:1"`);
    expectValid('sessionEnvelope', got.body);

    const list = await api(d, 'GET', '/v1/session?limit=10');
    expect(list.body.data.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual(['agent-a', 'agent-b']);
    expectValid('sessionListEnvelope', list.body);
    const page = await api(d, 'GET', '/v1/session?limit=1');
    expect(page.body.data.nextCursor).toBeTypeOf('string');

    for (const res of [created, poll1, poll2, replay, lookup, got, list]) expect(res.text).not.toContain(secret);
  });

  it('answers 404 for an unknown session, 412 for a stale If-Match, then updates and deletes', async () => {
    const d = await daemon();
    const unknown = await api(d, 'GET', '/v1/session/no-such-session');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('session_not_found');
    expectValid('apiErrorEnvelope', unknown.body);

    const before = await api(d, 'GET', `/v1/session/${d.sessionId}`);
    const etag = before.headers.get('etag')!;
    const updateBody = { requestId: 'req-update-1', expectedGeneration: 1, expectedRevision: 1, spec: { ...before.body.data.spec, name: 'renamed' } };
    const stale = await api(d, 'PUT', '/v1/session/agent-a', { body: updateBody, headers: { 'idempotency-key': 'u-1', 'if-match': '"stale:0"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('session_precondition_failed');

    const updated = await api(d, 'PUT', '/v1/session/agent-a', { body: updateBody, headers: { 'idempotency-key': 'u-1', 'if-match': etag } });
    expect(updated.status).toBe(202);
    expect(updated.body.data).toMatchObject({ operation: 'update', generation: 2 });
    await api(d, 'GET', updated.headers.get('location')!);
    await api(d, 'GET', updated.headers.get('location')!);
    const after = await api(d, 'GET', '/v1/session/agent-a');
    expect(after.body.data).toMatchObject({ name: 'renamed', generation: 2, revision: 2 });
    expect(after.headers.get('etag')).not.toBe(etag);

    const del = await api(d, 'DELETE', '/v1/session/agent-a?retainArtifacts=false', { headers: { 'idempotency-key': 'd-1', 'if-match': after.headers.get('etag')! } });
    expect(del.status).toBe(202);
    await api(d, 'GET', del.headers.get('location')!);
    const done = await api(d, 'GET', del.headers.get('location')!);
    expect(done.body.data.result).toEqual({ sessionId: 'agent-a', retained: false, deleted: true });
    expectValid('ticketEnvelope', done.body);
    expect((await api(d, 'GET', '/v1/session/agent-a')).status).toBe(404);
  });

  it('leakEnv puts one env value into a schema-valid response field', async () => {
    const d = await daemon({ leakEnv: true, ticketPollsToSucceed: 0 });
    const created = await api(d, 'POST', '/v1/session', {
      body: { requestId: 'req-leak', sessionId: 'leaky', spec: { cwd: '/w', target: { mode: 'new' }, env: { TOKEN: 'leak-me-please' } } },
      headers: { 'idempotency-key': 'leak-1' },
    });
    expect(created.body.data.state).toBe('succeeded');
    const got = await api(d, 'GET', '/v1/session/leaky');
    expect(got.text).toContain('leak-me-please');
    expect(got.body.data.spec.settings.debugEnv).toEqual({ TOKEN: 'leak-me-please' });
    expectValid('sessionEnvelope', got.body);
  });

  it('deterministic: two daemons answer the same requests with identical bodies', async () => {
    const bodies: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const d = await daemon({ deterministic: true });
      const texts: string[] = [];
      texts.push((await api(d, 'GET', '/v1/capabilities')).text);
      const created = await api(d, 'POST', '/v1/session', {
        body: { requestId: 'req-det', sessionId: 'det', spec: { cwd: '/w', target: { mode: 'new' } } },
        headers: { 'idempotency-key': 'det-1' },
      });
      texts.push(created.text);
      texts.push((await api(d, 'GET', created.headers.get('location')!)).text);
      texts.push((await api(d, 'GET', created.headers.get('location')!)).text);
      texts.push((await api(d, 'GET', '/v1/session/det')).text);
      bodies.push(texts);
    }
    expect(bodies[0]).toEqual(bodies[1]);
  });

  it('records every request it received', async () => {
    const d = await daemon();
    await api(d, 'GET', '/v1/capabilities', { headers: { 'x-request-id': 'r-1' } });
    expect(d.received.http).toHaveLength(1);
    expect(d.received.http[0]).toMatchObject({ method: 'GET', path: '/v1/capabilities', status: 200, upgrade: false });
    expect(d.received.http[0].headers['x-request-id']).toBe('r-1');
  });
});

// ---------------------------------------------------------------------------------------------
// Pi daemon: WebSocket RPC

describe('Pi daemon stand-in: WebSocket RPC', () => {
  const auth = (d: PiDaemon) => ({ authorization: `Bearer ${d.token}` });

  it('refuses an upgrade without a supported subprotocol with 426 and the supported list', async () => {
    const d = await daemon();
    for (const offered of [[], ['foo.v1']]) {
      const refused = await wsRefusedJson(`${d.wsUrl}/v1/session/agent-a/rpc`, offered, auth(d));
      expect(refused.status).toBe(426);
      expect(refused.headers['sec-websocket-protocol']).toBe('pi-rpc.v1, pi-daemon-rpc.v1');
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(refused.body).toMatchObject({ ok: false, error: { code: 'rpc_subprotocol_required' } });
      expectValid('apiErrorEnvelope', refused.body);
    }
    const acp = await wsRefusedJson(`${d.wsUrl}/v1/session/agent-a/apc`, ['pi-rpc.v1'], auth(d));
    expect(acp.status).toBe(426);
    expect(acp.body.error.code).toBe('acp_subprotocol_required');
    const plainGet = await api(d, 'GET', '/v1/session/agent-a/rpc');
    expect(plainGet.status).toBe(426);
    expect(d.received.http.filter((r) => r.upgrade).map((r) => r.status)).toEqual([426, 426, 426]);
    expect(d.received.ws).toHaveLength(0);
  });

  it('refuses an upgrade without the bearer (401) and for an unknown session (404)', async () => {
    const d = await daemon();
    const noAuth = await wsRefusedJson(`${d.wsUrl}/v1/session/agent-a/rpc`, ['pi-daemon-rpc.v1'], {});
    expect(noAuth.status).toBe(401);
    expect(noAuth.headers['www-authenticate']).toBe('Bearer');
    const unknown = await wsRefusedJson(`${d.wsUrl}/v1/session/nope/rpc`, ['pi-daemon-rpc.v1'], auth(d));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('session_not_found');
  });

  it('refuses a stale generation with 409 stale_generation before upgrading', async () => {
    const d = await daemon();
    const refused = await wsRefusedJson(`${d.wsUrl}/v1/session/agent-a/rpc?generation=999`, ['pi-daemon-rpc.v1'], auth(d));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ ok: false, error: { code: 'stale_generation' } });
    expectValid('apiErrorEnvelope', refused.body);
    const current = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc?generation=1`, ['pi-daemon-rpc.v1'], auth(d));
    expect(current.ws.protocol).toBe('pi-daemon-rpc.v1');
  });

  it('picks the first offered supported subprotocol in client order', async () => {
    const d = await daemon();
    const rawFirst = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc`, ['x-unknown', 'pi-rpc.v1', 'pi-daemon-rpc.v1'], auth(d));
    expect(rawFirst.ws.protocol).toBe('pi-rpc.v1');
    const framedFirst = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc`, ['pi-daemon-rpc.v1', 'pi-rpc.v1'], auth(d));
    expect(framedFirst.ws.protocol).toBe('pi-daemon-rpc.v1');
  });

  it('framed: attach_ready first, then responses and a prompt turn with rising sequence', async () => {
    const d = await daemon();
    const c = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc?role=controller`, ['pi-daemon-rpc.v1'], auth(d));
    const [ready] = (await c.take(1)) as Array<Record<string, any>>;
    expect(ready).toMatchObject({ kind: 'attach_ready', role: 'controller', hostInstanceId: d.hostInstanceId, sessionId: 'agent-a', generation: 1 });
    expectValid('sessionRpcFrame', ready);

    c.ws.send(JSON.stringify({ kind: 'command', command: { id: 'state-1', type: 'get_state' } }));
    const [, state] = (await c.take(2)) as Array<Record<string, any>>;
    expect(state).toMatchObject({ kind: 'response', response: { id: 'state-1', type: 'response', command: 'get_state', success: true } });
    expect(state.response.data.model.id).toBe('mock-model');

    c.ws.send(JSON.stringify({ kind: 'command', command: { id: 'prompt-1', type: 'prompt', message: 'READFILE read it' } }));
    const all = (await c.take(3 + 27)) as Array<Record<string, any>>;
    expect(all[2]).toEqual({ kind: 'response', response: { id: 'prompt-1', type: 'response', command: 'prompt', success: true } });
    const events = all.slice(3);
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: 27 }, (_, i) => i + 1));
    expect(events[0].event).toEqual({ type: 'agent_start' });
    expect(events.at(-1)!.event).toEqual({ type: 'agent_settled' });
    expect(events.some((e) => e.event.type === 'tool_execution_start')).toBe(true);
    expect(events[2].event.message.content[0].text).toBe('READFILE read it');
    const cursor = JSON.parse(Buffer.from(events[4].cursor, 'base64url').toString());
    expect(cursor).toEqual({ v: 1, h: d.hostInstanceId, s: 'agent-a', g: 1, q: 5 });
    for (const frame of all) expectValid('sessionRpcFrame', frame);

    c.ws.close(1000);
    const record = d.received.ws[0];
    expect(await record.closed).toEqual({ code: 1000, reason: '' });
    expect(record).toMatchObject({ route: 'rpc', mode: 'framed', protocol: 'pi-daemon-rpc.v1' });
    expect(record.fromClient).toHaveLength(2);
    expect(record.toClient).toHaveLength(30);
  });

  it('framed: a reconnect with a cursor replays strictly after it; a foreign cursor gets replay_gap', async () => {
    const d = await daemon({ rpcTurn: 'text' });
    const c = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc`, ['pi-daemon-rpc.v1'], auth(d));
    c.ws.send(JSON.stringify({ kind: 'command', command: { id: 'p', type: 'prompt', message: 'Say hello' } }));
    const frames = (await c.take(2 + 16)) as Array<Record<string, any>>;
    const third = frames.find((f) => f.sequence === 3)!;

    const again = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc?cursor=${third.cursor}`, ['pi-daemon-rpc.v1'], auth(d));
    const replay = (await again.take(1 + 13)) as Array<Record<string, any>>;
    expect(replay[0].kind).toBe('attach_ready');
    expect(replay.slice(1).map((f) => f.sequence)).toEqual(Array.from({ length: 13 }, (_, i) => i + 4));

    const foreign = Buffer.from(JSON.stringify({ v: 1, h: 'host-that-restarted', s: 'agent-a', g: 1, q: 3 })).toString('base64url');
    const gap = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc?cursor=${foreign}`, ['pi-daemon-rpc.v1'], auth(d));
    const [gapFrame, ready] = (await gap.take(2)) as Array<Record<string, any>>;
    expect(gapFrame).toMatchObject({ kind: 'replay_gap', reason: 'host_restarted', requestedCursor: foreign, snapshotFollows: true });
    expect(ready.kind).toBe('attach_ready');
    expectValid('sessionRpcFrame', gapFrame);
  });

  it('raw: no attach_ready, raw Pi responses and events', async () => {
    const d = await daemon();
    const c = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc?role=controller`, ['pi-rpc.v1'], auth(d));
    c.ws.send(JSON.stringify({ id: 'raw-state-1', type: 'get_state' }));
    const [state] = (await c.take(1)) as Array<Record<string, any>>;
    expect(state).toMatchObject({ id: 'raw-state-1', type: 'response', command: 'get_state', success: true });
    expectValid('piRpcResponse', state);

    c.ws.send(JSON.stringify({ id: 'raw-prompt-1', type: 'prompt', message: 'READFILE hello' }));
    const all = (await c.take(2 + 27)) as Array<Record<string, any>>;
    expect(all[1]).toEqual({ id: 'raw-prompt-1', type: 'response', command: 'prompt', success: true });
    const events = all.slice(2);
    expect(events[0]).toEqual({ type: 'agent_start' });
    expect(events.every((e) => !('sequence' in e) && !('kind' in e))).toBe(true);
    for (const e of events) expectValid('piRpcEvent', e);

    c.ws.send(JSON.stringify({ id: 'x', type: 'no_such_command' }));
    const [unknown] = (await c.take(30)).slice(29) as Array<Record<string, any>>;
    expect(unknown).toMatchObject({ id: 'x', success: false, error: 'Unknown command: no_such_command' });

    const refused = await wsRefusedJson(`${d.wsUrl}/v1/session/agent-a/rpc?cursor=abc`, ['pi-rpc.v1'], auth(d));
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('cursor_not_supported');
  });

  it('closes with closeCodeAfterPrompt once the prompt turn is out', async () => {
    const d = await daemon({ closeCodeAfterPrompt: { code: 4001, reason: 'turn over' }, rpcTurn: 'text' });
    const c = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc`, ['pi-rpc.v1'], auth(d));
    c.ws.send(JSON.stringify({ id: 'p', type: 'prompt', message: 'Say hello' }));
    expect(await c.closed).toEqual({ code: 4001, reason: 'turn over' });
    expect(c.messages).toHaveLength(1 + 16);
  });

  it('enforceRoles: an observer is refused non-read-only commands; control frames work', async () => {
    const d = await daemon({ enforceRoles: true });
    const ctl = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc?role=controller`, ['pi-daemon-rpc.v1'], auth(d));
    const obs = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc`, ['pi-daemon-rpc.v1'], auth(d));
    await obs.take(1);
    obs.ws.send(JSON.stringify({ kind: 'command', command: { id: 'o-1', type: 'prompt', message: 'no' } }));
    obs.ws.send(JSON.stringify({ kind: 'control', action: 'request_control' }));
    const [, denied, control] = (await obs.take(3)) as Array<Record<string, any>>;
    expect(denied.response).toMatchObject({ id: 'o-1', success: false, error: 'controller_required' });
    expect(control).toMatchObject({ kind: 'control', action: 'control_denied', reason: 'controller_busy' });
    const busy = await wsRefusedJson(`${d.wsUrl}/v1/session/agent-a/rpc?role=controller`, ['pi-daemon-rpc.v1'], auth(d));
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('controller_busy');
    ctl.ws.send(JSON.stringify({ kind: 'control', action: 'release_control' }));
    const [, released] = (await ctl.take(2)) as Array<Record<string, any>>;
    expect(released).toMatchObject({ kind: 'control', action: 'release_control', reason: 'released' });
  });

  it('commandScript: holds and releases answers in the scripted order, and rejects over the in-flight limit as the daemon does', async () => {
    const d = await daemon({ commandScript: { hold: [0, 1, 2, 3, 4, 5, 6, 7], releaseAfter: { 8: [3, 0] } } });
    const framed = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc?role=controller`, ['pi-daemon-rpc.v1'], auth(d));
    await framed.take(1);
    for (let i = 0; i < 10; i++) framed.ws.send(JSON.stringify({ kind: 'command', command: { id: `f${i}`, type: 'get_state' } }));
    const answers = ((await framed.take(1 + 4)) as Array<Record<string, any>>).slice(1).map((f) => f.response);
    // f8 finds eight in flight: rejected without id or type; then f3 and f0 are released, and f9 fits again.
    expect(answers).toEqual([
      { type: 'response', command: 'unknown', success: false, error: 'rpc_in_flight_capacity' },
      expect.objectContaining({ id: 'f3', success: true }),
      expect.objectContaining({ id: 'f0', success: true }),
      expect.objectContaining({ id: 'f9', success: true }),
    ]);
    for (const a of answers) expectValid('rpcResponseFrame', { kind: 'response', response: a });
    // Raw mode: the rejection is read off the command itself, so it has its id and type.
    const raw = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc`, ['pi-rpc.v1'], auth(d));
    for (let i = 0; i < 9; i++) raw.ws.send(JSON.stringify({ id: `r${i}`, type: 'get_state' }));
    const [rejected] = (await raw.take(1)) as Array<Record<string, any>>;
    expect(rejected).toEqual({ id: 'r8', type: 'response', command: 'get_state', success: false, error: 'rpc_in_flight_capacity' });
  });

  it('confirmBeforeTurn: the turn waits for the controller\'s answer; an observer\'s is refused, an unknown id too', async () => {
    const d = await daemon({ confirmBeforeTurn: true, rpcTurn: 'text' });
    const ctl = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc?role=controller`, ['pi-daemon-rpc.v1'], auth(d));
    const obs = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc`, ['pi-daemon-rpc.v1'], auth(d));
    await ctl.take(1);
    await obs.take(1);
    ctl.ws.send(JSON.stringify({ kind: 'command', command: { id: 'p', type: 'prompt', message: 'Say hello' } }));
    const [, prompted, asked] = (await ctl.take(3)) as Array<Record<string, any>>;
    expect(prompted.response).toMatchObject({ id: 'p', success: true });
    expect(asked.event).toEqual({ type: 'extension_ui_request', id: 'ui-1', method: 'confirm', title: 'Allow the agent to read files?', message: 'The extension asks before each turn.' });
    expectValid('rpcEventFrame', asked);
    const [, seen] = (await obs.take(2)) as Array<Record<string, any>>;
    expect(seen.event.id).toBe('ui-1');
    const answer = (id: string) => JSON.stringify({ kind: 'extension_ui_response', response: { type: 'extension_ui_response', id, confirmed: true } });
    obs.ws.send(answer('ui-1'));
    obs.ws.send(answer('ui-9'));
    const [, , refused, unknown] = (await obs.take(4)) as Array<Record<string, any>>;
    expect(refused.response).toEqual({ id: 'ui-1', type: 'response', command: 'extension_ui_response', success: false, error: 'controller_required' });
    expect(unknown.response).toMatchObject({ id: 'ui-9', success: false, error: 'unknown_ui_request' });
    ctl.ws.send(answer('ui-1'));
    const all = (await ctl.take(4 + 16)) as Array<Record<string, any>>;
    expect(all[3].response).toEqual({ id: 'ui-1', type: 'response', command: 'extension_ui_response', success: true });
    expect(all.at(-1)!.event.type).toBe('agent_settled');
  });

  it('closes with 1007 on invalid JSON and 1008 on an invalid frame', async () => {
    const d = await daemon();
    const a = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc`, ['pi-daemon-rpc.v1'], auth(d));
    a.ws.send('{not json');
    expect((await a.closed).code).toBe(1007);
    const b = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc`, ['pi-daemon-rpc.v1'], auth(d));
    b.ws.send(JSON.stringify({ kind: 'bogus' }));
    expect((await b.closed).code).toBe(1008);
  });

  it('answers ping with pong', async () => {
    const d = await daemon();
    const c = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc`, ['pi-daemon-rpc.v1'], auth(d));
    const pong = new Promise<string>((r) => c.ws.once('pong', (data) => r(data.toString())));
    c.ws.ping('are-you-there');
    expect(await pong).toBe('are-you-there');
  });

  it('works over a unix socket (ws+unix)', async () => {
    const dir = scratch('pi-sock-').dir;
    const socketPath = join(dir, 'daemon.sock');
    const d = await daemon({ listen: { path: socketPath } });
    expect(d.url).toBe(`unix:${socketPath}`);
    const caps = await rawRequest({ socketPath }, 'GET', '/v1/capabilities', auth(d));
    expect(caps.status).toBe(200);
    const c = await wsConnect(`${d.wsUrl}/v1/session/agent-a/rpc`, ['pi-daemon-rpc.v1'], auth(d));
    expect(((await c.take(1))[0] as { kind: string }).kind).toBe('attach_ready');
  });
});

// ---------------------------------------------------------------------------------------------
// Pi daemon: ACP over /apc

describe('Pi daemon stand-in: ACP over WebSocket', () => {
  async function acpClient(d: PiDaemon) {
    const ws = new WebSocket(`${d.wsUrl}/v1/session/agent-a/apc`, 'agent-client-protocol.v1', { headers: { authorization: `Bearer ${d.token}` } });
    cleanups.push(() => {
      if (ws.readyState === WebSocket.OPEN) ws.close();
    });
    const updates: SessionNotification[] = [];
    const client = new ClientSideConnection(
      () => ({
        requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }),
        sessionUpdate: async (n: SessionNotification) => void updates.push(n),
      }),
      acpStreamFromWebSocket(ws),
    );
    return { ws, client, updates };
  }

  it('initializes, creates a session and prompts, receiving session/update chunks', async () => {
    const d = await daemon();
    const { ws, client, updates } = await acpClient(d);
    const init = await client.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, clientInfo: { name: 'standins-test', version: '1.0.0' } });
    expect(ws.protocol).toBe('agent-client-protocol.v1');
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo?.name).toBe('pi-daemon-acp');
    expect(init.agentCapabilities?.loadSession).toBe(true);

    const session = await client.newSession({ cwd: '/srv/work/project-a', mcpServers: [] });
    expect(session.sessionId).toBe('agent-a');

    const result = await client.prompt({ sessionId: session.sessionId, prompt: [{ type: 'text', text: 'Say hello' }] });
    expect(result.stopReason).toBe('end_turn');
    const chunkText = () =>
      updates
        .map((u) => u.update)
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => (u as { content: { text: string } }).content.text)
        .join('');
    await vi.waitFor(() => expect(chunkText()).toBe('Hello from the mock model.'));

    await client.authenticate({ methodId: 'none' });
    const record = d.received.ws.find((w) => w.route === 'apc')!;
    expect(record.fromClient.map((m) => (m as { method?: string }).method)).toEqual(['initialize', 'session/new', 'session/prompt', 'authenticate']);
    for (const m of [...record.fromClient, ...record.toClient]) expectValid('jsonRpcMessage', m);
    ws.close(1000);
    expect((await record.closed).code).toBe(1000);
  });

  it('loads a session (history replay) and streams a tool-call turn; unknown methods get -32601', async () => {
    const d = await daemon();
    const { client, updates } = await acpClient(d);
    await client.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const loaded = await client.loadSession({ sessionId: 'agent-a', cwd: '/srv/work/project-a', mcpServers: [] });
    expect(loaded?.modes?.currentModeId).toBe('off');
    await vi.waitFor(() =>
      expect(updates.map((u) => u.update.sessionUpdate)).toEqual(['user_message_chunk', 'agent_message_chunk', 'agent_message_chunk', 'user_message_chunk', 'agent_message_chunk']),
    );
    updates.length = 0;
    const result = await client.prompt({ sessionId: 'agent-a', prompt: [{ type: 'text', text: 'READFILE please read hello.txt' }] });
    expect(result.stopReason).toBe('end_turn');
    await vi.waitFor(() => expect(updates.map((u) => u.update.sessionUpdate)).toEqual(expect.arrayContaining(['tool_call', 'tool_call_update', 'agent_message_chunk'])));
    await expect(client.extMethod('no/such_method', {})).rejects.toMatchObject({ code: -32601 });
  });

  it('refuses the ACP client when the subprotocol is missing (the connection errors)', async () => {
    const d = await daemon();
    const ws = new WebSocket(`${d.wsUrl}/v1/session/agent-a/apc`, [], { headers: { authorization: `Bearer ${d.token}` } });
    const client = new ClientSideConnection(
      () => ({ requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }), sessionUpdate: async () => undefined }),
      acpStreamFromWebSocket(ws),
    );
    await expect(client.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} })).rejects.toThrow(/426/);
  });
});
