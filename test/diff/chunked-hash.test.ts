/**
 * diff/chunked-hash.ts: an exchange's hash is SHA-1 over its parts' UTF-8 bytes, each followed by a NUL,
 * however the parts fall on the scratch buffer's chunks and however hashes interleave on it (under
 * --semantic an exchange's three streams are hashed at once).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ChunkedHash } from '../../src/diff/chunked-hash.js';

const sha1 = (parts: string[]) => createHash('sha1').update(parts.map((p) => `${p}\0`).join('')).digest('base64');

/** Parts of every size around the 64 KiB chunk, one- two- and four-byte UTF-8, and a lone surrogate (written as U+FFFD's bytes). */
function parts(seed: number): string[] {
  const out: string[] = [];
  const kinds = ['a', 'é', '€', '😀', '\uD800', '{"x":1}'];
  for (let i = 0; i < 60; i++) {
    const size = [0, 1, 7, 300, 5_000, 21_845, 21_846, 40_000, 70_000][(i * 7 + seed) % 9];
    out.push(kinds[(i + seed) % kinds.length].repeat(Math.max(1, Math.floor(size / 2))).slice(0, size));
  }
  return out;
}

describe('ChunkedHash', () => {
  it('digests what SHA-1 of the parts, each ended by a NUL, gives', () => {
    for (const seed of [0, 1, 2, 3]) {
      const hash = new ChunkedHash();
      for (const part of parts(seed)) hash.add(part);
      expect(hash.digest()).toBe(sha1(parts(seed)));
    }
    expect(new ChunkedHash().digest()).toBe(sha1([]));
    const one = new ChunkedHash();
    one.add('GET /health');
    expect(one.digest()).toBe(sha1(['GET /health']));
  });

  it('peeks at the digest so far without ending it', () => {
    const all = parts(1);
    const hash = new ChunkedHash();
    all.forEach((part, i) => {
      hash.add(part);
      if (i % 9 === 4) expect(hash.peek()).toBe(sha1(all.slice(0, i + 1)));
    });
    expect(hash.digest()).toBe(sha1(all));
  });

  it('keeps hashes that take turns on the scratch buffer apart', () => {
    const streams = [parts(0), parts(2), ['x', 'y'], []];
    const hashes = streams.map(() => new ChunkedHash());
    const longest = Math.max(...streams.map((s) => s.length));
    for (let i = 0; i < longest; i++) {
      streams.forEach((s, k) => {
        if (i < s.length) hashes[k].add(s[i]);
      });
      if (i === 1) expect(hashes[2].digest()).toBe(sha1(streams[2]));
    }
    expect(hashes[0].digest()).toBe(sha1(streams[0]));
    expect(hashes[3].digest()).toBe(sha1([]));
    expect(hashes[1].digest()).toBe(sha1(streams[1]));
  });
});
