/**
 * MCP over Streamable HTTP, replayed: the reference server-everything recorded through the proxy
 * with the official SDK client (every tool, resource, prompt, completion and logging level; sampling,
 * elicitation and roots answered by the client on the same streams), then the same client against
 * the replay, twice at once: each `initialize` plays the recorded session from its start under a
 * session id of its own, and both get what the server gave, with nothing missed or left unused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startRecorder, startReplay, type ServedExchange } from '../../src/index.js';
import { openRecording } from '../../src/store/open-recording.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { connectCapableClient, mcpEverySession } from '../support/mcp-everything.js';
import { mcpShortSession, startMcpHttpEverything, type McpHttpEverything } from '../support/mcp-http-replay-servers.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

let server: McpHttpEverything;
let dir: TempDir;
let recording: string;
let direct: Array<[string, unknown]>;
/** A short session that ends with DELETE (`terminateSession`). */
let ended: string;
let endedSeen: Array<[string, unknown]>;

/** A client that reconnects a cut stream at once, as it would after its usual delay. */
const QUICK_RECONNECT = { initialReconnectionDelay: 5, maxReconnectionDelay: 5, reconnectionDelayGrowFactor: 1, maxRetries: 3 };

/** The short scenario, then DELETE ending the session; what the client got, and how the session ended. */
async function shortThenDelete(url: string): Promise<{ seen: Array<[string, unknown]>; afterDelete: unknown }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { reconnectionOptions: QUICK_RECONNECT });
  const client: Client = await connectCapableClient(transport);
  try {
    const seen = await mcpShortSession(client);
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    // The ended session's id is no longer served: the server answers 404.
    const afterDelete = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }) }).then((r) => r.status);
    return { seen: JSON.parse(JSON.stringify(seen).split(sessionId).join('<session>')) as Array<[string, unknown]>, afterDelete };
  } finally {
    await client.close();
  }
}

/**
 * The whole scenario through the SDK client, with the session id made steady: server-everything
 * names it in some results (a replay names the live one there, as the server would).
 */
async function everything(url: string, sessionIds?: string[]): Promise<Array<[string, unknown]>> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = await connectCapableClient(transport);
  try {
    const sessionId = transport.sessionId ?? '';
    sessionIds?.push(sessionId);
    const seen = await mcpEverySession(client);
    return JSON.parse(JSON.stringify(seen).split(sessionId).join('<session>')) as Array<[string, unknown]>;
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  server = await startMcpHttpEverything({ eventStore: true });
  dir = tempDir();
  recording = dir.file('mcp-http.db');
  const recorder = await startRecorder({ target: server.origin, listen: 0, out: recording, pipeline: 'inline' });
  try {
    // What the client got through the proxy (test/record's MCP files compare it with a direct run).
    direct = await everything(`${recorder.url}/mcp`);
  } finally {
    await recorder.close();
  }
  ended = dir.file('mcp-http-delete.db');
  const again = await startRecorder({ target: server.origin, listen: 0, out: ended, pipeline: 'inline' });
  try {
    const run = await shortThenDelete(`${again.url}/mcp`);
    expect(run.afterDelete).toBe(404);
    endedSeen = run.seen;
  } finally {
    await again.close();
  }
});

afterAll(async () => {
  await server?.close();
  dir?.cleanup();
});

