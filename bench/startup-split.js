// Where the CPU of a `validate` of a small file and of a `replay` to its first response goes, beside a bare
// `node -e 0`: Node's own start, the bundle's files, the compiled validators, better-sqlite3, builtins, the
// command's own work. Issue 34's ratio to `node -e 0`, taken apart.
// Run:  npm run build && node bench/startup-split.js [--runs N] [--dir <build>] [--files N] [--keep-extra-cas]
//       <another node> bench/startup-split.js --dir <a build with that Node's better-sqlite3>
//
// Each process is started with bench/lib/startup-marks.cjs preloaded, which reads process.cpuUsage() (all
// threads, µs) at its first line of JavaScript, around each file and builtin required, at `listening`, at the
// first response ended and at the 'exit' event; the three commands alternate, --runs rounds (default 7), and each
// figure is the median of its rounds. The preload's own hooks cost ~1–2 ms of a run; the exit after the 'exit'
// event (~2 ms, the bare node's too) is not in the figures (`perf stat -e task-clock` of the whole process has it).
// `validate`'s main() run a second time in the same process (warm: nothing left to load or compile) says how much
// of the command's work is its first run. As bench/startup.js does, every process starts without
// NODE_EXTRA_CA_CERTS, which Node 20 parses at every start (~40 ms), unless --keep-extra-cas.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { phasesOf } from './lib/startup-phases.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
};
const RUNS = Number(arg('--runs', 7));
const DIR = resolve(arg('--dir', ROOT));
const FILES = Number(arg('--files', 8));
/** --code-cache-at-exit DIR: validate and replay also preload bench/lib/code-cache-preload.cjs, its cache in DIR (made by a first run of each). */
const CODE_CACHE_DIR = arg('--code-cache-at-exit', undefined);
const CODE_CACHE = fileURLToPath(new URL('./lib/code-cache-preload.cjs', import.meta.url));
if (!process.argv.includes('--keep-extra-cas')) delete process.env.NODE_EXTRA_CA_CERTS;
const BIN = join(DIR, 'bin/agent-proxy.js');
const MARKS = fileURLToPath(new URL('./lib/startup-marks.cjs', import.meta.url));
const SMALL_RECORDING = join(DIR, 'recordings/examples/agui-sse-run.ndjson');
const SMALL_STREAM = join(DIR, 'examples/agui-text-run.sse');

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[sorted.length >> 1];
};
const scratch = mkdtempSync(join(tmpdir(), 'agent-proxy-startup-split-'));

function run(args, marksFile, stdout = 'ignore') {
  // The cache's preload goes first: what it loads (vm, crypto) counts in "Node's start", not in the command's rows.
  const preloads = CODE_CACHE_DIR && args[0] === BIN ? ['-r', CODE_CACHE, '-r', MARKS] : ['-r', MARKS];
  const child = spawn(process.execPath, [...preloads, ...args], { stdio: ['ignore', stdout, 'inherit'], env: { ...process.env, STARTUP_MARKS_OUT: marksFile, CODE_CACHE_PRELOAD_DIR: CODE_CACHE_DIR } });
  return child;
}
const exited = (child) => new Promise((done, fail) => child.on('exit', (code, signal) => (code === 0 || signal === 'SIGINT' || code === 130 ? done() : fail(new Error(`exited with ${code ?? signal}`)))));

async function replayOnce(recording, request, marksFile) {
  const child = run([BIN, 'replay', recording, '--listen', '0', '--timing', 'none', '--quiet'], marksFile, 'pipe');
  let out = '';
  const url = await new Promise((found) => child.stdout.on('data', (chunk) => ((out += chunk), out.match(/listening on (\S+)/) && found(out.match(/listening on (\S+)/)[1]))));
  const response = await fetch(url + request.path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: request.body });
  if (!(await response.text()).includes('RUN_FINISHED')) throw new Error('the replay answered without the recorded run');
  child.kill('SIGINT');
  await exited(child);
}

/** validate's main() twice in one process: CPU of each run (the second warm). */
function validateTwice() {
  const script = `
    require('node:module').enableCompileCache?.();
    const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = () => true;
    (async () => {
      const { main } = require(${JSON.stringify(join(DIR, 'dist/bundle-validate/main.cjs'))});
      const times = [];
      for (let i = 0; i < 2; i++) { const start = cpu(); await main(['node', 'agent-proxy', 'validate', ${JSON.stringify(SMALL_STREAM)}]); times.push(cpu() - start); }
      write(JSON.stringify(times));
    })();`;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => (code === 0 ? done(JSON.parse(out)) : fail(new Error(`validate twice exited with ${code}`))));
  });
}

/** CPU of compiling `files` (vm.compileFunction with the CommonJS wrapper's parameters) in a fresh process. */
function compileAlone(files) {
  const script = `
    const { compileFunction } = require('node:vm');
    const { readFileSync } = require('node:fs');
    const sources = ${JSON.stringify(files)}.map((file) => [file, readFileSync(file, 'utf8')]);
    const start = process.cpuUsage();
    for (const [filename, source] of sources) compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], { filename });
    const { user, system } = process.cpuUsage(start);
    process.stdout.write(String((user + system) / 1000));`;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => (code === 0 ? done(Number(out)) : fail(new Error(`compiling alone exited with ${code}`))));
  });
}

