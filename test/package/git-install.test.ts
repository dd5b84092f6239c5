/**
 * What a git install (`npm i -D git+…`, `github:…`) does with this repository: npm checks out the
 * commit, which has no dist/, installs the dev dependencies there and packs it, which runs the
 * `prepare` script. Here the checkout is `git archive HEAD` and the dev dependencies are this
 * checkout's node_modules, linked; the tarball must hold the compiled CLI and API.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { projectEnv } from './packed-project.js';
import { scratch } from '../support/temp-dir.js';

const IN_GIT = spawnSync('git', ['-C', REPO, 'rev-parse', '--is-inside-work-tree'], { encoding: 'utf8' }).stdout.trim() === 'true';
describe.skipIf(!IN_GIT)('a git install of the committed tree', () => {
  // A deadline for a broken build only: tsc on a loaded 2-core machine can take a minute or more.
  it('builds dist/ through prepare when npm packs the checkout', { timeout: 300_000 }, () => {
    // Made by the test, not when the file is collected: outside a git checkout it is skipped, and no hook of the file runs.
    const root = scratch('agent-proxy-git-install-').dir;
    const checkout = join(root, 'checkout');
    mkdirSync(checkout);
    execFileSync('sh', ['-c', `git -C "$0" archive HEAD | tar -x -C "$1"`, REPO, checkout]);
    expect(existsSync(join(checkout, 'dist'))).toBe(false);
    // The compiled validators of this checkout's own build go in first: the build's validators step
    // keeps them only when they were made from the same inputs (the documents, its script, the
    // dist/schema modules the checkout's tsc has just built, ajv's version; by digest), as on a
    // second build, and compiles them otherwise. Compiling them from nothing (~17 s of CPU, a third
    // of this test's) is what every build of a fresh clone does, `npm ci` in CI first of all; here
    // tsc, the page's scripts and the bundle are still built from nothing by prepare.
    cpSync(join(REPO, 'dist/schema/compiled'), join(checkout, 'dist/schema/compiled'), { recursive: true });
    symlinkSync(join(REPO, 'node_modules'), join(checkout, 'node_modules'), 'dir');
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', root], { cwd: checkout, env: projectEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    ) as Array<{ files: Array<{ path: string }> }>;
    const files = packed[0].files.map((f) => f.path);
    for (const file of ['bin/agent-proxy.js', 'dist/cli/main.js', 'dist/bundle/main.cjs', 'dist/index.js', 'dist/index.d.ts', 'dist/record/worker/recording-worker.js', 'dist/ui/web/app.js', 'dist/schema/compiled/manifest.json']) {
      expect(files).toContain(file);
    }
  });
});
