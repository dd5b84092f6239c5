import { describe, expect, it } from 'vitest';
import { cutBelow, MAX_JSON_DEPTH, nestsDeeperThan, valueNestsDeeperThan } from '../../src/core/json-depth.js';

const bytes = (text: string) => Buffer.from(text);

describe('nestsDeeperThan', () => {
  it('counts arrays and objects, and only past the limit', () => {
    const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
    expect(nestsDeeperThan(bytes(nested(10)), 10)).toBe(false);
    expect(nestsDeeperThan(bytes(nested(11)), 10)).toBe(true);
    expect(nestsDeeperThan(bytes('{"a":'.repeat(11) + '1' + '}'.repeat(11)), 10)).toBe(true);
    // Siblings do not add up.
    expect(nestsDeeperThan(bytes('[' + '[[]],'.repeat(100) + '[]]'), 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const inString = JSON.stringify({ s: '[[[[[[[[[[[[{{{{{{{{{{"\\"[[[[[[[[' });
    expect(nestsDeeperThan(bytes(inString), 2)).toBe(false);
    expect(nestsDeeperThan(bytes(`[${inString},[[[]]]]`), 3)).toBe(true);
  });

  it('does not scan text too short to be that deep', () => {
    expect(nestsDeeperThan(bytes('[[[[[['), 3)).toBe(false);
  });
});

describe('nestsDeeperThan on text', () => {
  it('counts as it does on bytes, strings with escapes included', () => {
    const cases = ['[[[]]]', '{"a":{"b":[1]}}', JSON.stringify({ s: '[[[[{{{{"\\\\"[[[[' }), `[${JSON.stringify({ s: 'a\\"[[' })},[[[]]]]`, '"unterminated [[[['];
    for (const text of cases) for (const max of [1, 2, 3]) expect(nestsDeeperThan(text, max), `${text} > ${max}`).toBe(nestsDeeperThan(bytes(text), max));
  });
});

describe('valueNestsDeeperThan', () => {
  it('counts arrays and objects of a parsed value', () => {
    expect(valueNestsDeeperThan(JSON.parse('[[[]]]'), 3)).toBe(false);
    expect(valueNestsDeeperThan(JSON.parse('[[[]]]'), 2)).toBe(true);
    expect(valueNestsDeeperThan({ a: [1, { b: {} }] }, 4)).toBe(false);
    expect(valueNestsDeeperThan({ a: [1, { b: {} }] }, 3)).toBe(true);
    expect(valueNestsDeeperThan('[[[[', 0)).toBe(false);
    expect(valueNestsDeeperThan(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)), MAX_JSON_DEPTH)).toBe(true);
  });
});

describe('cutBelow', () => {
  it('keeps the top levels and puts null where deeper arrays and objects were', () => {
    expect(cutBelow({ a: { b: { c: 1 } }, d: [1, [2]], e: 'x' }, 2)).toEqual({ a: { b: null }, d: [1, null], e: 'x' });
    expect(cutBelow([[[]]], 3)).toEqual([[[]]]);
    expect(cutBelow('x', 1)).toBe('x');
    const deep: unknown = JSON.parse('{"id":7,"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}');
    const cut = cutBelow(deep, MAX_JSON_DEPTH) as { id: number };
    expect(cut.id).toBe(7);
    expect(valueNestsDeeperThan(cut, MAX_JSON_DEPTH)).toBe(false);
    expect(valueNestsDeeperThan(cut, MAX_JSON_DEPTH - 1)).toBe(true);
  });
});
