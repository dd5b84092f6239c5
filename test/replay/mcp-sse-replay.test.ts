/**
 * MCP over the older HTTP+SSE transport (2024-11-05), replayed: server-everything recorded through
 * the proxy with the SDK's SSEClientTransport, then two such clients against the replay at once.
 * Each `GET /sse` opens a session of its own: its `endpoint` event names the replay with a fresh
 * session id, the client's POSTs are answered 202, and the answers come on its GET stream in the
 * recorded order, each once the POSTs recorded before it have arrived.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startFixture, startRecorder, startReplay } from '../../src/index.js';
import { openRecording } from '../../src/store/open-recording.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { connectCapableClient } from '../support/mcp-everything.js';
import { mcpShortSession, startMcpHttpEverything, type McpHttpEverything } from '../support/mcp-http-replay-servers.js';

let server: McpHttpEverything;
let dir: TempDir;
let recording: string;
let recorded: Array<[string, unknown]>;

/** The session id the endpoint event named, read from the URL the transport posts to. */
function sessionIdOf(transport: SSEClientTransport): string {
  const endpoint = (transport as unknown as { _endpoint?: URL })._endpoint;
  return endpoint?.searchParams.get('sessionId') ?? '';
}

/** A scenario through the SDK client, with the session id made steady (server-everything names it in some results). */
async function everything(url: string, sessionIds?: string[]): Promise<Array<[string, unknown]>> {
  const transport = new SSEClientTransport(new URL(url));
  const client = await connectCapableClient(transport);
  try {
    const sessionId = sessionIdOf(transport);
    sessionIds?.push(sessionId);
    // The short scenario: the Streamable HTTP file plays the whole one.
    const seen = await mcpShortSession(client);
    return JSON.parse(JSON.stringify(seen).split(sessionId).join('<session>')) as Array<[string, unknown]>;
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  server = await startMcpHttpEverything();
  dir = tempDir();
  recording = dir.file('mcp-sse.db');
  const recorder = await startRecorder({ target: server.origin, listen: 0, out: recording, pipeline: 'inline' });
  try {
    recorded = await everything(`${recorder.url}/sse`);
  } finally {
    await recorder.close();
  }
});

afterAll(async () => {
  await server?.close();
  dir?.cleanup();
});

describe('replay of MCP over HTTP+SSE (2024-11-05)', () => {
  it('opens a session per GET /sse with a fresh id in its endpoint event: two SDK clients at once get what the server gave', async () => {
    // At 4 times the recorded pace: a progress notification still comes apart from its call's result.
    const replay = await startReplay({ recording, listen: 0, strict: true, timing: '4x' });
    const sessionIds: string[] = [];
    const [first, second] = await Promise.all([everything(`${replay.url}/sse`, sessionIds), everything(`${replay.url}/sse`, sessionIds)]);
    const summary = await replay.close();
    expect(first).toEqual(recorded);
    expect(second).toEqual(recorded);
    expect(summary.misses).toEqual([]);
    expect(summary.unused.map((e) => `${e.id} ${e.method} ${e.path}`)).toEqual([]);
    expect(summary.ok).toBe(true);

    const reader = openRecording(recording);
    const recordedQueries = reader.exchanges().map((e) => e.query ?? '');
    reader.close();
    expect(new Set(sessionIds).size).toBe(2);
    expect(sessionIds.filter((id) => id === '' || recordedQueries.some((q) => q.includes(id)))).toEqual([]);
  });

  it('answers a POST it has no recording of with 202 and the JSON-RPC error on the stream, which the SDK raises as an McpError', async () => {
    const replay = await startReplay({ recording, listen: 0, timing: 'none' });
    const client = await connectCapableClient(new SSEClientTransport(new URL(`${replay.url}/sse`)));
    let caught: unknown;
    try {
      await client.callTool({ name: 'echo', arguments: { message: 'not recorded' } });
    } catch (error) {
      caught = error;
    }
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    await replay.close();
    expect(caught).toBeInstanceOf(McpError);
    expect((caught as McpError).message).toMatch(/POST \/message\?sessionId=\S+ matches no recorded exchange; nearest is exchange \d+ \(POST \/message\); differs in \/params\/arguments\/message/);
    expect((caught as McpError).data).toMatchObject({ code: 'replay_miss', reason: 'no-match', differences: ['/params/arguments/message'] });
  });

  it('works as a fixture: mode once records the session, and from then on serves it to each client', async () => {
    const fixtureFile = dir.file('mcp-sse-fixture.db');
    const recordOnce = await startFixture({ recording: fixtureFile, target: server.origin, mode: 'once', listen: 0 });
    expect(recordOnce.action).toBe('record');
    const live = await everything(`${recordOnce.url}/sse`);
    await recordOnce.close();
    const replayOnce = await startFixture({ recording: fixtureFile, target: server.origin, mode: 'once', listen: 0, strict: true, timing: '4x' });
    expect(replayOnce.action).toBe('replay');
    const replayed = await Promise.all([everything(`${replayOnce.url}/sse`), everything(`${replayOnce.url}/sse`)]);
    const summary = await replayOnce.close();
    expect(replayed).toEqual([live, live]);
    expect(summary).toMatchObject({ ok: true, misses: [], unused: [] });
  });
});
