/**
 * What building and packing leave in the checkout is ignored by git, so that a tarball from
 * `npm pack` (or dist/) is never committed by accident.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';

/** The paths of `paths` that git would ignore in this checkout (they need not exist). */
function ignored(paths: string[]): string[] {
  const run = spawnSync('git', ['check-ignore', '--no-index', ...paths], { cwd: REPO, encoding: 'utf8' });
  expect(run.status === 0 || run.status === 1, run.stderr).toBe(true);
  return run.stdout.split('\n').filter((line) => line !== '');
}

describe('.gitignore', () => {
  it("ignores npm pack's tarball and the build, and not the sources or the example recordings", () => {
    expect(ignored(['agent-proxy-0.1.0.tgz', 'dist/index.js', 'recordings/run.db'])).toEqual(['agent-proxy-0.1.0.tgz', 'dist/index.js', 'recordings/run.db']);
    expect(ignored(['src/index.ts', 'schemas/dashboard-api.schema.json', 'recordings/examples/pi-daemon-session.ndjson'])).toEqual([]);
  });
});
