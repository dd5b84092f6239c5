/**
 * vitest global setup: in a checkout without ../shared, says once, in one line, which tests are
 * skipped and why. The skip itself is decided statically in each file (describeWithCorpus), never
 * by a hook's outcome, so a hook that fails still fails its tests. Where the corpus must be there
 * (CI sets AGENT_PROXY_REQUIRE_CORPUS=1), its absence fails the run instead of skipping.
 */
import { HAS_SHARED_CORPUS, corpusSkipNotice, SHARED_DIR } from './corpus.js';

export default function setup(): void {
  if (HAS_SHARED_CORPUS) return;
  if (process.env.AGENT_PROXY_REQUIRE_CORPUS === '1') {
    throw new Error(`agent-proxy: AGENT_PROXY_REQUIRE_CORPUS=1 but ../shared (the third-party corpus) is not at ${SHARED_DIR}`);
  }
  process.stdout.write(`${corpusSkipNotice()}\n`);
}
