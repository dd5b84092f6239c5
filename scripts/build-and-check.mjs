#!/usr/bin/env node
// What `npm test` does before vitest: the build, and the checks that do not need it (the tests'
// type-check, the browser tests' type-check, the layering), as two chains run side by side. Each
// step is single-threaded, so on a 2-core machine one after the other left a core idle for about
// a minute. A step's output is printed when it ends, whole, so the two chains' lines do not mix.
// Exits non-zero when any step failed (after both chains ended). `--no-lint` leaves out the
// layering check (scripts/test-node.sh, which never ran it).
import { spawn } from 'node:child_process';

const NPX = 'node_modules/.bin';
const lint = !process.argv.includes('--no-lint');

const chains = [
  [['npm', ['run', 'build']]],
  [
    [`${NPX}/tsc`, ['-p', 'tsconfig.test.json']],
    [`${NPX}/tsc`, ['-p', 'test/ui/tsconfig.browser.json']],
    ...(lint ? [['npm', ['run', 'lint:deps']]] : []),
  ],
];

/** Runs `command`, prints what it said once it ended, and resolves with whether it succeeded. */
function step([file, args]) {
  const name = [file.replace(`${NPX}/`, ''), ...args].join(' ');
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const said = [];
    child.stdout.on('data', (chunk) => said.push(chunk));
    child.stderr.on('data', (chunk) => said.push(chunk));
    child.on('error', (error) => said.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      const output = Buffer.concat(said).toString('utf8');
      const ok = code === 0;
      process.stdout.write(`> ${name}${ok ? '' : ` failed (exit ${code})`}\n${output}${output === '' || output.endsWith('\n') ? '' : '\n'}`);
      resolve(ok);
    });
  });
}

/** The steps of a chain one after the other, stopping at the first that fails. */
async function run(chain) {
  for (const command of chain) if (!(await step(command))) return false;
  return true;
}

const results = await Promise.all(chains.map(run));
process.exit(results.every(Boolean) ? 0 : 1);
