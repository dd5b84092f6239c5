/**
 * MCP over Streamable HTTP, replayed, at its edges: a stream cut before its response resumed after
 * Last-Event-ID, DELETE ending the session, a session id never issued, ids a client mints its own
 * way, and a server killed mid-call. A short session of server-everything, recorded through the
 * proxy with the official SDK client (mcp-http-replay.test.ts replays the whole scenario).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startRecorder, startReplay } from '../../src/index.js';
import { openRecording } from '../../src/store/open-recording.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { connectCapableClient } from '../support/mcp-everything.js';
import { mcpShortSession, startMcpHttpEverything, type McpHttpEverything } from '../support/mcp-http-replay-servers.js';

let server: McpHttpEverything;
let dir: TempDir;
/** A short session that ends with DELETE (`terminateSession`). */
let ended: string;
let endedSeen: Array<[string, unknown]>;

/** A client that reconnects a cut stream at once, as it would after its usual delay. */
const QUICK_RECONNECT = { initialReconnectionDelay: 5, maxReconnectionDelay: 5, reconnectionDelayGrowFactor: 1, maxRetries: 1 };

/** The short scenario, then DELETE ending the session; what the client got, and how the session ended. */
async function shortThenDelete(url: string): Promise<{ seen: Array<[string, unknown]>; afterDelete: unknown }> {
  // The SDK's own reconnection delay (a second): DELETE ends the GET stream, and the client closes
  // well before it would reconnect, in the recording and in the replay alike.
  const transport = new StreamableHTTPClientTransport(new URL(url));
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

beforeAll(async () => {
  server = await startMcpHttpEverything({ eventStore: true });
  dir = tempDir();
  ended = dir.file('mcp-http-delete.db');
  const recorder = await startRecorder({ target: server.origin, listen: 0, out: ended, pipeline: 'inline' });
  try {
    const run = await shortThenDelete(`${recorder.url}/mcp`);
    expect(run.afterDelete).toBe(404);
    endedSeen = run.seen;
  } finally {
    await recorder.close();
  }
});

afterAll(async () => {
  await server?.close();
  dir?.cleanup();
});

describe('replay of MCP over Streamable HTTP, at its edges', () => {
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

  it('replays a server killed mid-call as it happened: the stream breaks off after the progress the client had, resuming fails, the call times out', async () => {
    const doomed = await startMcpHttpEverything({ eventStore: true });
    const killedFile = dir.file('mcp-http-killed.db');
    const recorder = await startRecorder({ target: doomed.origin, listen: 0, out: killedFile, pipeline: 'inline' });
    /** A long call whose server is killed (or not) once its first progress has come; what the client saw. */
    const longCall = async (url: string, kill?: () => void) => {
      const client = await connectCapableClient(new StreamableHTTPClientTransport(new URL(url), { reconnectionOptions: QUICK_RECONNECT }));
      const progress: number[] = [];
      const outcome = await client
        .callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, {
          timeout: 1500,
          onprogress: (p) => {
            progress.push(p.progress);
            if (progress.length === 1) kill?.();
          },
        })
        .then(
          () => 'answered',
          (error: unknown) => (error instanceof McpError ? `McpError ${error.code}` : String(error)),
        );
      await client.close();
      return { outcome, progress };
    };
    let recordedRun;
    try {
      recordedRun = await longCall(`${recorder.url}/mcp`, () => doomed.kill());
    } finally {
      await recorder.close();
      await doomed.close();
    }
    expect(recordedRun).toEqual({ outcome: 'McpError -32001', progress: [1] });
    const reader = openRecording(killedFile);
    const cut = reader.exchanges().find((e) => e.errorCode === 'E_UPSTREAM_RESET');
    reader.close();
    expect(cut).toBeDefined();

    const replay = await startReplay({ recording: killedFile, listen: 0, timing: 'none', strict: true });
    const replayed = await longCall(`${replay.url}/mcp`);
    const summary = await replay.close();
    expect(replayed).toEqual(recordedRun);
    expect(summary.misses).toEqual([]);
    expect(summary.unused.map((e) => `${e.id} ${e.method} ${e.path}`)).toEqual([]);
  });

  it('plays the JSON answers of a server that answers each POST with one body, to each session', async () => {
    const jsonServer = await startMcpHttpEverything({ jsonResponse: true });
    const jsonFile = dir.file('mcp-http-json.db');
    const recorder = await startRecorder({ target: jsonServer.origin, listen: 0, out: jsonFile, pipeline: 'inline' });
    const short = async (url: string) => {
      const transport = new StreamableHTTPClientTransport(new URL(url));
      // No capabilities: the reference server asks a client that has roots for them 350 ms after it
      // initialised, on the GET stream, so whether a session holds that request would race its length.
      const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' });
      await client.connect(transport);
      const sessionId = transport.sessionId!;
      // The calls most clients make; the server's own requests need a stream (the SDK's JSON mode sends none).
      const seen = [await client.listTools(), await client.callTool({ name: 'echo', arguments: { message: 'hello' } }), await client.listResources(), await client.getPrompt({ name: 'simple-prompt' }), await client.ping()];
      await client.close();
      return JSON.parse(JSON.stringify(seen).split(sessionId).join('<session>')) as unknown;
    };
    let recorded;
    try {
      recorded = await short(`${recorder.url}/mcp`);
    } finally {
      await recorder.close();
      await jsonServer.close();
    }
    const reader = openRecording(jsonFile);
    const jsonAnswers = reader.exchanges().filter((e) => e.method === 'POST' && e.transport === 'http' && e.status === 200);
    reader.close();
    expect(jsonAnswers.length).toBeGreaterThan(5);

    const replay = await startReplay({ recording: jsonFile, listen: 0, strict: true, timing: 'none' });
    const replayed = await Promise.all([short(`${replay.url}/mcp`), short(`${replay.url}/mcp`)]);
    const summary = await replay.close();
    expect(replayed).toEqual([recorded, recorded]);
    expect(summary).toMatchObject({ ok: true, misses: [], unused: [] });
  });
});