/** The table's row of each kind of file required (bench/lib/startup-phases.js). */
const ROW_OF_KIND = {
  builtin: 'builtins, at their first require',
  addon: "better-sqlite3's addon (dlopen)",
  validators: 'compiled schema validators (compile + run)',
  sqlite: "better-sqlite3's JavaScript (13 files)",
  bundle: "the command's bundle chunks (compile + top-level run)",
  bin: "bin/ (agent-proxy.js, code-cache.js), with main()'s synchronous part",
};

/** One run's marks, split into the table's rows. */
function split(marks) {
  const { row, end, loading } = phasesOf(marks, ROW_OF_KIND, "the command's work, first run (to the end mark)");
  if (marks.listening !== undefined) row['  of which before listening'] = marks.listening - marks.nodeStart - loading;
  for (const [what, ms] of Object.entries(marks.inside)) row[`  of which ${what}`] = ms;
  row['end mark: exit / first response ended'] = end;
  return row;
}

try {
  const recording = join(scratch, 'small.db');
  await exited(spawn(process.execPath, [BIN, 'import', SMALL_RECORDING, '--out', recording], { stdio: 'ignore' }));
  const requestRow = readFileSync(SMALL_RECORDING, 'utf8')
    .split('\n')
    .map((text) => (text ? JSON.parse(text) : undefined))
    .find((row) => row?.type === 'message' && row.exchange === 1 && row.sender === 'client');
  const request = { path: '/agent', body: requestRow.raw ?? JSON.stringify(requestRow.rawJson) };
  const out = { bare: join(scratch, 'bare.jsonl'), validate: join(scratch, 'validate.jsonl'), replay: join(scratch, 'replay.jsonl') };
  if (CODE_CACHE_DIR) {
    // One run of each makes the cache; its marks are dropped.
    await exited(run([BIN, 'validate', SMALL_STREAM], join(scratch, 'priming.jsonl')));
    await replayOnce(recording, request, join(scratch, 'priming.jsonl'));
  }
  const twice = [];
  for (let round = 0; round < RUNS; round++) {
    await exited(run(['-e', '0'], out.bare));
    await exited(run([BIN, 'validate', SMALL_STREAM], out.validate));
    await replayOnce(recording, request, out.replay);
    twice.push(await validateTwice());
  }
  const rows = Object.fromEntries(Object.entries(out).map(([name, file]) => [name, readFileSync(file, 'utf8').trim().split('\n').map((line) => split(JSON.parse(line)))]));
  const ORDER = [
    "Node's start, to the first line of JavaScript",
    "bin/ (agent-proxy.js, code-cache.js), with main()'s synchronous part",
    "the command's bundle chunks (compile + top-level run)",
    'compiled schema validators (compile + run)',
    "better-sqlite3's JavaScript (13 files)",
    "better-sqlite3's addon (dlopen)",
    'builtins, at their first require',
    'other files',
    "the command's work, first run (to the end mark)",
  ];
  const seen = new Set(Object.values(rows).flatMap((runs) => runs.flatMap((row) => Object.keys(row))));
  const names = [...ORDER.filter((name) => seen.has(name)), ...[...seen].filter((name) => !ORDER.includes(name) && !name.startsWith('end mark')), 'end mark: exit / first response ended'];
  const cell = (runs, name) => (runs.some((row) => name in row) ? median(runs.map((row) => row[name] ?? 0)).toFixed(1) : '');
  console.log(`startup split: node ${process.version}, ${DIR}, median of ${RUNS} rounds, CPU ms (user + system, all threads)${CODE_CACHE_DIR ? `, validate and replay with bench/lib/code-cache-preload.cjs (${CODE_CACHE_DIR})` : ''}`);
  console.log(`| ${'what'.padEnd(56)} | bare node -e 0 | validate | replay |`);
  console.log(`| ${'-'.repeat(56)} | ---: | ---: | ---: |`);
  for (const name of names) console.log(`| ${name.padEnd(56)} | ${cell(rows.bare, name).padStart(14)} | ${cell(rows.validate, name).padStart(8)} | ${cell(rows.replay, name).padStart(6)} |`);
  console.log(`validate's main() in one process: first run ${median(twice.map((t) => t[0])).toFixed(1)} ms, second (warm) ${median(twice.map((t) => t[1])).toFixed(1)} ms`);
  for (const command of ['validate', 'replay']) {
    const byFile = new Map();
    for (const line of readFileSync(out[command], 'utf8').trim().split('\n')) for (const { kind, file, self } of JSON.parse(line).files) byFile.set(`${kind} ${file.replace(DIR + '/', '')}`, [...(byFile.get(`${kind} ${file.replace(DIR + '/', '')}`) ?? []), self]);
    const top = [...byFile].map(([file, times]) => [file, median(times)]).sort((a, b) => b[1] - a[1]).slice(0, FILES);
    console.log(`${command}, the ${FILES} costliest files (self): ${top.map(([file, ms]) => `${file.replace(/^.*\//, '')} ${ms.toFixed(1)}`).join(', ')}`);
    // Compiling alone (as the CommonJS loader wraps a file, nothing run, no cache) the files of the build it loaded.
    const ours = [...byFile.keys()].filter((key) => key.startsWith('file dist/')).map((key) => join(DIR, key.slice('file '.length)));
    const compileOnly = [];
    for (let round = 0; round < Math.min(RUNS, 5); round++) compileOnly.push(await compileAlone(ours));
    console.log(`${command}: compiling its ${ours.length} files of dist/ alone, in a fresh process: ${median(compileOnly).toFixed(1)} ms`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
