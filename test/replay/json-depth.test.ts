import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../src/core/json-depth.js';

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
