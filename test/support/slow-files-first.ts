/**
 * The order vitest starts test files in (vitest.config.ts): the files known to take longest first,
 * then the rest as vitest orders them (by the durations it cached in an earlier run, else by file
 * size, largest first). On a fresh clone, as in CI, vitest has no durations and goes by size, which
 * started git-install.test.ts, one of the longest (it builds the package once more), 232nd of 271:
 * the run then ended on it with the other core idle. The list is from a profile of the whole suite
 * (`vitest run --reporter=json`, per-file durations; docs/development.md); a file missing from it,
 * or listed and gone, only changes the order.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first. */
export const SLOW_FILES = [
  'test/hostile/deep-json.test.ts',
  'test/package/git-install.test.ts',
  // ~120–170 s of wall time alone where /usr/bin/chromium is installed (skipped where it is not).
  'test/ui/inspector-browser.test.ts',
  'test/hostile/recorder-memory.test.ts',
  'test/schema/compiled-validators.test.ts',
  'test/stdio/stdio-diff-roundtrip.test.ts',
  'test/record/recording-sink.test.ts',
  'test/hostile/full-disk.test.ts',
  'test/ndjson/ndjson.test.ts',
  'test/stdio/stdio-record.test.ts',
  'test/record/held-burst.test.ts',
  'test/fixture/fixture-cli.test.ts',
  'test/hostile/upstream-responses.test.ts',
  'test/hostile/secrets.test.ts',
  'test/cli/exchange-summary.test.ts',
  'test/package/packed-install.test.ts',
  'test/cli/file-writers.test.ts',
  'test/diff/diff-worker.test.ts',
  // Shorter since their CLI runs go through one batch (test/cli/cli-batch.ts): measured again, not profiled in a whole run.
  'test/hostile/foreign-files.test.ts',
  'test/cli/error-lines.test.ts',
];

export class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = SLOW_FILES.indexOf(relative(spec.project.config.root, spec.moduleId).split('\\').join('/'));
      return at < 0 ? SLOW_FILES.length : at;
    };
    // Array.prototype.sort is stable: the files not listed keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