describe('replay of MCP over Streamable HTTP', () => {
  it('serves each new session from the start of the recorded one, under its own session id: two SDK clients at once get what the server gave', async () => {
    const served: ServedExchange[] = [];
    // At 4 times the recorded pace: a progress notification still comes apart from its call's result
    // (the SDK drops one it reads in the same chunk as the result).
    const replay = await startReplay({ recording, listen: 0, strict: true, timing: '4x', log: { served: (e) => served.push(e), miss() {} } });
    const sessionIds: string[] = [];
    const [first, second] = await Promise.all([everything(`${replay.url}/mcp`, sessionIds), everything(`${replay.url}/mcp`, sessionIds)]);
    const summary = await replay.close();
    expect(first).toEqual(direct);
    expect(second).toEqual(direct);
    expect(summary.misses).toEqual([]);
    expect(summary.unused.map((e) => `${e.id} ${e.method} ${e.path}`)).toEqual([]);
    expect(summary.ok).toBe(true);

    // Fresh ids, neither the recorded one nor each other's.
    const reader = openRecording(recording);
    const recordedIds = new Set(reader.exchanges().map((e) => e.responseHeaders?.['mcp-session-id']));
    reader.close();
    expect(new Set(sessionIds).size).toBe(2);
    expect(sessionIds.filter((id) => recordedIds.has(id))).toEqual([]);
    // Every recorded exchange was served once to each client.
    const counts = new Map<number | null, number>();
    for (const e of served) counts.set(e.exchangeId, (counts.get(e.exchangeId) ?? 0) + 1);
    expect([...counts.values()].filter((n) => n !== 2)).toEqual([]);
  });

  it('answers a call it has no recording of with a JSON-RPC error carrying its id, which the SDK raises as an McpError naming the nearest recorded call', async () => {
    const replay = await startReplay({ recording, listen: 0, timing: 'none' });
    const transport = new StreamableHTTPClientTransport(new URL(`${replay.url}/mcp`));
    const client = await connectCapableClient(transport);
    let caught: unknown;
    try {
      await client.callTool({ name: 'echo', arguments: { message: 'not recorded' } });
    } catch (error) {
      caught = error;
    }
    // The session goes on: the next recorded call is served.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    const summary = await replay.close();
    expect(caught).toBeInstanceOf(McpError);
    expect((caught as McpError).message).toMatch(/POST \/mcp matches no recorded exchange; nearest is exchange \d+ \(POST \/mcp\)/);
    expect((caught as McpError).data).toMatchObject({ code: 'replay_miss', reason: 'no-match', differences: ['/params/arguments/message'] });
    expect(summary.misses).toHaveLength(1);
  });

  it('resumes a stream cut before its response from the event after Last-Event-ID, and ends the session on DELETE', async () => {
    // The third POST (tools/list) is cut after its priming event: the SDK resumes it with GET and Last-Event-ID.
    const replay = await startReplay({ recording: ended, listen: 0, strict: true, timing: '4x', faults: ['cut=reset,after=1,method=POST,nth=3'] });
    const run = await shortThenDelete(`${replay.url}/mcp`);
    const summary = await replay.close();
    expect(run.seen).toEqual(endedSeen);
    expect(run.afterDelete).toBe(404);
    expect(summary.faults.map((f) => f.injected)).toEqual([1]);
    expect(summary.unused).toEqual([]);
    expect(summary.misses).toEqual([]);
  });

  it('answers a request naming a session it never issued with 404, as the server would, and counts it a miss', async () => {
    const replay = await startReplay({ recording: ended, listen: 0, timing: 'none' });
    const status = await fetch(`${replay.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'never-issued' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const summary = await replay.close();
    expect(status).toMatchObject({ status: 404, body: { jsonrpc: '2.0', id: 1, error: { code: -32001, data: { code: 'replay_miss', differences: ['header:mcp-session-id'] } } } });
    expect(summary.misses.map((m) => `${m.request.method} ${m.request.path} ${m.differences.join()}`)).toEqual(['POST /mcp header:mcp-session-id']);
  });

  it('echoes the request ids a client mints its own way, in the answer of each session', async () => {
    const replay = await startReplay({ recording: ended, listen: 0, timing: 'none' });
    const post = async (body: unknown, sessionId?: string) => {
      const res = await fetch(`${replay.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } : {}) }, body: JSON.stringify(body) });
      const text = await res.text();
      const answers = text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)) as { id?: unknown });
      return { sessionId: res.headers.get('mcp-session-id') ?? undefined, answers };
    };
    const initialize = { method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { sampling: {}, elicitation: {}, roots: {} }, clientInfo: { name: 'agent-proxy-test', version: '1.0.0' } }, jsonrpc: '2.0' };
    const first = await post({ ...initialize, id: 'mine-a' });
    const second = await post({ ...initialize, id: 1000 });
    await post({ method: 'notifications/initialized', jsonrpc: '2.0' }, first.sessionId);
    const listed = await post({ method: 'tools/list', jsonrpc: '2.0', id: 'mine-b' }, first.sessionId);
    await replay.close();
    expect(first.answers.map((a) => a.id)).toEqual(['mine-a']);
    expect(second.answers.map((a) => a.id)).toEqual([1000]);
    expect(first.sessionId).not.toEqual(second.sessionId);
    expect(listed.answers.map((a) => a.id)).toEqual(['mine-b']);
  });
});
