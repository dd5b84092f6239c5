import { describe, expect, it } from 'vitest';
import { numberText, writeNumberText } from '../../src/export/ascii-number.js';

const chunk = Buffer.alloc(64);

/** What writeNumberText writes, as text, with what is around it: nothing is written before the place given, nor past the end it says. */
function written(x: number): string {
  chunk.fill(0x7e);
  const end = writeNumberText(chunk, 3, x);
  return chunk.toString('latin1', 0, end + 1);
}

/** A few numbers drawn from a seeded generator (the same every run). */
function* seeded(count: number): IterableIterator<number> {
  let state = 0x2545f491;
  for (let i = 0; i < count; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    yield (state >>> 0) / 2 ** 32;
  }
}

describe('a number written as ASCII bytes', () => {
  it('writes what JSON.stringify writes, for integers, offsets in ms to the µs and any other number', () => {
    const special = [0, -0, 1, -1, 9, 10, 99, 100, 0.001, -0.001, 0.01, 0.1, 0.5, 0.999, 1.5, 10.25, 318.363, 1111.917, 2554.067, 1e12 - 0.001, 1e12, 1e12 + 0.5, 2 ** 53, 2 ** 53 + 2, -(2 ** 31), 123456789.123, 1e21, 1e-7, 0.0005, 0.0015, 1.0005, 5e-324, Number.MAX_VALUE, NaN, Infinity, -Infinity, 0.1 + 0.2];
    for (const x of special) expect(written(x), String(x)).toBe(`~~~${numberText(x)}~`);
    expect(numberText(NaN)).toBe('null');
    expect(numberText(-0)).toBe('0');
    const differ: string[] = [];
    for (const r of seeded(20_000)) {
      const k = Math.floor(r * 1e9);
      // An offset in ms to the µs (as the recorder stores them), an integer, a double of any digits, both signs.
      for (const x of [k / 1000, -k / 1000, k, (r * 1e6) / 7, r * 1e13, r * 1e-3, k / 100, k / 10_000]) if (written(x) !== `~~~${x}~`) differ.push(`${x}: ${written(x)}`);
    }
    expect(differ).toEqual([]);
  });
});
