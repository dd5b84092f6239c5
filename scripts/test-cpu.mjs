#!/usr/bin/env node
// Sums up what AGENT_PROXY_TEST_CPU=<file> wrote during a test run (test/support/cpu-per-file.ts):
// the suite's CPU in the vitest workers and in the processes the tests started, and the test files
// that cost the most, so the suite's time can be cut where it goes.
// Run:  AGENT_PROXY_TEST_CPU=/tmp/cpu.jsonl npm test; node scripts/test-cpu.mjs /tmp/cpu.jsonl [--top N]
// With the `<file>.children` lines of the Node processes the tests started (test/support/child-cpu.cjs),
// it also sums their CPU by command: which CLI command, stand-in or tool the children's share goes to.
// A file's worker CPU is what its hooks and tests cost and, apart (`load`), what its worker spent
// between the previous file's end and its first hook: importing and collecting it.
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

const [file] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
if (!file) {
  process.stderr.write('usage: node scripts/test-cpu.mjs <file written with AGENT_PROXY_TEST_CPU> [--top N]\n');
  process.exit(2);
}
const at = process.argv.indexOf('--top');
const top = at < 0 ? 25 : Number(process.argv[at + 1]);
const rows = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line))
  .map((row) => ({ ...row, loadMs: row.loadMs ?? 0, totalMs: row.selfMs + (row.loadMs ?? 0) + (row.childrenMs ?? 0) }));
const sum = (key) => rows.reduce((total, row) => total + (row[key] ?? 0), 0);
const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
const total = sum('totalMs');
console.log(`${rows.length} test files: ${s(total).trim()} s of CPU, ${s(sum('selfMs') + sum('loadMs')).trim()} s in the vitest workers, ${s(sum('childrenMs')).trim()} s in the processes they started`);
const workers = new Set(rows.map((row) => row.worker).filter(Boolean)).size;
if (workers > 0) console.log(`in the workers: ${s(sum('selfMs')).trim()} s in the files' hooks and tests, ${s(sum('loadMs')).trim()} s loading them (import and collection; ${workers} workers)`);
// vitest's main process (test/support/main-process-cpu.ts): the transform of each module, the reporters.
const mainFile = `${file}.main`;
const mainMs = existsSync(mainFile) ? readFileSync(mainFile, 'utf8').split('\n').filter(Boolean).reduce((ms, line) => ms + JSON.parse(line).mainMs, 0) : 0;
if (mainMs > 0) console.log(`and ${s(mainMs).trim()} s in vitest's main process: ${s(total + mainMs).trim()} s in all`);
console.log(`at best ${((total + mainMs) / 1000 / 2).toFixed(0)} s on 2 cores, if every core were busy all the time`);
console.log(`\n    CPU  worker   load children  share  file`);
for (const row of rows.sort((a, b) => b.totalMs - a.totalMs).slice(0, top)) {
  console.log(`${s(row.totalMs)}${s(row.selfMs)}${s(row.loadMs)}${row.childrenMs === null ? '     n/a' : s(row.childrenMs).padStart(9)}  ${((100 * row.totalMs) / total).toFixed(1).padStart(4)}%  ${row.file}`);
}

/** What a Node child was, from its argv: the CLI and its command, the batch runner, npm and its command, a script. */
function commandOf(argv) {
  const [script = '', ...args] = argv;
  const word = args.find((arg) => !arg.startsWith('-')) ?? '(none)';
  if (script === '') return 'node -e/-p';
  // This checkout's bin, or an installed package's (node_modules/.bin/agent-proxy, as npm linked it).
  if (script.endsWith('bin/agent-proxy.js') || basename(script) === 'agent-proxy') return `agent-proxy ${word}${script.includes('node_modules') ? ' (installed)' : ''}`;
  const name = basename(script).replace(/-cli\.js$/, '');
  if (name === 'npm' || name === 'npx') return `${name} ${word}`;
  return name;
}

const childrenFile = `${file}.children`;
if (existsSync(childrenFile)) {
  const children = readFileSync(childrenFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const byCommand = new Map();
  for (const child of children) {
    const command = commandOf(child.argv);
    const row = byCommand.get(command) ?? { command, runs: 0, ms: 0, bootMs: 0, files: new Set() };
    row.runs += 1;
    row.ms += child.ms;
    row.bootMs += child.bootMs;
    row.files.add(child.file);
    byCommand.set(command, row);
  }
  const counted = children.reduce((total, child) => total + child.ms, 0);
  console.log(`\n${children.length} Node processes counted at their exit: ${s(counted).trim()} s of the ${s(sum('childrenMs')).trim()} s in started processes`);
  console.log('(the rest: processes that are not Node, killed by a signal, or given an environment of their own)');
  console.log(`\n    CPU   runs  per run  of it Node's start  files  command`);
  for (const row of [...byCommand.values()].sort((a, b) => b.ms - a.ms).slice(0, top)) {
    console.log(`${s(row.ms)}${String(row.runs).padStart(7)}${s(row.ms / row.runs)}${s(row.bootMs)}${String(row.files.size).padStart(18)}  ${row.command}`);
  }
}
