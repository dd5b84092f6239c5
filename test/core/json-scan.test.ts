import { describe, expect, it } from 'vitest';
import { stringLiteralEnd } from '../../src/core/json-scan.js';

describe('stringLiteralEnd', () => {
  it('ends just after the closing quote', () => {
    expect(stringLiteralEnd('""', 0)).toBe(2);
    expect(stringLiteralEnd('{"key":1}', 1)).toBe(6);
    expect(stringLiteralEnd('["a","b"]', 5)).toBe(8);
  });

  it('passes over escaped quotes, and stops at a quote after an escaped backslash', () => {
    const escapedQuote = String.raw`"say \"hi\"" tail`;
    expect(stringLiteralEnd(escapedQuote, 0)).toBe(escapedQuote.indexOf(' tail'));
    const escapedBackslash = String.raw`"dir\\" "next"`;
    expect(stringLiteralEnd(escapedBackslash, 0)).toBe(7);
    const threeBackslashes = String.raw`"a\\\"b" x`;
    expect(stringLiteralEnd(threeBackslashes, 0)).toBe(threeBackslashes.indexOf(' x'));
  });

  it('is -1 when the text ends inside the literal', () => {
    expect(stringLiteralEnd('"open', 0)).toBe(-1);
    expect(stringLiteralEnd(String.raw`"cut \"`, 0)).toBe(-1);
    expect(stringLiteralEnd('"', 0)).toBe(-1);
  });
});
