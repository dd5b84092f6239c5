// The floor under issue 34's start-up targets (`replay` spawn → first answer and `validate` of a small file, each
// ≤ 2× a bare `node -e 0` of the same run): the least any CLI of this design spends to do what each command must,
// timed in the same rounds as the bare node and the CLI itself, so each is printed ÷ the bare node and the CLI's
// gap above its floor in ms.
// Run:  npm run build && node bench/startup-floor.js [--runs N] [--dir <build>] [--no-cache] [--marks] [--keep-extra-cas] [--only validate] [--compare <build>]
//       <node 22 or 24> bench/startup-floor.js --dir <a copy of the build with that Node's better-sqlite3>
//
// The contestants, each a fresh process, alternating (one order in even rounds, the reverse in odd ones):
// - a bare `node -e 0`;
// - the floor `replay` (bench/lib/floor-replay.cjs): better-sqlite3 required with its addon's path, the small
//   recording opened read-only, node:http on 127.0.0.1:0, the request answered with its recorded exchange, its SSE
//   bytes inflated from the exchange's raw block; spawn → the response read to its end;
// - the floor `validate` (bench/lib/floor-validate.cjs): examples/agui-text-run.sse read and split into events, each
//   JSON.parse'd and checked with the build's compiled AG-UI validators, one line printed per event; and the same
//   without the validators (JSON only); the whole process;
// - each floor with its V8 code cache (bench/lib/code-cache-preload.cjs preloaded: vm.Script with cached data written
//   at the exit of a first run, so it holds what the run compiled): what a code cache could give at most (--no-cache
//   leaves them out);
// - the CLI's `replay` (spawn → first response read to its end, as bench/startup.js) and `validate` (whole process).
// The small recording is the example AG-UI run imported to a .db by the build's own `import`, as bench/startup.js
// makes it, and the request is the recorded one. Before the rounds each floor is run once and its output checked
// against the CLI's (the run fails otherwise): the floor replay's status, headers (Date aside) and body bytes equal
// the CLI replay's, and the floor validate's events, labels and verdicts those of `validate --json`.
// CPU (user + system, all threads): a process that exits reports its own process.cpuUsage() at exit (a preloaded
// probe, as `bench/startup.js --commands` does, the bare node's too); a server is read from
// /proc/<pid>/task/*/schedstat once its response is read. Each figure is the median of the rounds (min–max beside).
// As bench/startup.js, every process starts without NODE_EXTRA_CA_CERTS unless --keep-extra-cas.
// --marks: every process also preloads bench/lib/startup-marks.cjs (bench/startup-split.js's marks: CPU at the first
// line of JavaScript, around each file and builtin required, at the first response ended or the exit), and a table
// splits each contestant's CPU into the same phases, the floors' beside the CLI's (the hooks cost ~1–2 ms a run).
// --compare <build>: that build's CLI validate runs in the same rounds too (after its output is checked to be this
// build's), and the difference of the two CLIs' CPU is printed per round; --only validate leaves replay out.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runningCpuMs } from './lib/proc-cpu.js';
import { phasesOf } from './lib/startup-phases.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
};
const RUNS = Number(arg('--runs', 11));
const DIR = resolve(arg('--dir', ROOT));
const WITH_CACHE = !process.argv.includes('--no-cache');
/** Another build whose CLI validate runs in the same rounds, beside this one's (before and after a change). */
const COMPARE = process.argv.includes('--compare') ? resolve(arg('--compare', '')) : undefined;
/** `--only validate`: the bare node and validate's contestants alone. */
const ONLY = arg('--only', undefined);
const MARKS = process.argv.includes('--marks') ? fileURLToPath(new URL('./lib/startup-marks.cjs', import.meta.url)) : undefined;
if (!process.argv.includes('--keep-extra-cas')) delete process.env.NODE_EXTRA_CA_CERTS;
/** Issue 34's target for each command ÷ a bare `node -e 0`. */
const RATIO_TARGET = 2;

const BIN = join(DIR, 'bin/agent-proxy.js');
const SQLITE_DIR = join(DIR, 'node_modules/better-sqlite3');
const COMPILED = join(DIR, 'dist/schema/compiled');
const SMALL_RECORDING = join(DIR, 'recordings/examples/agui-sse-run.ndjson');
const SMALL_STREAM = join(DIR, 'examples/agui-text-run.sse');
const FLOOR_REPLAY = fileURLToPath(new URL('./lib/floor-replay.cjs', import.meta.url));
const FLOOR_VALIDATE = fileURLToPath(new URL('./lib/floor-validate.cjs', import.meta.url));
const CODE_CACHE = fileURLToPath(new URL('./lib/code-cache-preload.cjs', import.meta.url));

