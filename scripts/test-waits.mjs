#!/usr/bin/env node
// How long a command (a test file's run) waits: every 10 ms, whether any thread of its processes is
// runnable (state R or D in /proc/<pid>/task/<tid>/stat). The time when none is, is time a core
// would sit idle on a quiet machine: a timer, a poll interval, a child's start that sleeps, a
// socket's timeout. Unlike wall minus CPU, the load of other work does not inflate it (a thread
// that waits for a core is runnable). Linux only.
// Run:  node scripts/test-waits.mjs npx vitest run test/stdio/mcp-stdio.test.ts
// Prints, when the command ends, its wall time, the time nothing was runnable, and each stretch of
// at least 0.2 s with the clock time it began (to match against timestamps a test prints).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const command = process.argv.slice(2);
if (command.length === 0) {
  process.stderr.write('usage: node scripts/test-waits.mjs <command> [args...]\n');
  process.exit(2);
}
const PERIOD_MS = 10;
const STRETCH_MS = 200;

const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });

/** The text after a /proc stat line's `(comm)`: fields from state on. */
function statFields(path) {
  try {
    const text = readFileSync(path, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // Gone since it was listed.
  }
}

/** The child and every process under it. */
function processTree() {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(`/proc/${name}/stat`);
    if (!fields) continue;
    const parent = Number(fields[1]);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(Number(name));
  }
  const tree = [];
  const stack = [child.pid];
  while (stack.length > 0) {
    const pid = stack.pop();
    tree.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return tree;
}

function anyRunnable(pids) {
  for (const pid of pids) {
    let threads;
    try {
      threads = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of threads) {
      const state = statFields(`/proc/${pid}/task/${tid}/stat`)?.[0];
      if (state === 'R' || state === 'D') return true;
    }
  }
  return false;
}

const started = Date.now();
let last = started;
let idleMs = 0;
let stretchFrom;
const stretches = [];
let tree = [child.pid];
let ticks = 0;
const timer = setInterval(() => {
  // The tree is listed again every tenth sample: walking all of /proc is the costly part.
  if (ticks++ % 10 === 0) tree = processTree();
  const now = Date.now();
  const runnable = anyRunnable(tree);
  if (!runnable) {
    idleMs += now - last;
    stretchFrom ??= last;
  } else if (stretchFrom !== undefined) {
    if (now - stretchFrom >= STRETCH_MS) stretches.push([stretchFrom, now]);
    stretchFrom = undefined;
  }
  last = now;
}, PERIOD_MS);

child.on('exit', (code, signal) => {
  clearInterval(timer);
  const s = (ms) => (ms / 1000).toFixed(2);
  process.stderr.write(`waits: wall ${s(Date.now() - started)} s, nothing runnable ${s(idleMs)} s\n`);
  for (const [from, to] of stretches) process.stderr.write(`waits: ${s(to - from)} s from ${new Date(from).toISOString().slice(11, 23)} (+${s(from - started)} s)\n`);
  process.exitCode = code ?? (signal ? 1 : 0);
});
