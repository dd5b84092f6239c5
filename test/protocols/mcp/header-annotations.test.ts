/**
 * The `x-mcp-header` annotations of a tool's inputSchema, by MCP 2026-07-28's constraints: found on
 * properties reached by `properties` keys alone, at any depth; any other place, type or name makes
 * the tool invalid, with where and why; data in `default` is not an annotation.
 */
import { describe, expect, it } from 'vitest';
import { headerAnnotationsOf } from '../../../src/protocols/mcp/header-annotations.js';

const object = (properties: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ type: 'object', properties, ...more });

describe('headerAnnotationsOf', () => {
  it('finds the annotated properties and the path to each', () => {
    const schema = object({ region: { type: 'string', 'x-mcp-header': 'Region' }, options: object({ limit: { type: 'integer', 'x-mcp-header': 'Limit' } }), plain: { type: 'string' } });
    expect(headerAnnotationsOf(schema)).toEqual({ kind: 'valid', annotations: [{ name: 'Region', path: ['region'] }, { name: 'Limit', path: ['options', 'limit'] }] });
    expect(headerAnnotationsOf(object({ flag: { type: ['boolean', 'null'], 'x-mcp-header': 'Flag' } }))).toMatchObject({ kind: 'valid' });
    expect(headerAnnotationsOf(object({ a: { type: 'string', default: { 'x-mcp-header': 'x' } } }))).toEqual({ kind: 'valid', annotations: [] });
  });

  it('says where and why an annotation breaks a constraint', () => {
    const invalid = (schema: unknown) => {
      const found = headerAnnotationsOf(schema);
      return found.kind === 'invalid' ? `${found.pointer}: ${found.reason}` : found.kind;
    };
    expect(invalid(object({ w: { type: 'number', 'x-mcp-header': 'W' } }))).toMatch(/^\/properties\/w\/x-mcp-header: .*"number"/);
    expect(invalid(object({ a: { type: 'string', 'x-mcp-header': '' } }))).toMatch(/non-empty/);
    expect(invalid(object({ a: { type: 'string', 'x-mcp-header': 'Two Words' } }))).toMatch(/token/);
    expect(invalid(object({ a: { type: 'string', 'x-mcp-header': 'Id' }, b: { type: 'string', 'x-mcp-header': 'ID' } }))).toMatch(/twice/);
    expect(invalid(object({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }))).toMatch(/^\/properties\/list\/items\/x-mcp-header: .*properties keys alone/);
    expect(invalid(object({ a: { $ref: '#/$defs/a' } }, { $defs: { a: { type: 'string', 'x-mcp-header': 'A' } } }))).toMatch(/^\/\$defs\/a\//);
    expect(invalid(object({}, { anyOf: [object({ a: { type: 'string', 'x-mcp-header': 'A' } })] }))).toMatch(/^\/anyOf\/0\//);
    expect(invalid({ type: 'object', 'x-mcp-header': 'Root' })).toMatch(/^\/x-mcp-header/);
  });

  it('walks no further than its limits', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100; i++) deep = object({ next: deep });
    expect(headerAnnotationsOf(deep)).toEqual({ kind: 'unchecked' });
  });
});
