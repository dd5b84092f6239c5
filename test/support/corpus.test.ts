/**
 * The rule that keeps `npm test` green in a clone without ../shared: only test/conformance/ reads
 * the third-party corpus, and each of its files skips statically (describeWithCorpus), so a hook
 * that fails still fails its tests instead of hiding them as skipped.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR, conformanceFiles, corpusSkipNotice } from './corpus.js';

const TEST_DIR = fileURLToPath(new URL('..', import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : /\.(ts|mjs|js)$/.test(name) ? [path] : [];
  });
}

/** Calls and paths that read ../shared. */
const READS_CORPUS = /\b(sharedPath|readSharedJson|fullRegistry|corpusJson|corpusDir)\(|['"`](\.\.\/)+shared\//;

describe('the corpus conformance group', () => {
  it('is the only place that reads ../shared', () => {
    const readers = filesUnder(TEST_DIR)
      .filter((path) => !path.startsWith(CONFORMANCE_DIR) && !path.endsWith(join('support', 'shared.ts')) && path !== fileURLToPath(import.meta.url))
      .filter((path) => READS_CORPUS.test(readFileSync(path, 'utf8')))
      .map((path) => relative(TEST_DIR, path));
    expect(readers).toEqual([]);
  });

  it('skips each of its files statically: describeWithCorpus only, imported first', () => {
    const files = conformanceFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      const text = readFileSync(join(CONFORMANCE_DIR, name), 'utf8');
      expect(text.split('\n')[0], name).toMatch(/^import \{ describeWithCorpus\b.*\} from '\.\.\/support\/shared\.js';$/);
      expect(text, name).toMatch(/^describeWithCorpus\(/m);
      // A bare describe (or a skip decided in a hook) would run without the corpus, or hide a failure.
      expect(text, name).not.toMatch(/^\s*describe(\.\w+)?\(|\b(ctx|context)\.skip\(/m);
    }
  });

  it('is announced in one line when the corpus is absent', () => {
    const notice = corpusSkipNotice(3);
    expect(notice.split('\n')).toHaveLength(1);
    expect(notice).toMatch(/^agent-proxy: \.\.\/shared \(the third-party corpus\) not found at .+: skipping the 3 corpus conformance files in test\/conformance\/; CI runs them$/);
    expect(corpusSkipNotice(1)).toContain('skipping the 1 corpus conformance file in');
  });
});
