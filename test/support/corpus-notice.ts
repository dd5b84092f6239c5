/**
 * vitest global setup: in a checkout without ../shared, says once, in one line, which tests are
 * skipped and why. The skip itself is decided statically in each file (describeWithCorpus), never
 * by a hook's outcome, so a hook that fails still fails its tests.
 */
import { HAS_SHARED_CORPUS, corpusSkipNotice } from './corpus.js';

export default function setup(): void {
  if (!HAS_SHARED_CORPUS) process.stdout.write(`${corpusSkipNotice()}\n`);
}
