/**
 * `replay` and `validate` run from builds of their own (dist/bundle-<command>/, scripts/bundle-cli.mjs),
 * which bin/agent-proxy.js loads when that command is named: the same modules as the build of every
 * command, in a few files instead of the ~60 and ~30 that build splits them into. Each is held here to
 * running from its own build alone, in those few files, without what its command does not need, and to
 * answering exactly as the build of every command does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli, spawnCli, type CliProcess } from './run-cli.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { within } from '../support/waits.js';

useCleanups();

const SSE_FILE = join(REPO, 'examples/agui-text-run.sse');
const NDJSON_RECORDING = join(REPO, 'recordings/examples/agui-sse-run.ndjson');

/** A preload that lists, as the process exits, every file require() loaded, one `loaded <path>` line each on stderr. */
function listingPreload(): string {
  const file = scratch('one-command-preload-').file('list-loaded.cjs');
  writeFileSync(file, `process.on('exit', () => { for (const f of Object.keys(require.cache)) require('node:fs').writeSync(2, 'loaded ' + f + '\\n'); });\n`);
  return file;
}

/** A bin script that runs the build of every command whatever the command, as bin/agent-proxy.js did before. */
function everyCommandBin(): string {
  const file = scratch('one-command-bin-').file('every-command.cjs');
  writeFileSync(file, `require(${JSON.stringify(join(REPO, 'dist/bundle/main.cjs'))}).main(process.argv).then((code) => { process.exitCode = code; });\n`);
  return file;
}

/** The files of the CLI's builds among `stderr`'s `loaded` lines, relative to dist/. */
function bundleFilesLoaded(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('loaded ') && l.includes('/dist/bundle'))
    .map((l) => l.slice(l.indexOf('/dist/') + '/dist/'.length));
}

/** The modules of dist/ that the loaded files of a build hold (each chunk names its modules in a `// dist/<module>` line). */
function modulesHeld(files: string[]): string[] {
  return files.flatMap((f) => [...readFileSync(join(REPO, 'dist', f), 'utf8').matchAll(/^\/\/ dist\/(\S+\.js)$/gm)].map((m) => m[1]));
}

/** The recorded run's first request, as the example recording holds it. */
function firstRequestBody(): string {
  const row = readFileSync(NDJSON_RECORDING, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type?: string; exchange?: number; sender?: string; raw?: string; rawJson?: unknown })
    .find((r) => r.type === 'message' && r.exchange === 1 && r.sender === 'client');
  return row!.raw ?? JSON.stringify(row!.rawJson);
}

/** `replay` of `db` through `bin`, one request answered, then SIGINT: its answer, exit code and output. */
async function replayOnce(db: string, bin: string | undefined, env: NodeJS.ProcessEnv = {}) {
  const cli: CliProcess = spawnCli(['replay', db, '--listen', '0', '--timing', 'none', '--quiet'], env, undefined, bin === undefined ? {} : { bin });
  onCleanup(() => {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
  });
  const url = /listening on (\S+)/.exec(await cli.waitForLine(/listening on /))![1];
  const response = await within(fetch(`${url}/agent`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: firstRequestBody() }), 'the replay to answer');
  const answer = { status: response.status, type: response.headers.get('content-type'), body: await within(response.text(), 'the answer to end') };
  cli.child.kill('SIGINT');
  const { code } = await cli.exited;
  return { answer, code, stdout: cli.stdout().replaceAll(url, '<url>'), stderr: cli.stderr() };
}

describe('the one-command builds', () => {
  it('validates from the build of validate alone, in a few files, and reports as the build of every command does', async () => {
    const env = { NODE_OPTIONS: `--require ${listingPreload()}` };
    for (const args of [['validate', SSE_FILE], ['validate', SSE_FILE, '--json']]) {
      const own = await runCli(args, { env });
      const every = await runCli(args, { bin: everyCommandBin() });
      expect({ code: own.code, stdout: own.stdout }).toEqual({ code: every.code, stdout: every.stdout });
      expect(own.code).toBe(0);
      const files = bundleFilesLoaded(own.stderr);
      expect(files.filter((f) => !f.startsWith('bundle-validate/'))).toEqual([]);
      expect(own.stderr.split('\n').filter((l) => l.includes('/node_modules/better-sqlite3/'))).toEqual([]);
      // Its program and definition, what it judges with, AG-UI's module.
      expect(files.length).toBeLessThanOrEqual(5);
      const modules = modulesHeld(files);
      expect(modules).toEqual(expect.arrayContaining(['cli/validate-command.js', 'validate/judge-input.js', 'protocols/agui/index.js']));
      // Of the store only what tells a recording by its head, for a plain file; no other command, no other protocol's module.
      expect(modules.filter((m) => /^store\/(?!(file-head|ndjson-format)\.js$)|^cli\/(?!validate-)[\w-]+-command\.js$|^protocols\/(?!agui\/)[\w-]+\/index\.js$|^protocols\/modules\.js$/.test(m))).toEqual([]);
    }
  });

  it('replays from the build of replay alone, in a few files, and answers as the build of every command does', async () => {
    const db = scratch('one-command-replay-').file('run.db');
    const imported = await runCli(['import', NDJSON_RECORDING, '--out', db]);
    expect(imported.code, imported.stderr).toBe(0);
    const own = await replayOnce(db, undefined, { NODE_OPTIONS: `--require ${listingPreload()}` });
    const every = await replayOnce(db, everyCommandBin());
    expect(own.answer.status).toBe(200);
    expect(own.answer.body).toContain('RUN_FINISHED');
    expect({ answer: own.answer, code: own.code, stdout: own.stdout }).toEqual({ answer: every.answer, code: every.code, stdout: every.stdout });
    const files = bundleFilesLoaded(own.stderr);
    expect(files.filter((f) => !f.startsWith('bundle-replay/'))).toEqual([]);
    // Its program and definition, and the HTTP replay's modules with what they import.
    expect(files.length).toBeLessThanOrEqual(5);
    const modules = modulesHeld(files);
    expect(modules).toEqual(expect.arrayContaining(['cli/replay-command.js', 'replay/start-replay.js', 'store/recording-reader.js']));
    // No other command, forward proxy, recorder, NDJSON importer or protocol checker for a .db served over HTTP.
    const unwanted = /^cli\/(?!replay-)[\w-]+-command\.js$|^replay\/forward\/forward-replay-server\.js$|^net\/ca\/(local-ca|leaf-issuer)\.js$|^record\/(?!start-miss-recorder\.js)|^store\/(ndjson-import|recording-writer|open-recording)\.js$|^protocols\/[\w-]+\/index\.js$|^protocols\/modules\.js$/;
    expect(modules.filter((m) => unwanted.test(m))).toEqual([]);
  });
});
