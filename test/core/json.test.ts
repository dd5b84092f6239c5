import { describe, expect, it } from 'vitest';
import { isJsonObject, tryParseJson } from '../../src/core/json.js';

describe('isJsonObject', () => {
  it('accepts objects, whatever their prototype', () => {
    expect(isJsonObject({})).toBe(true);
    expect(isJsonObject({ type: 'RUN_STARTED' })).toBe(true);
    expect(isJsonObject(JSON.parse('{"a":[1]}'))).toBe(true);
    expect(isJsonObject(Object.create(null))).toBe(true);
  });

  it('refuses null, arrays and every other JSON value', () => {
    for (const value of [null, undefined, [], [{}], JSON.parse('[1,2]'), 'x', '', 0, 1.5, true, false]) {
      expect(isJsonObject(value), JSON.stringify(value) ?? 'undefined').toBe(false);
    }
  });
});

describe('tryParseJson', () => {
  it('gives the value of any JSON text, null and falsy values included', () => {
    expect(tryParseJson('{"a":[1,{"b":null}]}')).toEqual({ a: [1, { b: null }] });
    expect(tryParseJson(' null ')).toBeNull();
    expect(tryParseJson('0')).toBe(0);
    expect(tryParseJson('false')).toBe(false);
    expect(tryParseJson('""')).toBe('');
  });

  it('is undefined for text that is not JSON, cut off or empty', () => {
    for (const text of ['', ' ', '{', '{"a":1', "{'a':1}", 'undefined', 'data: {}', '[1,]']) expect(tryParseJson(text), text).toBeUndefined();
  });
});
