/**
 * MCP over HTTP through the real recorder: the official SDK's Client against the reference
 * server-everything on both its HTTP transports (Streamable HTTP and the older HTTP+SSE), through
 * every tool, resource, prompt, completion, logging level, sampling and elicitation it offers (the
 * scenario mcp-stdio.test.ts runs over stdio). The client gets exactly what it gets from the server
 * directly; every exchange is MCP's, judged per session, with no finding, by record, validate and
 * diff's judging again.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { startRecorder } from '../../src/record/start-recorder.js';
import { judgeAgain } from '../../src/diff/judge-again.js';
import { exportNdjsonText } from '../../src/export/ndjson-export.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { bareRegistry } from '../support/shared.js';
import { connectCapableClient, mcpEverySession } from '../support/mcp-everything.js';
import { startMcpEverythingHttp } from '../support/mcp-everything-http.js';
import { readRecording } from '../stdio/stdio-helpers.js';
import { validateView } from '../support/recording-agreement.js';

const cleanups = fixturesAfterEach();

async function everything(transport: Transport, terminate: boolean): Promise<Array<[string, unknown]>> {
  const client = await connectCapableClient(transport);
  try {
    // Each request is an HTTP exchange of its own: the task's polls go on while the other calls run.
    const seen = await mcpEverySession(client, { taskAlongside: true });
    // Streamable HTTP: the client ends its session with DELETE.
    if (terminate) await (transport as StreamableHTTPClientTransport).terminateSession();
    return seen;
  } finally {
    await client.close();
  }
}

/**
 * A run's results without what one process's sessions share: the reference server keeps the
 * resource its gzip tool registers in a module-wide map (the last session to register it holds it),
 * and its logging tools name the session's id.
 */
function comparable(seen: Array<[string, unknown]>): Array<[string, unknown]> {
  const shared = 'demo://resource/session/';
  return seen
    .filter(([what]) => !what.includes(shared))
    .map(([what, value]) => [
      what,
      JSON.parse(JSON.stringify(value).replace(/session [0-9a-f-]{36}/g, 'session <id>'), (key, v: unknown) =>
        key === 'resources' && Array.isArray(v) ? v.filter((r: { uri?: string }) => !r.uri?.startsWith(shared)) : v,
      ),
    ]);
}

const streamable = (origin: string) => new StreamableHTTPClientTransport(new URL(`${origin}/mcp`));
const legacySse = (origin: string) => new SSEClientTransport(new URL(`${origin}/sse`));

describe('MCP over HTTP (official SDK, reference server) through record', () => {
  it('gives the client what the server gives it directly on Streamable HTTP and HTTP+SSE, every exchange MCP, no finding', async () => {
    const server = await startMcpEverythingHttp();
    cleanups.push(() => server.close());
    const out = cleanups.scratch().file('mcp-http.db');
    const proxy = await startRecorder({ target: server.origin, listen: 0, out, registry: bareRegistry() });
    cleanups.push(async () => void (await proxy.close()));

    // Side by side: the task tool polls once a second, so each run takes a few seconds of waiting.
    const [direct, proxied, directSse, proxiedSse] = await Promise.all([
      everything(streamable(server.origin), true),
      everything(streamable(proxy.url), true),
      everything(legacySse(server.origin), false),
      everything(legacySse(proxy.url), false),
    ]);
    await proxy.close();
    expect(comparable(proxied)).toEqual(comparable(direct));
    expect(comparable(proxiedSse)).toEqual(comparable(directSse));

    const { exchanges, messages } = readRecording(out);
    expect(exchanges.filter((e) => e.protocol !== 'mcp').map((e) => `#${e.id} ${e.method} ${e.path} ${e.status}`)).toEqual([]);
    // Both transports, each with its own kinds of exchange.
    const kinds = new Set(exchanges.map((e) => `${e.method} ${e.path} ${e.transport}`));
    expect([...kinds]).toEqual(expect.arrayContaining(['POST /mcp sse', 'POST /mcp http', 'GET /mcp sse', 'DELETE /mcp http', 'GET /sse sse', 'POST /message http']));
    const judged = exchanges.flatMap((e) => messages(e.id).map((m) => ({ exchange: `#${e.id} ${e.method} ${e.path}`, m })));
    expect(judged.length).toBeGreaterThanOrEqual(200);
    expect(judged.filter(({ m }) => m.verdict.findings.length > 0).map(({ exchange, m }) => ({ exchange, seq: m.seq, findings: m.verdict.findings, json: m.json }))).toEqual([]);
    expect(judged.filter(({ m }) => m.verdict.status === 'invalid')).toEqual([]);
    // validate judges the recording as record did, and so does diff's judging again (exchange by exchange).
    expect(validateView(out)).toEqual([]);
    const reader = RecordingReader.open(out);
    try {
      expect([...judgeAgain(reader, bareRegistry()).values()]).toEqual([]);
      // Its NDJSON form too: the GET stream's answers stay between the POSTs they answer.
      const exported = cleanups.scratch().file('mcp-http.ndjson');
      writeFileSync(exported, exportNdjsonText(reader));
      expect(validateView(exported)).toEqual([]);
    } finally {
      reader.close();
    }
  });
});
