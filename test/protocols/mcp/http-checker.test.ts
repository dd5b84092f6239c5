/**
 * MCP's transport rules over Streamable HTTP (http-checker.ts), through the real recorder: a client
 * written here (fetch, so that it can break the client's rules) against the stand-in server of
 * test/support/http-mcp-server.ts (whose path switches break the server's). Each rule has a case
 * that breaks it and is caught, and a correct case that is not; every case runs on its own
 * endpoint, so one recording holds them all and each endpoint's findings are its case's.
 */
import { describe, expect, it } from 'vitest';
import { startRecorder } from '../../../src/record/start-recorder.js';
import { MCP_RULES } from '../../../src/protocols/mcp/mcp-rules.js';
import { JSON_RPC_RULES } from '../../../src/protocols/json-rpc/json-rpc-rules.js';
import { fixturesAfterEach } from '../../support/fixtures-after-each.js';
import { bareRegistry } from '../../support/shared.js';
import { startHttpMcpStandIn } from '../../support/http-mcp-server.js';
import { sseEvents } from '../../support/sse-events.js';
import { readRecording } from '../../stdio/stdio-helpers.js';
import { validateView } from '../../support/recording-agreement.js';
import { judgeAgain } from '../../../src/diff/judge-again.js';
import { RecordingReader } from '../../../src/store/recording-reader.js';
import { waitFor } from '../../support/waits.js';

const cleanups = fixturesAfterEach();
const VERSION = '2025-11-25';
const MIRRORED_SECRET = 'sk-mirrored-5d1f9a3c7e';
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

/** A Streamable HTTP client of one endpoint, which sends what it is told to (headers left out or wrong included). */
class RawClient {
  session?: string;
  private nextId = 1;
  constructor(readonly url: string) {}

  headers(extra: Record<string, string | undefined> = {}): Record<string, string> {
    const all: Record<string, string | undefined> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': this.session, 'mcp-protocol-version': VERSION, ...extra };
    return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
  }

  async post(body: unknown, extra: Record<string, string | undefined> = {}): Promise<{ status: number; text: string; session: string | null }> {
    const res = await fetch(this.url, { method: 'POST', headers: this.headers(extra), body: JSON.stringify(body) });
    return { status: res.status, text: await res.text(), session: res.headers.get('mcp-session-id') };
  }

  request(method: string, extra: Record<string, string | undefined> = {}, params?: unknown) {
    return this.post({ jsonrpc: '2.0', id: this.nextId++, method, ...(params === undefined ? {} : { params }) }, extra);
  }

  /** `initialized: false`: the client never sends notifications/initialized. */
  async initialize({ initialized = true } = {}): Promise<void> {
    const params = { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
    const answer = await this.post({ jsonrpc: '2.0', id: this.nextId++, method: 'initialize', params }, { 'mcp-session-id': undefined, 'mcp-protocol-version': undefined });
    this.session = answer.session ?? undefined;
    if (initialized) await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /** The standalone GET stream: its events' data, as they come (read until it ends or `count` came). */
  async openStream(extra: Record<string, string | undefined> = {}, body?: unknown): Promise<{ next(): Promise<string | undefined>; close(): void }> {
    const controller = new AbortController();
    const init = body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) };
    const res = await fetch(this.url, { ...init, headers: { ...this.headers(extra), accept: body === undefined ? 'text/event-stream' : 'application/json, text/event-stream' }, signal: controller.signal });
    return sseEvents(res, controller);
  }

