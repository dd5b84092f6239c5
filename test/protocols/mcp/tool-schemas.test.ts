/**
 * Tool schemas are the server's, so untrusted: compiled within limits (values, depth, no `$ref`
 * outside, dialects ajv knows), cached by the hash of their text, and their risky patterns run with
 * a time limit. What cannot be checked says why; nothing throws.
 */
import { describe, expect, it } from 'vitest';
import { guardedRegExpEngine, hasNestedQuantifier, withPatternGuard } from '../../../src/protocols/mcp/guarded-patterns.js';
import { MAX_TOOL_SCHEMA_VALUES, toolSchemaCheck } from '../../../src/protocols/mcp/tool-schemas.js';

const reasonOf = (schema: unknown) => {
  const check = toolSchemaCheck(schema);
  return check.ok ? 'ok' : check.reason;
};

describe('toolSchemaCheck', () => {
  it('compiles a schema once per distinct text, whatever object carries it', () => {
    const schema = () => ({ type: 'object', properties: { n: { type: 'integer' } } });
    expect(toolSchemaCheck(schema())).toBe(toolSchemaCheck(schema()));
    expect(toolSchemaCheck(schema())).not.toBe(toolSchemaCheck({ ...schema(), required: ['n'] }));
  });

  it('checks values to their first error, with pointers into the value', () => {
    const check = toolSchemaCheck({ type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string' } } });
    if (!check.ok) throw new Error(check.reason);
    expect(check.validate({ n: 1, s: 'x' })).toEqual([]);
    expect(check.validate({ n: 'x', s: 2 })).toMatchObject([{ rule: 'schema', pointer: '/n' }]);
  });

  it('refuses, with the reason, what it will not compile, and throws for none of it', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100; i++) deep = { items: deep };
    const wide = { enum: Array.from({ length: MAX_TOOL_SCHEMA_VALUES + 1 }, (_, i) => i) };
    expect(reasonOf('a string')).toMatch(/not a JSON object/);
    expect(reasonOf(deep)).toMatch(/nested deeper than 64/);
    expect(reasonOf(wide)).toMatch(new RegExp(`more than ${MAX_TOOL_SCHEMA_VALUES} values`));
    expect(reasonOf({ $ref: 'http://127.0.0.1:1/x.json' })).toMatch(/refers outside itself/);
    expect(reasonOf({ properties: { a: { $dynamicRef: 'other.json#meta' } } })).toMatch(/refers outside itself/);
    expect(reasonOf({ $schema: 'http://json-schema.org/draft-04/schema#' })).toMatch(/dialect not checked/);
    expect(reasonOf({ type: 'object', minProperties: 'two' })).toMatch(/not a valid JSON Schema 2020-12/);
    expect(reasonOf({ $ref: '#/$defs/missing' })).toMatch(/does not compile/);
    expect(reasonOf({ properties: { a: { pattern: '[' } } })).toMatch(/does not compile/);
  });

  it('keeps two schemas with the same $id apart, and a local $ref works', () => {
    const a = toolSchemaCheck({ $id: 'https://example.com/same.json', $defs: { v: { type: 'string' } }, properties: { x: { $ref: '#/$defs/v' } } });
    const b = toolSchemaCheck({ $id: 'https://example.com/same.json', $defs: { v: { type: 'number' } }, properties: { x: { $ref: '#/$defs/v' } } });
    if (!a.ok || !b.ok) throw new Error('not compiled');
    expect([a.validate({ x: 's' }), b.validate({ x: 1 })]).toEqual([[], []]);
    expect(a.validate({ x: 1 })).toHaveLength(1);
  });

  it('knows a dialect by its $schema, with or without a trailing # and by either scheme', () => {
    for (const named of ['https://json-schema.org/draft/2020-12/schema', 'http://json-schema.org/draft/2020-12/schema#', 'http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft-07/schema', 'https://json-schema.org/draft/2019-09/schema#']) {
      expect(reasonOf({ $schema: named, type: 'object' }), named).toBe('ok');
    }
    // `prefixItems` is 2020-12's: a draft-07 schema's is an unknown keyword, asserting nothing.
    const tuple = (named?: string) => toolSchemaCheck({ ...(named ? { $schema: named } : {}), prefixItems: [{ type: 'number' }] });
    const draft07 = tuple('http://json-schema.org/draft-07/schema#');
    const v2020 = tuple();
    expect([draft07.ok && draft07.validate(['x']).length, v2020.ok && v2020.validate(['x']).length]).toEqual([0, 1]);
  });

  it('does not assert formats (an annotation in 2020-12)', () => {
    const check = toolSchemaCheck({ type: 'string', format: 'email' });
    expect(check.ok && check.validate('not an address')).toEqual([]);
  });
});

describe('hasNestedQuantifier', () => {
  it('tells a quantified group holding a quantifier from patterns without one', () => {
    for (const risky of ['^(a+)+$', '(x*)*', '((ab)+c)*', '(\\d+\\.){2,}', '([a-z]+)*']) expect(hasNestedQuantifier(risky), risky).toBe(true);
    for (const plain of ['^[a-z]+$', '(ab)+', '\\(a+\\)+', '[(a+)]+', '^(?:foo|bar)?\\d{3}$', '(a+)?', '(a{2})+']) expect(hasNestedQuantifier(plain), plain).toBe(false);
  });
});

describe('guardedRegExpEngine', () => {
  const risky = '^(a+)+$';
  // ~2^24 backtracking steps: tens of ms, never within 1 ms.
  const slowButFinite = `${'a'.repeat(24)}!`;
  const endless = `${'a'.repeat(40)}!`;

  it('gives a match that ran out of its first limit a second, longer try, so losing a core for a moment is not "not checked"', () => {
    const pattern = guardedRegExpEngine({ firstMs: 1, retryMs: 60_000 })(risky, '');
    expect(withPatternGuard(() => pattern.test(slowButFinite))).toEqual({ value: false, timedOut: false });
    expect(withPatternGuard(() => pattern.test('aaaa'))).toEqual({ value: true, timedOut: false });
  });

  it('counts a match that runs out of both limits as a match that timed out, and gives that pattern one try from then on', () => {
    const pattern = guardedRegExpEngine({ firstMs: 1, retryMs: 300 })(risky, '');
    expect(withPatternGuard(() => pattern.test(endless))).toEqual({ value: true, timedOut: true });
    // Its second try (300 ms) would finish this one; a pattern found slow for real gets none.
    expect(withPatternGuard(() => pattern.test(slowButFinite))).toEqual({ value: true, timedOut: true });
  });

  it('runs a pattern without nested quantifiers as it is', () => {
    const pattern = guardedRegExpEngine({ firstMs: 1, retryMs: 1 })('^a+$', '');
    expect(pattern).toBeInstanceOf(RegExp);
  });
});
