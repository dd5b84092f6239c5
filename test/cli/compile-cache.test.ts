/**
 * bin/agent-proxy.js turns on Node's compile cache where the running Node has it (22.1 and later): the
 * CLI's modules are compiled once and their code reused on the next start. The cache lives where a
 * user expects it (NODE_COMPILE_CACHE, else Node's folder under the OS temp dir), and a folder that
 * cannot be made or written never breaks a run: the CLI runs without it, silently. On Node 20, which
 * has no such cache, these tests are skipped.
 */
import module from 'node:module';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const HAS_COMPILE_CACHE = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const VALIDATE = ['validate', 'examples/agui-text-run.sse'];

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe.runIf(HAS_COMPILE_CACHE)('the compile cache', () => {
  // Made in a hook, not when the file is collected: on Node 20 every test here is skipped, and vitest
  // runs no hook of the file, so an afterAll would never remove it.
  let scratch: TempDir;
  beforeAll(() => void (scratch = tempDir()));
  afterAll(() => scratch.cleanup());

  it("is written to Node's folder under the OS temp dir, and a run that reads it back answers the same", async () => {
    const tmp = scratch.file('tmp');
    mkdirSync(tmp);
    // NODE_COMPILE_CACHE would turn the cache on by itself: without it, only the bin does.
    const env = { TMPDIR: tmp, NODE_COMPILE_CACHE: undefined };
    const first = await runCli(VALIDATE, { env });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(filesUnder(join(tmp, 'node-compile-cache')).length).toBeGreaterThan(0);
    const second = await runCli(VALIDATE, { env });
    expect(second).toEqual(first);
  });

  it('is left out when its folder cannot be made (the temp dir, or NODE_COMPILE_CACHE, names a file): same answer, nothing on stderr', async () => {
    const file = scratch.file('not-a-folder');
    writeFileSync(file, 'a file, not a folder\n');
    const withCache = await runCli(VALIDATE, { env: { NODE_COMPILE_CACHE: scratch.file('other-cache') } });
    expect(withCache).toMatchObject({ code: 0, stderr: '' });
    for (const env of [{ TMPDIR: file, NODE_COMPILE_CACHE: undefined }, { NODE_COMPILE_CACHE: file }]) {
      expect(await runCli(VALIDATE, { env })).toEqual(withCache);
    }
  });

  it('is not written with NODE_DISABLE_COMPILE_CACHE=1', async () => {
    const cache = scratch.file('disabled-cache');
    const run = await runCli(VALIDATE, { env: { NODE_COMPILE_CACHE: cache, NODE_DISABLE_COMPILE_CACHE: '1' } });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(cache)).toBe(false);
  });
});
