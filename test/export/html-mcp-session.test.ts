/**
 * An MCP session in the HTML view, from the view the mcp module builds for the inspector: the
 * server, its tools, and each call with its outcome (result, error, or none), bounded.
 */
import { describe, expect, it } from 'vitest';
import { isMcpSession, mcpSessionHtml } from '../../src/export/html-mcp-session.js';
import type { McpCallRow, McpSessionView } from '../../src/protocols/inspector-views.js';
import { parseXml, type XmlElement } from '../support/xml.js';

const textOf = (el: XmlElement): string => el.text + el.children.map(textOf).join('');

function view(overrides: Partial<McpSessionView>): McpSessionView {
  return { kind: 'mcp', exchangeId: 1, pairs: [], unanswered: 0, turns: [], outsideTurns: [], other: [], server: null, tools: [], calls: [], ...overrides };
}

function call(seq: number, overrides: Partial<McpCallRow> = {}): McpCallRow {
  return { seq, atMs: seq, responseSeq: seq + 1, from: 'client', method: 'tools/call', id: String(seq), name: 'echo', arguments: { n: seq }, result: { ok: true }, durationMs: 1.25, ...overrides };
}

function callRows(html: string): string[][] {
  return parseXml(html).children.find((e) => e.attributes.class === 'mcp-calls')!.children.slice(1).map((tr) => tr.children.map(textOf));
}

describe('mcpSessionHtml', () => {
  it('tells an MCP session from the other session views by its calls', () => {
    expect(isMcpSession(view({}))).toBe(true);
    expect(isMcpSession({ kind: 'acp', exchangeId: 1, pairs: [], unanswered: 0, turns: [], outsideTurns: [], other: [] })).toBe(false);
  });

  it('a session with no answer to initialize, no tools and no calls', () => {
    const root = parseXml(mcpSessionHtml(view({}), [1]));
    expect(root.children.map(textOf)).toEqual(['MCP server: no answer to initialize', 'Calls (0)', 'requestmethodnamedurationargumentsresult or error']);
  });

  it('each call: where its request and answer are, its result, its error, or no answer; a session over exchanges names them', () => {
    const html = mcpSessionHtml(
      view({
        server: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { title: 'Everything', version: '2' } },
        tools: [{ name: 'echo', description: 'says it back' }, 'not a tool'],
        calls: [call(1, { exchangeId: 2, responseExchangeId: 3 }), call(3, { result: undefined, error: { code: -32602, message: '<bad>' } }), call(5, { responseSeq: null, result: undefined, durationMs: null })],
      }),
      [1, 2, 3],
    );
    const root = parseXml(html);
    expect(textOf(root.children[0]!)).toBe('one session over exchanges #1, #2, #3');
    expect(textOf(root.children[1]!)).toBe('MCP server: Everything 2 · protocol 2025-06-18');
    expect(root.children.find((e) => e.attributes.class === 'mcp-tools')!.children.slice(1).map((tr) => tr.children.map(textOf))).toEqual([['echo', 'says it back'], ['', '']]);
    expect(callRows(html)).toEqual([
      ['#2 1 → #3 2', 'tools/call', 'echo', '1.3 ms', '{"n":1}', '{"ok":true}'],
      ['3 → 4', 'tools/call', 'echo', '1.3 ms', '{"n":3}', '{"code":-32602,"message":"<bad>"}'],
      ['5 → -', 'tools/call', 'echo', '-', '{"n":5}', 'no answer'],
    ]);
  });

  it('lists 500 calls at most, and counts the rest', () => {
    const rows = callRows(mcpSessionHtml(view({ calls: Array.from({ length: 503 }, (_, i) => call(i * 2 + 1)) }), [1]));
    expect(rows).toHaveLength(501);
    expect(rows[500]).toEqual(['3 more calls: see the messages']);
  });
});
