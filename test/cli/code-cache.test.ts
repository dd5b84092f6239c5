/**
 * bin/code-cache.js: the CLI's own files are compiled with a V8 code cache written after a run that found no
 * usable entry (at its exit, so it holds the functions the run compiled) and used by the next runs. The cache
 * never changes an answer and never breaks a run: a folder it cannot make, a folder another user could write,
 * a damaged, truncated or foreign entry, two runs writing at once, NODE_DISABLE_COMPILE_CACHE=1. What it did
 * is read from the lines AGENT_PROXY_CODE_CACHE_REPORT=1 prints at exit (`<status> <file>`). It is on with every
 * Node (on 22 and later beside Node's own compile cache, which keeps the other modules).
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, REPO, runCli, runNodeToEnd, type CliResult } from './run-cli.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { within } from '../support/waits.js';

useCleanups();

const VALIDATE = ['validate', 'examples/agui-text-run.sse'];
const FOLDER = `agent-proxy-code-cache-${process.getuid?.() ?? ''}`.replace(/-$/, '');

/** A run of `args` with its cache in `cacheDir` and its report on: the answer, and the report's lines as [status, file]. */
async function reported(args: string[], cacheDir: string, env: NodeJS.ProcessEnv = {}): Promise<{ run: CliResult; lines: [string, string][] }> {
  const run = await runCli(args, { env: { NODE_COMPILE_CACHE: cacheDir, AGENT_PROXY_CODE_CACHE_REPORT: '1', ...env } });
  return { run, lines: reportOf(run.stderr) };
}

function reportOf(stderr: string): [string, string][] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('code cache: '))
    .map((line) => {
      const [, status, file] = /^code cache: (not written|\w+) (.+)$/.exec(line)!;
      return [status!, file!];
    });
}

/** The statuses a run reported at load (before the `written` lines). */
const loadStatuses = (lines: [string, string][]) => lines.filter(([status]) => !/written/.test(status)).map(([status]) => status);

/** The entries in the cache's folder under `cacheDir`. */
const entriesIn = (cacheDir: string) => readdirSync(join(cacheDir, FOLDER)).map((name) => join(cacheDir, FOLDER, name));

/** An entry's parts: its key (5 lines), its CRC line, V8's data. */
function entryParts(bytes: Buffer): { key: Buffer; data: Buffer } {
  let at = 0;
  for (let line = 0; line < 5; line++) at = bytes.indexOf(10, at) + 1;
  return { key: bytes.subarray(0, at), data: bytes.subarray(at + 9) };
}

