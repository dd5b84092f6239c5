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
import { startMcpHttpEverything, type McpHttpEverything } from '../support/mcp-http-replay-servers.js';

let server: McpHttpEverything;
let dir: TempDir;
let recording: string;
let direct: Array<[string, unknown]>;

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
    // Each request is an HTTP exchange of its own: the task's polls go on while the other calls run.
    const seen = await mcpEverySession(client, { taskAlongside: true });
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
});
