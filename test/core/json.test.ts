import { describe, expect, it } from 'vitest';
import { isJsonObject } from '../../src/core/json.js';

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
