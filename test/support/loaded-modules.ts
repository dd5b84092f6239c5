import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { scratch } from './temp-dir.js';
import { within } from './waits.js';

/**
 * Module hooks that print every module the child loads through import, one URL a line on stderr. The
 * hooks run in a thread of their own: a line written through process.stderr there may never reach the
 * pipe before the process exits (on Node 24 all but the first were lost, on 20 and 22 the last few), so
 * each is written to the descriptor at once.
 */
const LOAD_LOGGER = `
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  writeSync(2, 'loaded ' + resolved.url + '\\n');
  return resolved;
}
`;

/**
 * Runs `probe` (an ES module's source, in the repository's folder) in a child and lists every module
 * it loaded: ESM imports as the loader resolved them, and the CommonJS modules left in require's cache
 * when it ends. The probe must print `expected` alone on stdout and exit 0.
 */
export async function modulesLoadedBy(probe: string, expected: string): Promise<string[]> {
  const dir = scratch('loaded-modules-');
  writeFileSync(dir.file('hooks.mjs'), LOAD_LOGGER);
  writeFileSync(dir.file('register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(dir.file('hooks.mjs')).href)});\n`);
  // A file, not --eval: a worker thread the probe starts inherits the node options, and --input-type with it.
  writeFileSync(
    dir.file('probe.mjs'),
    `${probe}
    for (const file of Object.keys((await import('node:module')).createRequire(import.meta.url).cache)) process.stderr.write('loaded ' + file + '\\n');
  `,
  );
  const child = spawn(process.execPath, ['--import', pathToFileURL(dir.file('register.mjs')).href, dir.file('probe.mjs')], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await within(new Promise<number | null>((resolve) => child.on('close', resolve)), 'the probe to exit');
  expect({ code, stdout: stdout.trim() }, stderr).toEqual({ code: 0, stdout: expected });
  return stderr.split('\n').filter((l) => l.startsWith('loaded ')).map((l) => l.slice('loaded '.length));
}
