import { describe, expect, it } from 'vitest';
import { PathGlob } from '../../src/replay/fault/path-glob.js';

/** The meaning the matcher must keep: the regular expression a pattern used to become. */
function reference(pattern: string): RegExp {
  const source = pattern
    .split(/(\*\*|\*)/)
    .map((piece) => (piece === '**' ? '.*' : piece === '*' ? '[^/]*' : piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

describe('PathGlob', () => {
  it.each([
    ['/agent', '/agent', true],
    ['/agent', '/agent/', false],
    ['/v1/sessions/*', '/v1/sessions/a', true],
    ['/v1/sessions/*', '/v1/sessions/a/b', false],
    ['/v1/sessions/*', '/v1/sessions/', true],
    ['/v1/**', '/v1/sessions/a/b', true],
    ['/v1/**', '/v2/sessions', false],
    ['/**/end', '/a/b/c/end', true],
    ['/**/end', '/end', false],
    ['/*/end', '/a/b/end', false],
    ['/a.b', '/aXb', false],
    ['/a.b', '/a.b', true],
    ['/***', '/x/y', true],
    ['/*', '/x/y', false],
  ])('%s against %s: %s', (pattern, path, expected) => {
    expect(new PathGlob(pattern).test(path)).toBe(expected);
    expect(reference(pattern).test(path)).toBe(expected);
  });

  it('agrees with the regular expression on every pattern and path of a small alphabet', () => {
    // Every pattern of up to 5 pieces over {/, a, *} against every path of up to 6 characters over {/, a, b}.
    const patterns = words(['/', 'a', '*'], 5);
    const paths = words(['/', 'a', 'b'], 6);
    let compared = 0;
    for (const pattern of patterns) {
      const glob = new PathGlob(pattern);
      const regex = reference(pattern);
      for (const path of paths) {
        if (glob.test(path) !== regex.test(path)) throw new Error(`${pattern} against ${path}: ${glob.test(path)}`);
        compared++;
      }
    }
    expect(compared).toBe(patterns.length * paths.length);
  });

  it('matches ten ** against a path of 10,000 segments without backtracking', () => {
    // As a regular expression this pattern takes exponential time on a path that does not end in /end;
    // here it is one pass over the path per pattern element. The test's own timeout is the guard.
    const pattern = '/' + Array.from({ length: 10 }, () => '**').join('/') + '/end';
    const glob = new PathGlob(pattern);
    const path = '/' + Array.from({ length: 10_000 }, (_, i) => `s${i}`).join('/');
    expect(glob.test(path)).toBe(false);
    expect(glob.test(path + '/end')).toBe(true);
    expect(new PathGlob('/**/**/**/end').test('/' + 'x/'.repeat(4096))).toBe(false);
  });
});

function words(alphabet: readonly string[], maxLength: number): string[] {
  const out = [''];
  let layer = [''];
  for (let length = 1; length <= maxLength; length++) {
    layer = layer.flatMap((word) => alphabet.map((letter) => word + letter));
    out.push(...layer);
  }
  return out;
}
