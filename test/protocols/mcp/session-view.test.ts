/**
 * The inspector's MCP session tab over its JSON API: an MCP conversation over stdio, written by hand,
 * is listed with a `session` view, which pairs each request with its answer and lists the calls
 * (method, tool or resource, arguments, result or error, duration), the server's capabilities and
 * its tools.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingWriter } from '../../../src/store/recording-writer.js';
import { startInspector, type RunningInspector } from '../../../src/ui/server/inspector-server.js';
import type { ExchangeDetail } from '../../../src/ui/api-types.js';
import type { McpSessionView } from '../../../src/protocols/mcp/session-view.js';
import { tempDir } from '../../support/temp-dir.js';

const folder = tempDir('agent-proxy-mcp-view-');
let inspector: RunningInspector;

const ECHO = { name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } };

function writeMcpRecording(file: string): void {
  const w = RecordingWriter.open(file, { toolVersion: 'test', target: undefined, mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
  const id = w.beginExchange({ transport: 'stdio', protocol: 'mcp', url: 'node server.js', tOffsetMs: 0 });
  let seq = 0;
  const line = (sender: 'client' | 'server', t: number, body: object) => {
    const json = { jsonrpc: '2.0', ...body };
    seq++;
    w.addMessage({ exchangeId: id, sender, carrier: 'line', channel: sender === 'client' ? 'stdin' : 'stdout', tOffsetMs: t, raw: Buffer.from(JSON.stringify(json) + '\n'), json, verdict: { status: 'valid', findings: [] } });
  };
  line('client', 1, { id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }); // 1
  line('server', 3, { id: 0, result: { protocolVersion: '2025-11-25', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 's', version: '1' } } }); // 2
  line('client', 4, { method: 'notifications/initialized' }); // 3
  line('client', 5, { id: 1, method: 'tools/list' }); // 4
  line('server', 6, { id: 1, result: { tools: [ECHO] } }); // 5
  line('client', 10, { id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' }, _meta: { progressToken: 2 } } }); // 6
  line('server', 11, { method: 'notifications/progress', params: { progressToken: 2, progress: 1 } }); // 7
  line('server', 17, { id: 2, result: { content: [{ type: 'text', text: 'Echo: hi' }] } }); // 8
  line('client', 20, { id: 3, method: 'resources/read', params: { uri: 'file:///gone' } }); // 9
  line('server', 22, { id: 3, error: { code: -32002, message: 'Resource not found' } }); // 10
  line('server', 23, { method: 'notifications/tools/list_changed' }); // 11
  expect(seq).toBe(11);
  w.endExchange(id, { outcome: 'complete', tOffsetMs: 30 });
  w.close();
}

async function get<T>(path: string): Promise<T> {
  const res = await fetch(inspector.url + path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

beforeAll(async () => {
  const file = folder.file('mcp.db');
  writeMcpRecording(file);
  inspector = await startInspector({ recording: file, listen: 0 });
});
afterAll(async () => {
  await inspector.close();
  folder.cleanup();
});

describe('the inspector MCP session view', () => {
  it('is listed as the exchange\'s session tab', async () => {
    expect((await get<ExchangeDetail>('/api/exchanges/1')).views).toEqual({ tab: { route: 'session', label: 'MCP session' }, state: false });
  });

  it('lists the calls with their arguments, result or error and duration, the server\'s capabilities and its tools', async () => {
    const view = await get<McpSessionView>('/api/exchanges/1/session');
    expect(view).toMatchObject({ kind: 'mcp', exchangeId: 1, unanswered: 0, turns: [] });
    expect(view.server).toEqual({ protocolVersion: '2025-11-25', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 's', version: '1' } });
    expect(view.tools).toEqual([ECHO]);
    expect(view.calls).toEqual([
      expect.objectContaining({ seq: 1, responseSeq: 2, method: 'initialize', name: null, durationMs: 2 }),
      expect.objectContaining({ seq: 4, responseSeq: 5, method: 'tools/list', name: null, arguments: null, durationMs: 1 }),
      { seq: 6, responseSeq: 8, from: 'client', method: 'tools/call', id: '2', name: 'echo', arguments: { message: 'hi' }, result: { content: [{ type: 'text', text: 'Echo: hi' }] }, durationMs: 7 },
      { seq: 9, responseSeq: 10, from: 'client', method: 'resources/read', id: '3', name: 'file:///gone', arguments: { uri: 'file:///gone' }, error: { code: -32002, message: 'Resource not found' }, durationMs: 2 },
    ]);
    // The session renderer's pairs, labelled with the tool or resource.
    expect(view.pairs.map((p) => [p.label, p.requestSeq, p.responseSeq, p.ok])).toEqual([
      ['initialize', 1, 2, true],
      ['tools/list', 4, 5, true],
      ['tools/call echo', 6, 8, true],
      ['resources/read file:///gone', 9, 10, false],
    ]);
    // Progress is left to the message list; other notifications are listed.
    expect(view.other.map((f) => [f.seq, f.label])).toEqual([[3, 'notifications/initialized'], [11, 'notifications/tools/list_changed']]);
  });
});
