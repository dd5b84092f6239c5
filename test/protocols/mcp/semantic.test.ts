import { describe, expect, it } from 'vitest';
import { describeMcpPointer, materializeMcpSession } from '../../../src/protocols/mcp/semantic.js';

type Sender = 'client' | 'server';
const rpc = (from: Sender, body: Record<string, unknown>) => ({ from, message: { jsonrpc: '2.0', ...body } });
const fold = (lines: Array<{ from: Sender; message: unknown }>) => materializeMcpSession(lines.map((l) => l.message), lines.map((l) => l.from));

const echo = { name: 'echo', inputSchema: { type: 'object' } };
const add = { name: 'add', inputSchema: { type: 'object' } };

describe('the MCP session fold', () => {
  it('folds list results into sets keyed by name or uri, whatever their order and pages', () => {
    const paged = fold([
      rpc('client', { id: 1, method: 'tools/list' }),
      rpc('server', { id: 1, result: { tools: [echo], nextCursor: 'c1' } }),
      rpc('client', { id: 2, method: 'tools/list', params: { cursor: 'c1' } }),
      rpc('server', { id: 2, result: { tools: [add] } }),
      rpc('client', { id: 3, method: 'resources/list' }),
      rpc('server', { id: 3, result: { resources: [{ uri: 'file:///a', name: 'a' }] } }),
    ]);
    const whole = fold([
      rpc('client', { id: 'x', method: 'resources/list' }),
      rpc('server', { id: 'x', result: { resources: [{ uri: 'file:///a', name: 'a' }] } }),
      rpc('client', { id: 'y', method: 'tools/list' }),
      rpc('server', { id: 'y', result: { tools: [add, echo] } }),
    ]);
    expect(paged).toEqual(whole);
    expect(Object.keys(paged.tools).sort()).toEqual(['add', 'echo']);
    expect(paged.resources).toEqual({ 'file:///a': { name: 'a' } });
    expect(paged.calls).toEqual([]);
  });

  it('pairs each call with its answer by id per side, and leaves out pings, progress and log lines', () => {
    const session = fold([
      rpc('client', { id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
      rpc('server', { id: 1, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } }),
      rpc('client', { method: 'notifications/initialized' }),
      rpc('client', { id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' }, _meta: { progressToken: 2 } } }),
      rpc('server', { method: 'notifications/progress', params: { progressToken: 2, progress: 1 } }),
      rpc('server', { method: 'notifications/message', params: { level: 'info', data: 'working' } }),
      // The server's request reuses the number 2: its own id space.
      rpc('server', { id: 2, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } }),
      rpc('client', { id: 2, result: { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' } }),
      rpc('server', { id: 2, result: { content: [{ type: 'text', text: 'Echo: hi' }] } }),
      rpc('client', { id: 3, method: 'ping' }),
      rpc('server', { id: 3, result: {} }),
      rpc('client', { id: 4, method: 'resources/read', params: { uri: 'file:///gone' } }),
      rpc('server', { id: 4, error: { code: -32002, message: 'not found' } }),
      rpc('server', { method: 'notifications/tools/list_changed' }),
      rpc('server', { method: 'notifications/tools/list_changed' }),
    ]);
    expect(session.initialize.server).toMatchObject({ serverInfo: { name: 's' } });
    expect(session.calls).toEqual([
      { from: 'client', method: 'tools/call', name: 'echo', params: { name: 'echo', arguments: { message: 'hi' }, _meta: { progressToken: 2 } }, result: { content: [{ type: 'text', text: 'Echo: hi' }] } },
      { from: 'server', method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 }, result: { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' } },
      { from: 'client', method: 'resources/read', name: 'file:///gone', params: { uri: 'file:///gone' }, error: { code: -32002, message: 'not found' } },
    ]);
    expect(session.notifications).toEqual([{ from: 'server', method: 'notifications/tools/list_changed' }]);
  });

  it('names the places of a difference', () => {
    const a = { calls: [{ method: 'tools/call', name: 'echo' }] };
    expect(describeMcpPointer('/tools/echo/inputSchema/properties/message/type', a, a)).toBe('tool "echo": inputSchema /properties/message/type');
    expect(describeMcpPointer('/resources/file:~1~1~1a', a, a)).toBe('resource "file:///a"');
    expect(describeMcpPointer('/calls/0/result/isError', a, a)).toBe('call 1 tools/call "echo": result /isError');
    expect(describeMcpPointer('/initialize/server/capabilities', a, a)).toBeUndefined();
  });
});

describe('the MCP session fold of an exchange that holds answers without their requests', () => {
  it('folds them by their shape (HTTP+SSE answers every POST on its GET stream)', () => {
    const stream = fold([
      rpc('server', { id: 1, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } }),
      rpc('server', { id: 2, result: { tools: [echo] } }),
      rpc('server', { id: 3, result: { content: [{ type: 'text', text: 'hi' }] } }),
      rpc('server', { id: 4, error: { code: -32602, message: 'no such tool' } }),
    ]);
    expect(stream.initialize).toEqual({ server: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } });
    expect(stream.tools).toEqual({ echo: { inputSchema: { type: 'object' } } });
    expect(stream.calls).toEqual([
      { from: 'client', method: 'answer', result: { content: [{ type: 'text', text: 'hi' }] } },
      { from: 'client', method: 'answer', error: { code: -32602, message: 'no such tool' } },
    ]);
  });
});