/** The process's CPU at its exit, written to the file AGENT_PROXY_CPU_PROBE names. */
const probe = fileURLToPath(new URL('./lib/cpu-probe.cjs', import.meta.url));

const scratch = mkdtempSync(join(tmpdir(), 'agent-proxy-startup-floor-'));
const cacheDir = join(scratch, 'code-cache');
const recording = join(scratch, 'small.db');
const env = { ...process.env, CODE_CACHE_PRELOAD_DIR: cacheDir };


/** `node [-r probe] args` to its exit: CPU as the probe reports it, wall time, stdout. */
async function probedRun(args, name, marksFile = undefined) {
  const out = join(scratch, 'cpu');
  rmSync(out, { force: true });
  const started = performance.now();
  const child = spawn(process.execPath, [...marked(marksFile), '-r', probe, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...env, AGENT_PROXY_CPU_PROBE: out, STARTUP_MARKS_OUT: marksFile } });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const code = await new Promise((done) => child.on('close', done));
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${name} exited with ${code}`);
  return { ms, cpu: Number(readFileSync(out, 'utf8')), stdout };
}

/** Spawns a server (`node args`), asks it the recorded request once it listens, reads the answer to its end: CPU then (schedstat), wall time, the answer. */
async function servedRun(args, name, request, marksFile = undefined) {
  const started = performance.now();
  const child = spawn(process.execPath, [...marked(marksFile), ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...env, STARTUP_MARKS_OUT: marksFile } });
  const exited = new Promise((done) => child.on('exit', done));
  try {
    const url = await new Promise((found, fail) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = out.match(/listening on (\S+)/);
        if (match) found(match[1]);
      });
      child.once('exit', (code) => fail(new Error(`${name} exited with ${code} before listening`)));
    });
    child.stdout.resume();
    const response = await fetch(url + request.path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: request.body });
    const body = Buffer.from(await response.arrayBuffer());
    const ms = performance.now() - started;
    const cpu = runningCpuMs(child.pid);
    const headers = [...response.headers].filter(([header]) => header !== 'date');
    return { ms, cpu, answer: { status: response.status, headers, body } };
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}

const cached = (args) => ['-r', CODE_CACHE, ...args];
/** The marks' preload, first (before the probe and the cache), for a run whose marks go to `marksFile`. */
const marked = (marksFile) => (MARKS && marksFile ? ['-r', MARKS] : []);
const floorReplayArgs = [FLOOR_REPLAY, SQLITE_DIR, recording];
const floorValidateArgs = [FLOOR_VALIDATE, COMPILED, SMALL_STREAM];

/** Every contestant: its label, the command it stands beside, and one run. */
function contestants(request) {
  const list = [
    { label: 'bare `node -e 0`', run: (marks) => probedRun(['-e', '0'], 'node -e 0', marks) },
    { label: 'replay: floor', command: 'replay', floor: true, run: (marks) => servedRun(floorReplayArgs, 'the floor replay', request, marks) },
    { label: 'replay: floor + code cache', command: 'replay', floor: true, cache: true, run: (marks) => servedRun(cached(floorReplayArgs), 'the cached floor replay', request, marks) },
    { label: 'replay: the CLI', command: 'replay', cli: true, run: (marks) => servedRun([BIN, 'replay', recording, '--listen', '0', '--timing', 'none', '--quiet'], 'replay', request, marks) },
    { label: 'validate: floor, JSON only (no validators)', command: 'validate', run: (marks) => probedRun([...floorValidateArgs, '--json-only'], 'the JSON-only floor validate', marks) },
    { label: 'validate: floor', command: 'validate', floor: true, run: (marks) => probedRun(floorValidateArgs, 'the floor validate', marks) },
    { label: 'validate: floor + code cache', command: 'validate', floor: true, cache: true, run: (marks) => probedRun(cached(floorValidateArgs), 'the cached floor validate', marks) },
    { label: 'validate: the CLI', command: 'validate', cli: true, run: (marks) => probedRun([BIN, 'validate', SMALL_STREAM], 'validate', marks) },
  ];
  if (COMPARE) list.push({ label: `validate: the CLI of ${COMPARE}`, command: 'validate', compared: true, run: (marks) => probedRun([join(COMPARE, 'bin/agent-proxy.js'), 'validate', SMALL_STREAM], `${COMPARE}'s validate`, marks) });
  return list.filter((c) => (WITH_CACHE || !c.cache) && (ONLY === undefined || c.command === undefined || c.command === ONLY));
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Each floor's output against the CLI's (a floor that answers or prints less is no floor); the cached floors' caches made on the way. */
async function checkFloors(request) {
  if (COMPARE) {
    const [ours, theirs] = await Promise.all([BIN, join(COMPARE, 'bin/agent-proxy.js')].map(async (bin) => (await probedRun([bin, 'validate', SMALL_STREAM], `${bin} validate`)).stdout));
    if (ours !== theirs) throw new Error(`${COMPARE}'s validate printed\n${theirs}where this build's prints\n${ours}`);
    console.log(`  checked: ${COMPARE}'s validate prints what this build's does`);
  }
  if (ONLY === 'validate') return checkFloorValidate();
  const cli = (await servedRun([BIN, 'replay', recording, '--listen', '0', '--timing', 'none', '--quiet'], 'replay', request)).answer;
  for (const [name, args] of [['floor', floorReplayArgs], ...(WITH_CACHE ? [['cached floor', cached(floorReplayArgs)], ['cached floor', cached(floorReplayArgs)]] : [])]) {
    const floor = (await servedRun(args, `the ${name} replay`, request)).answer;
    if (floor.status !== cli.status || !same(floor.headers, cli.headers) || !floor.body.equals(cli.body)) {
      throw new Error(`the ${name} replay answered ${floor.status} ${JSON.stringify(floor.headers)} (${floor.body.length} bytes), the CLI ${cli.status} ${JSON.stringify(cli.headers)} (${cli.body.length} bytes)`);
    }
  }
  const events = cli.body.toString('utf8').split('\n\n').filter((event) => event.trim() !== '').length;
  console.log(`  checked: the floor replay answers ${cli.status}, its headers (Date aside) and ${cli.body.length} bytes of body (${events} events) those of the CLI's replay`);
  await checkFloorValidate();
}