describe('the code cache of the CLI', () => {
  let scratch: TempDir;
  let plain: CliResult;
  beforeAll(async () => {
    scratch = tempDir();
    plain = await runCli(VALIDATE, { env: { NODE_DISABLE_COMPILE_CACHE: '1' } });
    expect(plain).toMatchObject({ code: 0, stderr: '' });
  });
  afterAll(() => scratch.cleanup());

  it('is written by a run that found none, used by the next, and changes no answer', async () => {
    const cache = scratch.file('written');
    const first = await reported(VALIDATE, cache);
    expect(first.run.stdout).toBe(plain.stdout);
    expect(new Set(loadStatuses(first.lines))).toEqual(new Set(['missing']));
    // The bundle's chunks of validate's build and the compiled validators, each written.
    const files = first.lines.filter(([status]) => status === 'written').map(([, file]) => file);
    expect(files.some((file) => file.includes('/dist/bundle-validate/'))).toBe(true);
    expect(files.some((file) => file.includes('/dist/schema/compiled/'))).toBe(true);
    expect(entriesIn(cache)).toHaveLength(files.length);

    const second = await reported(VALIDATE, cache);
    expect(second.run.stdout).toBe(plain.stdout);
    expect(second.run.code).toBe(plain.code);
    expect(second.lines).toEqual(files.map((file) => ['accepted', file]));
  });

  it('is private: the folder is made 0700, an entry 0600, and a folder others may write is not used', async () => {
    const cache = scratch.file('private');
    await reported(VALIDATE, cache);
    if (process.platform === 'win32') return;
    const { statSync } = await import('node:fs');
    expect(statSync(join(cache, FOLDER)).mode & 0o777).toBe(0o700);
    for (const entry of entriesIn(cache)) expect(statSync(entry).mode & 0o777).toBe(0o600);

    const open = scratch.file('open');
    mkdirSync(join(open, FOLDER), { recursive: true });
    chmodSync(join(open, FOLDER), 0o777);
    const run = await reported(VALIDATE, open);
    expect(run.run).toEqual({ ...plain, stderr: '' });
    expect(readdirSync(join(open, FOLDER))).toEqual([]);
  });

  it('is left out, silently, when its folder cannot be made (NODE_COMPILE_CACHE names a file)', async () => {
    const file = scratch.file('a-file');
    writeFileSync(file, 'not a folder\n');
    const run = await reported(VALIDATE, file);
    expect(run.run).toEqual({ ...plain, stderr: '' });
  });

  it('is neither read nor written with NODE_DISABLE_COMPILE_CACHE=1', async () => {
    const cache = scratch.file('disabled');
    const run = await reported(VALIDATE, cache, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(run.run).toEqual({ ...plain, stderr: '' });
    expect(existsSync(cache)).toBe(false);
  });

  it('takes a damaged or truncated entry for none, and writes it again', async () => {
    const cache = scratch.file('damaged');
    await reported(VALIDATE, cache);
    const entries = entriesIn(cache);
    entries.forEach((entry, i) => {
      const bytes = readFileSync(entry);
      if (i % 2 === 0) {
        // A byte of V8's data flipped: V8 itself would take it.
        const { key, data } = entryParts(bytes);
        const middle = data.length >> 1;
        data[middle] = data[middle]! ^ 0xff;
        writeFileSync(entry, Buffer.concat([key, bytes.subarray(key.length, key.length + 9), data]));
      } else {
        writeFileSync(entry, bytes.subarray(0, bytes.length >> 1));
      }
    });
    const damaged = await reported(VALIDATE, cache);
    expect(damaged.run.stdout).toBe(plain.stdout);
    expect(loadStatuses(damaged.lines)).toEqual(entries.map(() => 'stale'));
    expect(damaged.lines.filter(([status]) => status === 'written')).toHaveLength(entries.length);
    const again = await reported(VALIDATE, cache);
    expect(new Set(loadStatuses(again.lines))).toEqual(new Set(['accepted']));
  });

  it("writes again an entry V8 rejects (another file's code under a matching key)", async () => {
    const cache = scratch.file('foreign');
    await reported(VALIDATE, cache);
    const entries = entriesIn(cache);
    const biggest = [...entries].sort((a, b) => readFileSync(b).length - readFileSync(a).length);
    // The first entry's key with the second's data, and a CRC that matches it: only V8 can tell.
    const { key } = entryParts(readFileSync(biggest[0]!));
    const { data } = entryParts(readFileSync(biggest[1]!));
    writeFileSync(biggest[0]!, Buffer.concat([key, Buffer.from(`${crc32(data).toString(16).padStart(8, '0')}\n`), data]));
    const rejected = await reported(VALIDATE, cache);
    expect(rejected.run.stdout).toBe(plain.stdout);
    expect(rejected.lines.filter(([status]) => status === 'rejected')).toHaveLength(1);
    expect(rejected.lines.filter(([status]) => status === 'written')).toHaveLength(1);
    const again = await reported(VALIDATE, cache);
    expect(new Set(loadStatuses(again.lines))).toEqual(new Set(['accepted']));
  });

  it('survives two runs writing the same entries at once: whole entries, no leftovers', async () => {
    const cache = scratch.file('concurrent');
    const pair = await Promise.all([reported(VALIDATE, cache), reported(VALIDATE, cache)]);
    for (const { run } of pair) expect(run.stdout).toBe(plain.stdout);
    expect(entriesIn(cache).filter((entry) => entry.endsWith('.tmp'))).toEqual([]);
    const next = await reported(VALIDATE, cache);
    expect(new Set(loadStatuses(next.lines))).toEqual(new Set(['accepted']));
  });

  it('removes the temporary entries of writers that are gone (killed while writing), not those of a running one', async () => {
    const cache = scratch.file('leftovers');
    const folder = join(cache, FOLDER);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    // A pid no process has any more: a child's, once it has exited (and been reaped).
    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => gone.once('exit', resolve));
    const leftover = join(folder, `0123abcd.main.${gone.pid}.tmp`);
    const running = join(folder, `0123abcd.main.${process.pid}.tmp`);
    writeFileSync(leftover, 'half an entry');
    writeFileSync(running, 'an entry being written');
    const first = await reported(VALIDATE, cache);
    expect(first.run.stdout).toBe(plain.stdout);
    expect(first.lines.some(([status]) => status === 'written')).toBe(true);
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(running)).toBe(true);
  });

  it("loads AG-UI's protobuf codec from a cached chunk, without a warning (the bundle requires it: a cached vm.Script loses import()'s loader on Node 20)", async () => {
    const cache = scratch.file('protobuf');
    const catalog = readdirSync(join(REPO, 'dist/bundle')).find((name) => /^catalog-[\w-]{8}\.cjs$/.test(name))!;
    const probe = `
      require(${JSON.stringify(join(REPO, 'bin/code-cache.js'))}).enableCodeCache();
      const binding = require(${JSON.stringify(join(REPO, 'dist/bundle', catalog))}).bindingOfChannel('proto');
      binding.load().then(() => {
        const frame = binding.encodeFrame({ type: 'RUN_STARTED', threadId: 't1', runId: 'r1' });
        console.log(JSON.stringify(binding.decode(frame.subarray(4))));
      });
    `;
    const env = cliEnv({ NODE_COMPILE_CACHE: cache, AGENT_PROXY_CODE_CACHE_REPORT: '1' });
    const runs = [];
    for (let i = 0; i < 2; i++) runs.push(await runNodeToEnd(['-e', probe], env));
    const [first, second] = runs as [CliResult, CliResult];
    expect(JSON.parse(first.stdout)).toEqual({ value: { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' } });
    expect(second.stdout).toBe(first.stdout);
    expect(reportOf(first.stderr).find(([, file]) => file.endsWith(catalog))?.[0]).toBe('missing');
    expect(reportOf(second.stderr).find(([, file]) => file.endsWith(catalog))?.[0]).toBe('accepted');
    // Nothing on stderr but the report: no warning, no error.
    for (const run of runs) expect(run.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('code cache: '))).toEqual([]);
  });

  it('writes no entry for a file changed after the process started (Node read its text before the stat the key is made of)', async () => {
    const cache = scratch.file('changed');
    // A package of its own (bin/code-cache.js caches the dist/ beside its bin/): a file of dist/ written before
    // the run and one written during it, after the process started.
    const root = scratch.file('changed-package');
    mkdirSync(join(root, 'bin'), { recursive: true });
    mkdirSync(join(root, 'dist'));
    copyFileSync(join(REPO, 'bin/code-cache.js'), join(root, 'bin/code-cache.js'));
    const before = join(root, 'dist/before.cjs');
    const during = join(root, 'dist/during.cjs');
    writeFileSync(before, 'module.exports = () => 1;\n');
    const probe = `
      require(${JSON.stringify(join(root, 'bin/code-cache.js'))}).enableCodeCache();
      require('node:fs').writeFileSync(${JSON.stringify(during)}, 'module.exports = () => 2;\\n');
      console.log(require(${JSON.stringify(before)})() + require(${JSON.stringify(during)})());
    `;
    const run = await runNodeToEnd(['-e', probe], cliEnv({ NODE_COMPILE_CACHE: cache, AGENT_PROXY_CODE_CACHE_REPORT: '1' }));
    expect(run).toMatchObject({ code: 0, stdout: '3\n' });
    const written = reportOf(run.stderr).filter(([status]) => status === 'written').map(([, file]) => file);
    expect(written).toEqual([before]);
  });

  it('is written by a replay ended by SIGINT, as users and the bench stop it', async () => {
    const cache = scratch.file('replay');
    const child = spawn(process.execPath, [BIN, 'replay', join(REPO, 'recordings/examples/agui-sse-run.ndjson'), '--listen', '0', '--quiet'], {
      cwd: REPO,
      env: cliEnv({ NODE_COMPILE_CACHE: cache, AGENT_PROXY_CODE_CACHE_REPORT: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onCleanup(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = new Promise((resolve) => child.on('close', resolve));
    await within(
      new Promise<void>((resolve) =>
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          if (stdout.includes('listening on ')) resolve();
        }),
      ),
      'the replay to listen',
    );
    child.kill('SIGINT');
    expect(await within(closed, 'the replay to exit')).toBe(0);
    const written = reportOf(stderr).filter(([status]) => status === 'written');
    expect(written.some(([, file]) => file.includes('/dist/bundle-replay/'))).toBe(true);
    expect(entriesIn(cache)).toHaveLength(written.length);
  });
});
