import { describe, expect, it } from 'vitest';
import { compactJson, stringifyJson } from '../../src/core/json-text.js';

const LEVELS = 100_000;

describe('stringifyJson', () => {
  it('writes what JSON.stringify writes', () => {
    const values: unknown[] = [
      null,
      true,
      -0.5e-7,
      'a "quoted"\n\u2028 line',
      [],
      {},
      [1, undefined, () => 1, { a: undefined, b: [null] }],
      { '': 0, 'k"ey': { nested: ['x', { y: 1 }] }, skipped: undefined, when: new Date(0) },
    ];
    for (const value of values) expect(stringifyJson(value)).toBe(JSON.stringify(value));
    expect(stringifyJson(undefined)).toBeUndefined();
  });

  it('writes values nested far deeper than JSON.stringify can go, with the same output', () => {
    const array = '['.repeat(LEVELS) + '1,"]"' + ']'.repeat(LEVELS);
    const object = '{"a":'.repeat(LEVELS) + '{},"b":[]' + '}'.repeat(LEVELS);
    for (const text of [array, object]) {
      const value: unknown = JSON.parse(text);
      expect(() => JSON.stringify(value)).toThrow(RangeError);
      expect(stringifyJson(value) === text).toBe(true);
    }
    // Inside a shallow value, e.g. the line of an export.
    const line = { type: 'message', json: JSON.parse(array) as unknown, skipped: undefined, verdict: { status: 'unchecked' } };
    expect(stringifyJson(line) === `{"type":"message","json":${array},"verdict":{"status":"unchecked"}}`).toBe(true);
  });

  it('lets errors other than the stack overflow through', () => {
    expect(() => stringifyJson({ n: 1n })).toThrow(TypeError);
  });
});

describe('compactJson', () => {
  it('writes a JSON text as JSON.stringify would, at any depth', () => {
    expect(compactJson(' { "a" : [ 1.0 , "\\u0041" ] } ')).toBe('{"a":[1,"A"]}');
    const spaced = '[ '.repeat(LEVELS) + ']'.repeat(LEVELS);
    expect(compactJson(spaced) === '['.repeat(LEVELS) + ']'.repeat(LEVELS)).toBe(true);
  });
});
