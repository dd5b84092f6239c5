/**
 * MCP 2026-07-28's Mcp-Param-* headers against the listings a client saw (param-headers.ts), in
 * process: values compared as the transport page says (integers as numbers, booleans in lower case,
 * redacted values as any), and a client that saw two definitions of a tool is held only to what both say.
 */
import { describe, expect, it } from 'vitest';
import { ParamHeaders, paramClientOf } from '../../../src/protocols/mcp/param-headers.js';

const CLIENT = paramClientOf({ 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } }, '127.0.0.1:1', '/mcp');
const tool = (properties: Record<string, unknown>) => ({ tools: [{ name: 't', inputSchema: { type: 'object', properties } }] });
const rules = (headers: ParamHeaders, args: Record<string, unknown>, sent: Record<string, string>) => headers.call(CLIENT, { name: 't', arguments: args }, sent).map((f) => f.rule);

describe('ParamHeaders', () => {
  it('compares integers as numbers, booleans as true or false, and takes a redacted value for any', () => {
    const headers = new ParamHeaders();
    headers.listed(CLIENT, tool({ n: { type: 'integer', 'x-mcp-header': 'N' }, b: { type: 'boolean', 'x-mcp-header': 'B' }, apiToken: { type: 'string', 'x-mcp-header': 'Token' } }));
    expect(rules(headers, { n: 42, b: true, apiToken: '<redacted>' }, { 'mcp-param-n': '42.0', 'Mcp-Param-B': 'true', 'mcp-param-token': 'sk-live' })).toEqual([]);
    expect(rules(headers, { n: 42, b: true }, { 'mcp-param-n': '0x2a', 'mcp-param-b': 'True' })).toEqual(['mcp-http-param-header-mismatch', 'mcp-http-param-header-mismatch']);
  });

  it('holds a client that saw two definitions of a tool only to what both say', () => {
    const headers = new ParamHeaders();
    headers.listed(CLIENT, tool({ a: { type: 'string', 'x-mcp-header': 'A' }, b: { type: 'string' } }));
    headers.listed(CLIENT, tool({ a: { type: 'string' }, b: { type: 'string', 'x-mcp-header': 'B' } }));
    expect(rules(headers, { a: 'x', b: 'y' }, {})).toEqual([]);
    expect(rules(headers, { a: 'x', b: 'y' }, { 'mcp-param-a': 'x', 'mcp-param-b': 'y' })).toEqual([]);
    expect(rules(headers, { a: 'x', b: 'y' }, { 'mcp-param-c': 'z' })).toEqual(['mcp-http-param-header-unmarked']);
  });

  it('checks nothing for a client without clientInfo, or a tool it never saw listed', () => {
    const headers = new ParamHeaders();
    headers.listed(undefined, tool({ a: { type: 'string', 'x-mcp-header': 'A' } }));
    expect(headers.call(undefined, { name: 't', arguments: { a: 'x' } }, {})).toEqual([]);
    expect(rules(headers, { a: 'x' }, {})).toEqual([]);
    expect(paramClientOf({}, 'h', '/mcp')).toBeUndefined();
  });
});
