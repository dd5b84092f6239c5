/**
 * The inspector's MCP session tab over the JSON API (no browser) for a session over Streamable HTTP,
 * which spans many exchanges (a POST per request, the GET stream, DELETE): the tab of any of them
 * shows the whole session (the server, its tools, every call) and its pairs are that exchange's own.
 * The official SDK client against the HTTP stand-in, through the in-process recorder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startRecorder } from '../../src/record/start-recorder.js';
import { startInspector, type RunningInspector } from '../../src/ui/server/inspector-server.js';
import type { ExchangeSummary, McpSessionView } from '../../src/ui/api-types.js';
import { startHttpMcpStandIn } from '../support/http-mcp-server.js';
import { bareRegistry } from '../support/shared.js';
import { tempDir } from '../support/temp-dir.js';

const folder = tempDir('agent-proxy-ui-mcp-http-');
const RECORDING = folder.file('mcp-http.db');
let inspector: RunningInspector;

/** initialize, tools/list and tools/call, each a POST of one session; the SDK ends it with DELETE. */
async function recordSession(): Promise<void> {
  const server = await startHttpMcpStandIn();
  const proxy = await startRecorder({ target: server.origin, listen: 0, out: RECORDING, registry: bareRegistry() });
  try {
    const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/ok/mcp`));
    const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' });
    await client.connect(transport);
    await client.listTools();
    await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    await transport.terminateSession();
    await client.close();
  } finally {
    await proxy.close();
    await server.close();
  }
}

async function get<T>(path: string): Promise<T> {
  const res = await fetch(inspector.url + path);
  expect(res.status, `${path}: ${res.status}`).toBe(200);
  return (await res.json()) as T;
}

beforeAll(async () => {
  await recordSession();
  inspector = await startInspector({ recording: RECORDING, listen: 0 });
});

afterAll(async () => {
  await inspector?.close();
  folder.cleanup();
});

describe('the MCP session tab of a session over Streamable HTTP', () => {
  it('shows the whole session from any of its exchanges, each call naming the exchange that carried it', async () => {
    const exchanges = await get<ExchangeSummary[]>('/api/exchanges?protocol=mcp');
    const posts = exchanges.filter((e) => e.method === 'POST');
    // initialize, notifications/initialized, tools/list, tools/call.
    expect(posts).toHaveLength(4);
    const [initialize, , list, call] = posts;
    const calls = [
      { method: 'initialize', exchangeId: initialize.id },
      { method: 'tools/list', exchangeId: list.id },
      { method: 'tools/call', exchangeId: call.id },
    ];
    for (const exchange of [initialize, list, call]) {
      const view = await get<McpSessionView>(`/api/exchanges/${exchange.id}/session`);
      expect(view.server?.serverInfo).toEqual({ name: 'http-mcp-stand-in', version: '1.0.0' });
      expect(view.tools.map((t) => (t as { name: string }).name)).toEqual(['echo']);
      // A call of this exchange has no exchangeId: its seqs are this exchange's.
      expect(view.calls.map((c) => ({ method: c.method, exchangeId: c.exchangeId ?? exchange.id, answered: c.responseSeq !== null, elsewhere: c.responseExchangeId }))).toEqual(
        calls.map((c) => ({ ...c, answered: true, elsewhere: undefined })),
      );
      expect(view.calls.filter((c) => c.exchangeId === undefined).map((c) => c.method)).toEqual(calls.filter((c) => c.exchangeId === exchange.id).map((c) => c.method));
      // The pairs are this exchange's own, which its message list holds.
      expect(view.pairs).toHaveLength(1);
      expect(view.unanswered).toBe(0);
    }
    const callView = await get<McpSessionView>(`/api/exchanges/${call.id}/session`);
    expect(callView.calls[2].result).toEqual({ content: [{ type: 'text', text: 'echo' }] });
  });
});
