#!/usr/bin/env node
// Sums up what AGENT_PROXY_TEST_CPU=<file> wrote during a test run (test/support/cpu-per-file.ts):
// the suite's CPU in the vitest workers and in the processes the tests started, and the test files
// that cost the most, so the suite's time can be cut where it goes.
// Run:  AGENT_PROXY_TEST_CPU=/tmp/cpu.jsonl npm test; node scripts/test-cpu.mjs /tmp/cpu.jsonl [--top N]
import { readFileSync } from 'node:fs';

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
  .map((row) => ({ ...row, totalMs: row.selfMs + (row.childrenMs ?? 0) }));
const sum = (key) => rows.reduce((total, row) => total + (row[key] ?? 0), 0);
const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
const total = sum('totalMs');
console.log(`${rows.length} test files: ${s(total).trim()} s of CPU, ${s(sum('selfMs')).trim()} s in the vitest workers, ${s(sum('childrenMs')).trim()} s in the processes they started`);
console.log(`at best ${(total / 1000 / 2).toFixed(0)} s on 2 cores, if every core were busy all the time`);
console.log(`\n    CPU  worker children  share  file`);
for (const row of rows.sort((a, b) => b.totalMs - a.totalMs).slice(0, top)) {
  console.log(`${s(row.totalMs)}${s(row.selfMs)}${row.childrenMs === null ? '     n/a' : s(row.childrenMs)}  ${((100 * row.totalMs) / total).toFixed(1).padStart(4)}%  ${row.file}`);
}
