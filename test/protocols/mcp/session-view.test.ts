/**
 * The inspector's MCP session tab over its JSON API: an MCP conversation over stdio, written by hand,
 * is listed with a `session` view, which pairs each request with its answer and lists the calls
 * (method, tool or resource, arguments, result or error, duration), the server's capabilities and
 * its tools.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInspector, type RunningInspector } from '../../../src/ui/server/inspector-server.js';
import type { ExchangeDetail, McpSessionView } from '../../../src/ui/api-types.js';
import { tempDir } from '../../support/temp-dir.js';
import { MCP_ECHO_TOOL as ECHO, writeMcpRecording } from '../../ui/ui-helpers.js';

const folder = tempDir('agent-proxy-mcp-view-');
let inspector: RunningInspector;

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
    expect((await get<ExchangeDetail>('/api/exchanges/1')).views).toEqual({ tab: { route: 'session', label: 'MCP session' }, state: false, answer: false });
  });

  it('lists the calls with their arguments, result or error and duration, the server\'s capabilities and its tools', async () => {
    const view = await get<McpSessionView>('/api/exchanges/1/session');
    expect(view).toMatchObject({ kind: 'mcp', exchangeId: 1, unanswered: 0, turns: [] });
    expect(view.server).toEqual({ protocolVersion: '2025-11-25', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 's', version: '1' } });
    expect(view.tools).toEqual([ECHO]);
    expect(view.calls).toEqual([
      expect.objectContaining({ seq: 1, responseSeq: 2, method: 'initialize', name: null, durationMs: 2 }),
      expect.objectContaining({ seq: 4, responseSeq: 5, method: 'tools/list', name: null, arguments: null, durationMs: 1 }),
      { seq: 6, atMs: 10, responseSeq: 8, from: 'client', method: 'tools/call', id: '2', name: 'echo', arguments: { message: 'hi' }, result: { content: [{ type: 'text', text: 'Echo: hi' }] }, durationMs: 7 },
      { seq: 9, atMs: 20, responseSeq: 10, from: 'client', method: 'resources/read', id: '3', name: 'file:///gone', arguments: { uri: 'file:///gone' }, error: { code: -32002, message: 'Resource not found' }, durationMs: 2 },
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
