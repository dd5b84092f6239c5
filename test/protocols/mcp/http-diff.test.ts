/**
 * `diff --semantic` of MCP conversations over Streamable HTTP, each recorded through the in-process
 * recorder with the official SDK's Client: a session spans many exchanges (one POST per request,
 * the GET stream, DELETE). Two sessions of the reference server-everything whose session ids,
 * request ids and progress tokens differ (the second pings first) compare equal; the HTTP stand-in
 * changed in one tool's schema is named by exactly that change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { startRecorder } from '../../../src/record/start-recorder.js';
import { diffRecordingFiles } from '../../../src/diff/diff-recordings.js';
import { bareRegistry } from '../../support/shared.js';
import { tempDir } from '../../support/temp-dir.js';
import { startMcpEverythingHttp } from '../../support/mcp-everything-http.js';
import { startHttpMcpStandIn } from '../../support/http-mcp-server.js';

/**
 * Records the SDK client running `session` against `endpoint` (a path of `origin`) through the
 * recorder: over Streamable HTTP ending with DELETE, or over the older HTTP+SSE transport (`/sse`).
 */
async function recordSession(out: string, origin: string, endpoint: string, session: (client: Client) => Promise<void>): Promise<void> {
  const proxy = await startRecorder({ target: origin, listen: 0, out, registry: bareRegistry() });
  try {
    const url = new URL(`${proxy.url}${endpoint}`);
    const transport = endpoint === '/sse' ? new SSEClientTransport(url) : new StreamableHTTPClientTransport(url);
    const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      await session(client);
      if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
    } finally {
      await client.close();
    }
  } finally {
    await proxy.close();
  }
}

const everythingSession = (pingFirst: boolean) => async (client: Client) => {
  if (pingFirst) await client.ping();
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { message: 'hello' } }, undefined, { onprogress: () => {} });
  await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
  await client.listPrompts();
  await client.getPrompt({ name: 'simple-prompt' });
};

/** No arguments: a call that fits the tool's schema before and after its change. */
const standInSession = async (client: Client) => {
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: {} });
};

const dir = tempDir('agent-proxy-mcp-http-diff-');
const files = { everything: dir.file('everything.db'), everythingAgain: dir.file('everything-again.db'), legacy: dir.file('legacy.db'), legacyAgain: dir.file('legacy-again.db'), standIn: dir.file('stand-in.db'), changed: dir.file('stand-in-changed.db') };

describe('diff --semantic of MCP over Streamable HTTP', () => {
  beforeAll(async () => {
    const [everything, standIn, changed] = await Promise.all([startMcpEverythingHttp(), startHttpMcpStandIn(), startHttpMcpStandIn(['echo-number'])]);
    try {
      await Promise.all([
        recordSession(files.everything, everything.origin, '/mcp', everythingSession(false)),
        recordSession(files.everythingAgain, everything.origin, '/mcp', everythingSession(true)),
        recordSession(files.legacy, everything.origin, '/sse', everythingSession(false)),
        recordSession(files.legacyAgain, everything.origin, '/sse', everythingSession(true)),
        recordSession(files.standIn, standIn.origin, '/ok/mcp', standInSession),
        recordSession(files.changed, changed.origin, '/ok/mcp', standInSession),
      ]);
    } finally {
      await Promise.all([everything.close(), standIn.close(), changed.close()]);
    }
  });
  afterAll(() => dir.cleanup());

  it('two sessions of the same server with other session ids, request ids, progress tokens and event ids are equal', () => {
    const report = diffRecordingFiles(files.everything, files.everythingAgain, { semantic: true });
    expect(report.exchanges, JSON.stringify(report.exchanges)).toEqual([]);
    expect(report.equal).toBe(true);
    // Without --semantic the ping's exchange, the shifted ids and the event ids are differences.
    expect(diffRecordingFiles(files.everything, files.everythingAgain).equal).toBe(false);
  });

  it('the same over HTTP+SSE, whose GET stream carries every answer', () => {
    const report = diffRecordingFiles(files.legacy, files.legacyAgain, { semantic: true });
    expect(report.exchanges, JSON.stringify(report.exchanges)).toEqual([]);
  });

  it('names the changed tool schema and nothing else', () => {
    const report = diffRecordingFiles(files.standIn, files.changed, { semantic: true });
    expect(report.summary.exchanges.changed).toBe(1);
    expect(report.exchanges.map((e) => `${e.change} ${e.a?.method} ${e.a?.path} ${e.a?.status}`)).toEqual(['changed POST /ok/mcp 200']);
    const [exchange] = report.exchanges;
    expect(exchange.fields).toEqual([]);
    expect(exchange.messages.map((m) => ({ label: m.a?.label, differences: m.differences, verdict: m.verdict }))).toEqual([
      {
        label: 'mcp-session',
        differences: [{ pointer: '/tools/echo/inputSchema/properties/message/type', name: 'tool "echo": inputSchema /properties/message/type', a: 'string', b: 'number' }],
        verdict: undefined,
      },
    ]);
  });
});