  /** 2026-07-28: a `subscriptions/listen` for tools/list_changed, its stream as openStream's. */
  listen(): Promise<{ next(): Promise<string | undefined>; close(): void }> {
    const headers = { 'mcp-session-id': undefined, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' };
    return this.openStream(headers, { jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen', params: { _meta: MODERN_META, notifications: { toolsListChanged: true } } });
  }

  /** A 2026-07-28 request (its `_meta` from `meta`), with the headers that repeat its body and `extra`. */
  modern(method: string, params: Record<string, unknown>, extra: Record<string, string> = {}, meta: unknown = MODERN_META) {
    const name = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
    return this.request(method, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...name, ...extra }, { _meta: meta, ...params });
  }

  /** 2026-07-28: execute_sql with `args`, after a tools/list unless `listed` is false. */
  async executeSql(args: Record<string, unknown>, headers: Record<string, string>, { listed = true } = {}): Promise<void> {
    if (listed) await this.modern('tools/list', {});
    await this.modern('tools/call', { name: 'execute_sql', arguments: args }, headers);
  }

  async delete(): Promise<number> {
    return (await fetch(this.url, { method: 'DELETE', headers: this.headers() })).status;
  }
}

/** The messages whose verdict diff's judging again changes (none: it judges as record did). */
function judgedAgain(file: string): number[] {
  const reader = RecordingReader.open(file);
  try {
    return [...judgeAgain(reader, bareRegistry()).keys()];
  } finally {
    reader.close();
  }
}

/** Each case: its endpoint's switches, and what the client does there. */
const CASES: Record<string, { switches: string; run(client: RawClient, direct: RawClient): Promise<void>; rules: string[] }> = {
  'a session the recording joined midway, judged by its requests\' MCP-Protocol-Version': {
    switches: 'joined',
    rules: [],
    async run(c, direct) {
      // Initialized with the server itself: the recording sees the session from its third request on.
      await direct.initialize();
      c.session = direct.session;
      await c.request('tools/list');
      await c.request('tools/list', { 'mcp-protocol-version': undefined });
    },
  },
  'a correct session': {
    switches: 'ok',
    rules: [],
    async run(c) {
      await c.initialize();
      await c.request('tools/list');
      await c.request('tools/call', {}, { name: 'echo', arguments: {} });
      await c.delete();
    },
  },
  'a request without the session id': {
    switches: 'missing-session',
    rules: [MCP_RULES.httpSessionIdMissing],
    async run(c) {
      await c.initialize();
      await c.request('tools/list', { 'mcp-session-id': undefined });
    },
  },
  'a client that keeps using a session the server answered 404 to': {
    switches: 'expire',
    rules: [MCP_RULES.httpSessionEnded],
    async run(c) {
      await c.initialize();
      await c.request('tools/list');
      expect((await c.request('tools/list')).status).toBe(404);
      await c.request('tools/list');
    },
  },
  'a client that initializes again after a 404': {
    switches: 'expire+again',
    rules: [],
    async run(c) {
      await c.initialize();
      await c.request('tools/list');
      expect((await c.request('tools/list')).status).toBe(404);
      await c.initialize();
      await c.request('tools/call', {}, { name: 'echo', arguments: {} });
    },
  },
  'requests without MCP-Protocol-Version, or with another version': {
    switches: 'version',
    rules: [MCP_RULES.httpVersionHeaderMissing, MCP_RULES.httpVersionHeaderMismatch],
    async run(c) {
      await c.initialize();
      await c.request('tools/list', { 'mcp-protocol-version': undefined });
      await c.request('tools/list', { 'mcp-protocol-version': '2025-06-18' });
    },
  },
  'a notification answered 202 with a body': {
    switches: 'accepted-with-body',
    rules: [MCP_RULES.httpAcceptedWithBody],
    async run(c) {
      await c.initialize();
    },
  },
  'a cut stream whose answer comes on a GET stream that does not resume': {
    switches: 'cut',
    rules: [MCP_RULES.httpResponseOnGetStream],
    async run(c) {
      await c.initialize();
      await c.request('tools/call', {}, { name: 'echo', arguments: {} });
      const stream = await c.openStream();
      expect(await stream.next()).toContain('"echo"');
    },
  },
  'a cut stream resumed with Last-Event-ID': {
    switches: 'cut+resume',
    rules: [],
    async run(c) {
      await c.initialize();
      await c.request('tools/call', {}, { name: 'echo', arguments: {} });
      const stream = await c.openStream({ 'last-event-id': 'primed-1' });
      expect(await stream.next()).toContain('"echo"');
    },
  },
  'a call whose stream ends without its answer': {
    switches: 'drop',
    rules: [JSON_RPC_RULES.unansweredRequest],
    async run(c) {
      await c.initialize();
      await c.request('tools/call', {}, { name: 'echo', arguments: {} });
    },
  },
  'a server request on the GET stream, answered': {
    switches: 'ping',
    rules: [],
    async run(c) {
      await c.initialize();
      const stream = await c.openStream();
      await c.request('tools/call', {}, { name: 'echo', arguments: {} });
      expect(await stream.next()).toContain('srv-ping');
      await c.post({ jsonrpc: '2.0', id: 'srv-ping', result: {} });
      await c.delete();
    },
  },
  'a server request delivered on two streams': {
    switches: 'ping+two-streams',
    rules: [MCP_RULES.httpMessageOnTwoStreams],
    async run(c) {
      await c.initialize();
      const stream = await c.openStream();
      await c.request('tools/call', {}, { name: 'echo', arguments: {} });
      expect(await stream.next()).toContain('srv-ping');
      await c.post({ jsonrpc: '2.0', id: 'srv-ping', result: {} });
      await c.delete();
    },
  },
  'a session its client ends (DELETE) before sending notifications/initialized': {
    switches: 'never-initialized',
    rules: [MCP_RULES.initializedMissing],
    async run(c) {
      await c.initialize({ initialized: false });
      expect(await c.delete()).toBe(200);
    },
  },
  'a session its client ends with a server request unanswered': {
    switches: 'ping+ended-unanswered',
    rules: [JSON_RPC_RULES.unansweredRequest],
    async run(c) {
      await c.initialize();
      const stream = await c.openStream();
      await c.request('tools/call', {}, { name: 'echo', arguments: {} });
      expect(await stream.next()).toContain('srv-ping');
      await c.delete();
    },
  },
  'a session whose client stops without ending it, a server request unanswered and initialized never sent': {
    switches: 'ping+stopped',
    rules: [],
    async run(c) {
      await c.initialize({ initialized: false });
      const stream = await c.openStream();
      await c.request('ping');
      expect(await stream.next()).toContain('srv-ping');
      stream.close();
    },
  },
  'a session whose server refuses its DELETE (405), so it goes on': {
    switches: 'keep',
    rules: [],
    async run(c) {
      await c.initialize({ initialized: false });
      expect(await c.delete()).toBe(405);
    },
  },
  'a session its client ends with a server request unanswered, then aborts its GET stream': {
    switches: 'ping+late-request',
    rules: [JSON_RPC_RULES.unansweredRequest],
    async run(c) {
      await c.initialize();
      const stream = await c.openStream();
      await c.request('tools/call', {}, { name: 'echo', arguments: {} });
      expect(await stream.next()).toContain('srv-ping');
      expect(await c.delete()).toBe(200);
      // The server leaves the stream open after the DELETE: the client cuts it, and the session's end is reported then.
      stream.close();
    },
  },
  'an endpoint without session ids whose session an initialize begins anew before notifications/initialized': {
    switches: 'no-session-id+never-initialized',
    rules: [MCP_RULES.initializedMissing],
    async run(c) {
      await c.initialize({ initialized: false });
      await c.initialize();
    },
  },
  'an endpoint without session ids whose session an initialize begins anew with a server request unanswered': {
    switches: 'no-session-id+two-streams',
    rules: [JSON_RPC_RULES.unansweredRequest],
    async run(c) {
      await c.initialize();
      await c.request('tools/call', {}, { name: 'echo', arguments: {} });
      await c.initialize();
    },
  },
  'an endpoint without session ids, its sessions each initialized and begun anew': {
    switches: 'no-session-id',
    rules: [],
    async run(c) {
      await c.initialize();
      await c.request('tools/list');
      await c.request('tools/call', {}, { name: 'echo', arguments: {} });
      await c.initialize();
      await c.request('tools/list');
    },
  },
  'a 2026-07-28 call whose headers repeat its body': {
    switches: 'modern',
    rules: [],
    async run(c) {
      const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
      await c.request('tools/call', headers, { _meta: MODERN_META, name: 'echo', arguments: {} });
    },
  },
  'a 2026-07-28 listen stream: acknowledged, then what was asked for, until the client closes it': {
    switches: 'listen',
    rules: [],
    async run(c) {
      const stream = await c.listen();
      expect(await stream.next()).toContain('notifications/subscriptions/acknowledged');
      expect(await stream.next()).toContain('notifications/tools/list_changed');
      stream.close();
    },
  },
  'a listen stream the server closes without its result (an abrupt close)': {
    switches: 'listen-close',
    rules: [],
    async run(c) {
      const stream = await c.listen();
      while ((await stream.next()) !== undefined);
    },
  },
  'a listen stream whose notification comes before the acknowledgment': {
    switches: 'unacked',
    rules: [MCP_RULES.listenNotAcknowledgedFirst],
    async run(c) {
      const stream = await c.listen();
      expect(await stream.next()).toContain('notifications/tools/list_changed');
      stream.close();
    },
  },
  'a listen answered at once with a plain JSON result': {
    switches: 'listen-json',
    rules: [MCP_RULES.listenNotAcknowledgedFirst],
    async run(c) {
      const stream = await c.listen();
      expect(await stream.next()).toBeUndefined();
    },
  },
  'a listen stream whose notification does not name its subscription': {
    switches: 'anonymous',
    rules: [MCP_RULES.listenSubscriptionId],
    async run(c) {
      const stream = await c.listen();
      for (let i = 0; i < 2; i++) expect(await stream.next()).toBeDefined();
      stream.close();
    },
  },
  'a listen stream with a notification the client did not ask for': {
    switches: 'unasked',
    rules: [MCP_RULES.listenNotRequested],
    async run(c) {
      const stream = await c.listen();
      for (let i = 0; i < 3; i++) expect(await stream.next()).toBeDefined();
      stream.close();
    },
  },
  'a 2026-07-28 call that mirrors its tool\'s annotated arguments (one in Base64, a null one left out)': {
    switches: 'params',
    rules: [],
    async run(c) {
      const args = { region: 'Zürich', query: 'SELECT 1', options: { limit: 10, dryRun: null } };
      // Mcp-Name in the Base64 form too, which a server decodes before comparing.
      await c.executeSql(args, { 'mcp-name': '=?base64?ZXhlY3V0ZV9zcWw=?=', 'mcp-param-region': '=?base64?WsO8cmljaA==?=', 'mcp-param-limit': '10.0' });
      // A secret-named argument: stored redacted in the body and in its header alike.
      await c.executeSql({ region: 'us-west1', query: 'SELECT 1', bearerToken: MIRRORED_SECRET, options: { dryRun: false } }, { 'mcp-param-region': 'us-west1', 'mcp-param-bearer-token': MIRRORED_SECRET, 'mcp-param-dry-run': 'false' });
    },
  },
  'a 2026-07-28 call without the header of an annotated argument': {
    switches: 'params-missing',
    rules: [MCP_RULES.httpParamHeaderMissing],
    async run(c) {
      await c.executeSql({ region: 'us-west1', query: 'SELECT 1' }, {});
    },
  },
  'a 2026-07-28 call whose mirrored header is not its argument': {
    switches: 'params-mismatch',
    rules: [MCP_RULES.httpParamHeaderMismatch, MCP_RULES.httpParamHeaderMismatch],
    async run(c) {
      await c.executeSql({ region: 'us-west1', query: 'SELECT 1', options: { limit: 10 } }, { 'mcp-param-region': 'eu-west1', 'mcp-param-limit': '10' });
      // A header for an argument the call does not have.
      await c.executeSql({ region: 'us-west1', query: 'SELECT 1' }, { 'mcp-param-region': 'us-west1', 'mcp-param-limit': '5' }, { listed: false });
    },
  },
  'a 2026-07-28 call with a header its tool does not mark': {
    switches: 'params-unmarked',
    rules: [MCP_RULES.httpParamHeaderUnmarked],
    async run(c) {
      await c.executeSql({ region: 'us-west1', query: 'SELECT 1' }, { 'mcp-param-region': 'us-west1', 'mcp-param-query': 'SELECT 1' });
    },
  },
  'a 2026-07-28 call by a client never seen listing the tools (the listing was another client\'s, or before the recording)': {
    switches: 'params-unlisted',
    rules: [],
    async run(c) {
      await c.modern('tools/list', {}, {}, { ...MODERN_META, 'io.modelcontextprotocol/clientInfo': { name: 'other', version: '1' } });
      await c.executeSql({ region: 'us-west1', query: 'SELECT 1' }, { 'mcp-param-other': 'x' }, { listed: false });
    },
  },
  'a 2026-07-28 tools/list with an annotation on a number argument': {
    switches: 'params+bad-annotation',
    rules: [MCP_RULES.toolHeaderAnnotationInvalid],
    async run(c) {
      await c.modern('tools/list', {});
    },
  },
  'a 2026-07-28 call whose Mcp-Name is not its tool': {
    switches: 'modern-mismatch',
    rules: [MCP_RULES.httpHeaderMismatch],
    async run(c) {
      const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'other' };
      await c.request('tools/call', headers, { _meta: MODERN_META, name: 'echo', arguments: {} });
    },
  },
};

describe('MCP transport rules over Streamable HTTP', () => {
  it('catches each case that breaks a rule, and nothing in the correct ones; validate agrees', async () => {
    const server = await startHttpMcpStandIn();
    cleanups.push(() => server.close());
    const out = cleanups.scratch().file('mcp-rules.db');
    const proxy = await startRecorder({ target: server.origin, listen: 0, out, registry: bareRegistry() });
    cleanups.push(async () => void (await proxy.close()));
    for (const { switches, run } of Object.values(CASES)) await run(new RawClient(`${proxy.url}/${switches}/mcp`), new RawClient(`${server.origin}/${switches}/mcp`));
    await proxy.close();

    const { exchanges, messages } = readRecording(out);
    expect(exchanges.filter((e) => e.protocol !== 'mcp').map((e) => `#${e.id} ${e.method} ${e.path}`)).toEqual([]);
    const found = Object.fromEntries(Object.entries(CASES).map(([name, { switches }]) => [
      name,
      exchanges.filter((e) => e.path === `/${switches}/mcp`).flatMap((e) => messages(e.id).flatMap((m) => m.verdict.findings.map((f) => f.rule))),
    ]));
    expect(found).toEqual(Object.fromEntries(Object.entries(CASES).map(([name, { rules }]) => [name, rules])));
    // A version the header names, else 2025-03-26 (a request without it on HTTP).
    const joined = exchanges.filter((e) => e.path === '/joined/mcp').flatMap((e) => messages(e.id).map((m) => m.verdict.schemaRef?.split('/')[4]));
    expect(joined).toEqual([VERSION, VERSION, '2025-03-26', '2025-03-26']);
    // A tool argument mirrored into a header is not kept where the body's is not.
    const params = exchanges.filter((e) => e.path === '/params/mcp');
    expect(JSON.stringify(params.map((e) => e.requestHeaders))).toContain('"mcp-param-bearer-token":"<redacted>"');
    expect(JSON.stringify(params.map((e) => [e.requestHeaders, messages(e.id).map((m) => m.raw.toString('utf8'))]))).not.toContain(MIRRORED_SECRET);
    const stored = exchanges.flatMap((e) => messages(e.id).flatMap((m) => m.verdict.findings.map((f) => `#${e.id}.${m.seq} ${f.severity} ${f.rule}`)));
    expect(validateView(out).sort()).toEqual(stored.sort());
    expect(judgedAgain(out)).toEqual([]);
  });

  it('reports a session\'s end as validate does when a server request on its GET stream comes after the DELETE was answered', async () => {
    const server = await startHttpMcpStandIn();
    cleanups.push(() => server.close());
    const out = cleanups.scratch().file('mcp-late.db');
    const ended: string[] = [];
    const listener = (event: { type: string; method?: string }) => void (event.type === 'exchange-end' && ended.push(event.method ?? ''));
    const proxy = await startRecorder({ target: server.origin, listen: 0, out, registry: bareRegistry(), listener });
    cleanups.push(async () => void (await proxy.close()));
    const c = new RawClient(`${proxy.url}/late-request/mcp`);
    await c.initialize();
    const stream = await c.openStream();
    expect(await c.delete()).toBe(200);
    // Recorded as ended before the server sends its request on the session's GET stream.
    await waitFor(() => ended.includes('DELETE'), 'the DELETE\'s end in the recording');
    expect((await fetch(`${server.origin}/late-request/mcp?send-late=${c.session}`)).status).toBe(200);
    expect(await stream.next()).toContain('srv-late');
    expect(await stream.next()).toBeUndefined();
    await waitFor(() => ended.includes('GET'), 'the GET stream\'s end in the recording');
    await proxy.close();

    const { exchanges, messages } = readRecording(out);
    const stored = exchanges.flatMap((e) => messages(e.id).flatMap((m) => m.verdict.findings.map((f) => `${e.method} ${m.seq} ${f.severity} ${f.rule}`)));
    expect(stored).toEqual([`GET 1 warning ${JSON_RPC_RULES.unansweredRequest}`]);
    const keys = exchanges.flatMap((e) => messages(e.id).flatMap((m) => m.verdict.findings.map((f) => `#${e.id}.${m.seq} ${f.severity} ${f.rule}`)));
    expect(validateView(out).sort()).toEqual(keys.sort());
    expect(judgedAgain(out)).toEqual([]);
  });
});