async function checkFloorValidate() {
  const report = JSON.parse((await probedRun([BIN, 'validate', '--json', SMALL_STREAM], 'validate --json')).stdout);
  const expected = report.messages.map((m, i) => `${i} ${m.label} ${m.verdict.status}\n`).join('');
  for (const [name, args] of [['floor', floorValidateArgs], ...(WITH_CACHE ? [['cached floor', cached(floorValidateArgs)], ['cached floor', cached(floorValidateArgs)]] : [])]) {
    const printed = (await probedRun(args, `the ${name} validate`)).stdout;
    if (printed !== expected) throw new Error(`the ${name} validate printed\n${printed}where \`validate --json\` gives\n${expected}`);
  }
  const jsonOnly = (await probedRun([...floorValidateArgs, '--json-only'], 'the JSON-only floor validate')).stdout;
  if (jsonOnly !== expected.replace(/ \S+\n/g, ' parsed\n')) throw new Error(`the JSON-only floor validate printed\n${jsonOnly}`);
  console.log(`  checked: the floor validate prints ${report.messages.length} events, each with the label and verdict \`validate --json\` gives (${report.messages.filter((m) => m.verdict.status === 'valid').length} valid); JSON only, the same events`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const fixed = (x) => x.toFixed(1);

/** The table's row of each kind of file required (bench/lib/startup-phases.js). */
const PHASE_OF_KIND = {
  builtin: 'builtins, at their first require',
  addon: "better-sqlite3's addon (dlopen)",
  validators: 'compiled schema validators (compile + run)',
  sqlite: "better-sqlite3's JavaScript",
  bundle: 'bin/ and the bundle chunks (compile + top-level run)',
  bin: 'bin/ and the bundle chunks (compile + top-level run)',
  floor: 'the floor program (compile + top-level run)',
};

/** One run's marks (bench/lib/startup-marks.cjs) in bench/startup-split.js's phases. */
function phases(marks) {
  const { row, end } = phasesOf(marks, PHASE_OF_KIND, 'the work, first run (to the end mark)');
  row['end mark: exit / first response ended'] = end;
  return row;
}
const PHASES = [
  "Node's start, to the first line of JavaScript",
  'bin/ and the bundle chunks (compile + top-level run)',
  'the floor program (compile + top-level run)',
  'compiled schema validators (compile + run)',
  "better-sqlite3's JavaScript",
  "better-sqlite3's addon (dlopen)",
  'builtins, at their first require',
  'other files',
  'the work, first run (to the end mark)',
  'end mark: exit / first response ended',
];

try {
  mkdirSync(cacheDir);
  await new Promise((done, fail) =>
    spawn(process.execPath, [BIN, 'import', SMALL_RECORDING, '--out', recording], { stdio: 'ignore' }).on('exit', (code) => (code === 0 ? done() : fail(new Error(`import exited with ${code}`)))),
  );
  const requestRow = readFileSync(SMALL_RECORDING, 'utf8')
    .split('\n')
    .map((text) => (text ? JSON.parse(text) : undefined))
    .find((row) => row?.type === 'message' && row.exchange === 1 && row.sender === 'client');
  const request = { path: '/agent', body: requestRow.raw ?? JSON.stringify(requestRow.rawJson) };

  const loadBefore = loadavg()[0];
  console.log(`start-up floor bench: node ${process.version}, build ${DIR}, median of ${RUNS} rounds, alternating${MARKS ? ', every process with the marks preloaded' : ''}`);
  await checkFloors(request);
  const list = contestants(request);
  const marksFiles = list.map((_, i) => join(scratch, `marks-${i}.jsonl`));
  const results = list.map(() => []);
  for (let round = 0; round < RUNS; round++) {
    const order = list.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) results[i].push(await list[i].run(marksFiles[i]));
  }
  const bareRuns = results[0].map((r) => r.cpu);
  const figures = list.map((c, i) => {
    const cpus = results[i].map((r) => r.cpu);
    // Each round's run ÷ that round's bare node: the ratio's spread.
    const ratios = cpus.map((cpu, round) => cpu / bareRuns[round]);
    return { ...c, cpu: median(cpus), low: Math.min(...cpus), high: Math.max(...cpus), ratioLow: Math.min(...ratios), ratioHigh: Math.max(...ratios), ms: median(results[i].map((r) => r.ms)) };
  });
  const bare = figures[0];
  console.log(`  load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}; CPU ms, all threads (min–max); ÷ the bare node's median CPU (each round's ÷ its bare node, min–max); wall ms`);
  for (const f of figures) {
    const cells = [`${fixed(f.cpu)} ms (${fixed(f.low)}–${fixed(f.high)})`.padEnd(24), `${(f.cpu / bare.cpu).toFixed(2)}× (${f.ratioLow.toFixed(2)}–${f.ratioHigh.toFixed(2)})`.padEnd(20), `wall ${fixed(f.ms)} ms`];
    console.log(`  ${f.label.padEnd(44)} ${cells.join(' ')}`);
  }
  console.log(`  ${RATIO_TARGET}× the bare node: ${fixed(RATIO_TARGET * bare.cpu)} ms of CPU`);
  const compared = figures.find((f) => f.compared);
  if (compared) {
    const ours = results[figures.findIndex((f) => f.command === 'validate' && f.cli)].map((r) => r.cpu);
    const differences = results[figures.indexOf(compared)].map((r, round) => r.cpu - ours[round]);
    console.log(`  validate: ${COMPARE}'s CLI − this build's, per round: median ${fixed(median(differences))} ms (${fixed(Math.min(...differences))}–${fixed(Math.max(...differences))}), ${differences.filter((d) => d > 0).length} of ${RUNS} rounds more`);
  }
  for (const command of ONLY === undefined ? ['replay', 'validate'] : [ONLY]) {
    const cli = figures.find((f) => f.command === command && f.cli);
    const floors = figures.filter((f) => f.command === command && f.floor);
    for (const floor of floors) console.log(`  ${command}: the CLI − its ${floor.cache ? 'cached ' : ''}floor ${fixed(cli.cpu - floor.cpu)} ms; the ${floor.cache ? 'cached ' : ''}floor ${(floor.cpu / bare.cpu).toFixed(2)}×`);
    const least = floors.reduce((a, b) => (b.cpu < a.cpu ? b : a));
    const spare = RATIO_TARGET * bare.cpu - least.cpu;
    console.log(`  ${command} ≤ ${RATIO_TARGET}×: ${spare >= 0 ? `reachable: the least floor (${least.label}) leaves ${fixed(spare)} ms under ${RATIO_TARGET}× for all a CLI does beyond it` : `out of reach of any CLI of this design here: the least floor (${least.label}) is ${fixed(-spare)} ms over`}; the CLI is ${fixed(cli.cpu - RATIO_TARGET * bare.cpu)} ms over`);
  }
  if (MARKS) {
    const split = list.map((_, i) => readFileSync(marksFiles[i], 'utf8').trim().split('\n').map((line) => phases(JSON.parse(line))));
    console.log(`\n| CPU ms, median of ${RUNS} rounds (marks preloaded) | ${list.map((c) => c.label).join(' | ')} |`);
    console.log(`| --- |${list.map(() => ' ---: |').join('')}`);
    for (const name of PHASES) {
      const cells = split.map((runs) => (runs.some((row) => row[name] !== undefined) ? fixed(median(runs.map((row) => row[name] ?? 0))) : ''));
      if (cells.some((cell) => cell !== '')) console.log(`| ${name} | ${cells.join(' | ')} |`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
