// Start-up: how long until each command does its first useful thing, each figure beside its target.
// Run:  npm run build && node bench/startup.js [--runs N] [--busy N] [--compare <other build>] [--only replay,start-replay,validate,record] [--keep-extra-cas]
//       node bench/startup.js --commands [validate,show,...] [--runs N] [--compare <other build>]
//
// - `replay` spawn → first response served: the CLI replays a small AG-UI recording (the example
//   run, imported to a .db) with --timing none; the clock stops when the recorded SSE run has been
//   read to its end.
// - startReplay() in-process → listening: a child process imports the package, then times its own
//   calls (the import with the first call, then the median of the rest); the replay is closed after each.
// - `validate` of a small file (examples/agui-text-run.sse), the whole process: spawn → exit.
// - `record` spawn → "listening on", on an idle CPU and beside --busy N spinning processes (default:
//   one per CPU, plus one), as on a CI machine running tests beside the recorder.
// - a bare `node -e 0` (spawn → exit), timed in the same rounds as `replay` and `validate`, alternating
//   with them: each of those two is printed ÷ it beside its 2× target, a ratio a busy machine moves
//   far less than the milliseconds (both stretch alike).
// - --commands: the CPU of one small run of each command a test suite starts (validate, show,
//   findings, export, diff, import, replay, fixture, view, record), ÷ a bare `node -e 0` of the same
//   rounds: the whole process for a command that ends, spawn → "listening"/"inspector on" for a
//   server (replay: → its first response served). `record-exit` and `record-exchange` (not in the
//   default list) run `record` to its exit: spawn → listening → (one small POST through it to a local
//   upstream) → SIGINT → the recording closed and the process gone. A command that ends reports its own
//   process.cpuUsage() at exit (all threads, µs) through a preloaded probe, the bare node too, so
//   the ratio is not rounded to 10 ms ticks. --commands validate needs no better-sqlite3 (another
//   Node's); the rest open SQLite.
//
// Node 20 parses the file NODE_EXTRA_CA_CERTS names at every start, before any JavaScript (~40 ms of CPU for a
// system bundle of 144 certificates; Node 22 and 24 only when TLS needs it). Both the CLI and the bare node pay
// it, which flatters every ratio to `node -e 0` (replay 1.8× with it, 3.0× without, on one machine), and a
// user's machine rarely sets it: every process here starts without it, unless --keep-extra-cas.
//
// Each figure is the median of --runs rounds (default 7). With --compare <dir> (a checkout or a copy
// of another build: a folder with bin/agent-proxy.js and dist/), the rounds alternate between the two
// builds, which one goes first alternating too, so both see the same load. Beside the wall time goes
// the CPU time (user + system, all threads) of the measured process, which a shared machine disturbs
// less: for a process still running, summed from /proc/<pid>/task/*/schedstat when the event is seen;
// for one that exited, the change in this process's cutime + cstime (10 ms ticks). Linux only; "n/a"
// elsewhere.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runningCpuMs } from './lib/proc-cpu.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
};
const RUNS = Number(arg('--runs', 7));
const BUSY = Number(arg('--busy', availableParallelism() + 1));
const COMPARE = arg('--compare', undefined);
/** --only replay,start-replay,validate,record: some figures. `validate` alone needs no better-sqlite3,
 * so `<another node> bench/startup.js --only validate` measures a Node whose addon is not built here. */
const ONLY = arg('--only', undefined)?.split(',');
const runs = (name) => !ONLY || ONLY.includes(name);
/** --commands [a,b,...]: CPU per command ÷ a bare node, instead of the start-up figures. */
const KEEP_EXTRA_CAS = process.argv.includes('--keep-extra-cas');
const EXTRA_CAS = process.env.NODE_EXTRA_CA_CERTS;
// Inherited by every process the bench starts (see the header).
if (!KEEP_EXTRA_CAS) delete process.env.NODE_EXTRA_CA_CERTS;
const COMMANDS_AT = process.argv.indexOf('--commands');
const COMMANDS = COMMANDS_AT < 0 ? undefined : process.argv[COMMANDS_AT + 1] && !process.argv[COMMANDS_AT + 1].startsWith('--') ? process.argv[COMMANDS_AT + 1].split(',') : 'all';

const TARGETS = { replay: 120, startReplay: 20, validate: 150 };
/** Each spawned command ÷ a bare `node -e 0` timed in the same rounds (issue 34). */
const RATIO_TARGET = 2;
const SMALL_RECORDING = join(ROOT, 'recordings/examples/agui-sse-run.ndjson');
const SMALL_STREAM = join(ROOT, 'examples/agui-text-run.sse');

/** A build to measure: its CLI and its package entry. */
function build(dir, name) {
  const bin = join(dir, 'bin/agent-proxy.js');
  if (!existsSync(bin)) throw new Error(`${dir}: no bin/agent-proxy.js (build it first)`);
  return { name, dir, bin, entry: join(dir, 'dist/index.js') };
}

// CPU time of a child, in ms.
const HAS_PROC = existsSync('/proc/self/stat');
function reapedChildrenCpuMs() {
  if (!HAS_PROC) return NaN;
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

function exited(child) {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve)));
}

/** Spawns `node bin args` and resolves when a stdout line matches `pattern`, with the match, the time and the child's CPU so far. */
function spawnUntil(bin, args, pattern) {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = out.match(pattern);
      if (match) {
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        child.removeAllListeners('exit');
        resolve({ child, match, started });
      }
    });
    child.on('exit', (code) => reject(new Error(`${args[0]} exited with ${code} before printing ${pattern}`)));
  });
}

async function stopChild(child) {
  child.kill('SIGINT');
  await exited(child);
}

/** `replay` of the small recording: spawn → the recorded run read to its end. */
async function replayFirstResponse(b, recording, request) {
  const { child, match, started } = await spawnUntil(b.bin, ['replay', recording, '--listen', '0', '--timing', 'none', '--quiet'], /listening on (\S+)/);
  try {
    const response = await fetch(match[1] + request.path, { method: request.method, headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: request.body });
    const text = await response.text();
    const ms = performance.now() - started;
    const cpu = runningCpuMs(child.pid);
    if (response.status !== 200 || !text.includes('RUN_FINISHED')) throw new Error(`${b.name}: the replay answered ${response.status} without the recorded run`);
    return { ms, cpu };
  } finally {
    await stopChild(child);
  }
}

/** `record` spawn → "listening on". */
async function recordListening(b) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-startup-'));
  try {
    const { child, started } = await spawnUntil(b.bin, ['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--out', join(dir, 'run.db'), '--quiet'], /listening on/);
    const ms = performance.now() - started;
    const cpu = runningCpuMs(child.pid);
    await stopChild(child);
    return { ms, cpu };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `validate` of a small file: the whole process. */
async function validateWhole(b) {
  const cpuBefore = reapedChildrenCpuMs();
  const started = performance.now();
  const child = spawn(process.execPath, [b.bin, 'validate', SMALL_STREAM], { stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${b.name}: validate exited with ${code}`);
  return { ms, cpu: reapedChildrenCpuMs() - cpuBefore };
}

/** A bare `node -e 0`, the whole process: what any command pays before its own first line runs. */
async function bareNode() {
  const cpuBefore = reapedChildrenCpuMs();
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`node -e 0 exited with ${code}`);
  return { ms, cpu: reapedChildrenCpuMs() - cpuBefore };
}

/** startReplay() timed by a child process around its own calls: the import and the first call, then the median of `calls` more. */
async function startReplayInProcess(b, recording, calls = 15) {
  const probe = `
    const importing = performance.now();
    const { startReplay } = await import(${JSON.stringify(`file://${b.entry}`)});
    const imported = performance.now() - importing;
    const times = [];
    for (let i = 0; i < ${calls + 1}; i++) {
      const started = performance.now();
      const replay = await startReplay({ recording: ${JSON.stringify(recording)}, listen: 0, timing: 'none' });
      times.push(performance.now() - started);
      await replay.close();
    }
    const first = times.shift();
    times.sort((a, b) => a - b);
    console.log(JSON.stringify({ cold: imported + first, median: times[times.length >> 1] }));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', probe], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`${b.name}: the startReplay probe exited with ${code}`);
  return JSON.parse(out);
}

/** Preloaded: the process's CPU (all threads, µs precision) at its exit, to the file AGENT_PROXY_CPU_PROBE names. */
const CPU_PROBE = fileURLToPath(new URL('./lib/cpu-probe.cjs', import.meta.url));

/** `node [-r probe] args` run to its exit: its CPU as the probe reports it. */
async function probedRun(scratch, args, name) {
  const out = join(scratch, 'cpu');
  rmSync(out, { force: true });
  const started = performance.now();
  const child = spawn(process.execPath, ['-r', CPU_PROBE, ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, AGENT_PROXY_CPU_PROBE: out },
  });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const ms = performance.now() - started;
  // diff exits 1 when the sides differ; the small runs here compare a recording with itself.
  if (code !== 0) throw new Error(`${name} exited with ${code}`);
  return { ms, cpu: Number(readFileSync(out, 'utf8')) };
}

/** `node bin args` until a stdout line matches `pattern`: its CPU then, from schedstat. */
async function serverUntil(b, args, pattern) {
  const { child, started } = await spawnUntil(b.bin, args, pattern);
  const ms = performance.now() - started;
  const cpu = runningCpuMs(child.pid);
  await stopChild(child);
  return { ms, cpu };
}

/**
 * `record` run to its exit with the probe: spawn → "listening on" → (one exchange through it, with
 * `exchange`) → SIGINT → exit, the recording closed. All threads, µs, as the probe reports them.
 */
async function recordToExit(scratch, b, upstream) {
  const out = join(scratch, 'cpu');
  rmSync(out, { force: true });
  const db = join(scratch, 'record-run.db');
  const started = performance.now();
  const child = spawn(process.execPath, ['-r', CPU_PROBE, b.bin, 'record', '--target', upstream ?? 'http://127.0.0.1:9', '--listen', '0', '--out', db, '--overwrite', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, AGENT_PROXY_CPU_PROBE: out },
  });
  const code = new Promise((resolve) => child.on('exit', resolve));
  let text = '';
  const listening = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const match = text.match(/listening on (\S+)/);
      if (match) resolve(match[1]);
    });
    child.once('exit', (exitCode) => reject(new Error(`record exited with ${exitCode} before listening`)));
  });
  child.stdout.resume();
  if (upstream) {
    const response = await fetch(`${listening}/v1/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"hello":1}' });
    if (response.status !== 200) throw new Error(`${b.name}: the recorded exchange answered ${response.status}`);
    await response.text();
  }
  child.kill('SIGINT');
  if ((await code) !== 0) throw new Error(`${b.name}: record exited with ${await code}`);
  return { ms: performance.now() - started, cpu: Number(readFileSync(out, 'utf8')) };
}

/** A local upstream for `record-exchange`: answers every request with a small JSON body. */
async function startUpstream() {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

/** Stands in a command's arguments for the small recording of the build that runs it. */
const RECORDING = Symbol('the build\'s small recording');

/** Runs of `record` to its exit: only when named, as they take a few times longer than the rest. */
const RUN_TO_EXIT = ['record-exit', 'record-exchange'];

/** Each command's small run: (build) => { ms, cpu }. */
function commandRuns(scratch, request, upstreamUrl) {
  // RECORDING in args stands for the build's own small recording (b.recording).
  const probed = (args) => (b) => probedRun(scratch, [b.bin, ...args.map((a) => (a === RECORDING ? b.recording : a))], `${b.name}: ${args[0]}`);
  const recording = RECORDING;
  const imported = join(scratch, 'imported.db');
  return {
    validate: probed(['validate', SMALL_STREAM]),
    show: probed(['show', recording]),
    'show --exchange': probed(['show', recording, '--exchange', '1']),
    findings: probed(['findings', recording]),
    export: probed(['export', recording]),
    diff: probed(['diff', recording, recording]),
    import: probed(['import', SMALL_RECORDING, '--out', imported, '--overwrite']),
    replay: (b) => replayFirstResponse(b, b.recording, request),
    fixture: (b) => serverUntil(b, ['fixture', b.recording, '--listen', '0'], /listening on/),
    view: (b) => serverUntil(b, ['view', b.recording, '--listen', '0'], /inspector on/),
    record: recordListening,
    'record-exit': (b) => recordToExit(scratch, b, undefined),
    'record-exchange': (b) => recordToExit(scratch, b, upstreamUrl),
  };
}

/** --commands: one line per command, its CPU and wall time ÷ the bare node's of the same rounds. */
async function commandsTable(scratch, request) {
  const upstream = COMMANDS !== 'all' && COMMANDS.includes('record-exchange') ? await startUpstream() : undefined;
  const all = commandRuns(scratch, request, upstream?.url);
  const names = COMMANDS === 'all' ? Object.keys(all).filter((name) => !RUN_TO_EXIT.includes(name)) : COMMANDS;
  for (const name of names) if (!all[name]) throw new Error(`--commands: no command ${name} (${Object.keys(all).join(', ')})`);
  const bare = () => probedRun(scratch, ['-e', '0'], 'node -e 0');
  for (const name of names) {
    const results = await alternating(builds, all[name], bare);
    const bareCpu = median(results[builds.length].map((r) => r.cpu));
    const cells = builds.map((b, i) => {
      const cpu = median(results[i].map((r) => r.cpu));
      return `${b.name}: cpu ${ms(cpu)} = ${(cpu / bareCpu).toFixed(2)}× (wall ${ms(median(results[i].map((r) => r.ms)))})`;
    });
    // With --compare: the two builds' CPU taken apart round by round (each round's pair ran back to back, at one
    // load), a steadier figure than the difference of the medians when the change is a few ms.
    const paired = builds.length === 2 ? results[1].map((r, round) => r.cpu - results[0][round].cpu) : [];
    const pairedCell = paired.length > 0 ? `   compared − this, per round: median ${ms(median(paired))} (${paired.filter((d) => d > 0).length} of ${paired.length} rounds the compared took more)` : '';
    console.log(`  ${name.padEnd(16)} ${cells.join('   ')}   bare cpu ${ms(bareCpu)}${pairedCell}`);
  }
  upstream?.close();
}

const median = (xs) => {
  const sorted = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[sorted.length >> 1];
};
const ms = (x) => (Number.isNaN(x) ? 'n/a' : `${x < 100 ? x.toFixed(1) : Math.round(x)} ms`);

/**
 * Runs `measure` on each build for RUNS rounds, alternating which build goes first; with `bare`,
 * a bare node too in each round, as one more contestant in the alternation (its results come last).
 */
async function alternating(builds, measure, bare = undefined) {
  const contestants = bare ? [...builds.map((b) => () => measure(b)), bare] : builds.map((b) => () => measure(b));
  const results = contestants.map(() => []);
  for (let round = 0; round < RUNS; round++) {
    const order = round % 2 === 0 ? contestants.map((_, i) => i) : contestants.map((_, i) => i).reverse();
    for (const i of order) results[i].push(await contestants[i]());
  }
  return results;
}

function line(label, target, results, builds, pick = (r) => r) {
  const cells = results.map((runs, i) => {
    const picked = runs.map(pick);
    const cpu = picked.some((r) => r.cpu !== undefined) ? ` (cpu ${ms(median(picked.map((r) => r.cpu)))})` : '';
    return `${builds[i].name}: ${ms(median(picked.map((r) => r.ms)))}${cpu}`;
  });
  console.log(`  ${label.padEnd(60)} ${cells.join('   ')}${target === undefined ? '' : `   target ≤ ${target} ms`}`);
}

/** `results` of alternating(builds, measure, bareNode): each build's line, then its ratio to the bare node of the same rounds. */
function lineWithRatio(label, target, results, builds) {
  line(label, target, results.slice(0, builds.length), builds);
  const bare = results[builds.length];
  const bareMs = median(bare.map((r) => r.ms));
  const bareCpu = median(bare.map((r) => r.cpu));
  const cells = builds.map((b, i) => {
    const ratio = (pick, base) => (Number.isNaN(base) || base === 0 ? 'n/a' : `${(median(results[i].map(pick)) / base).toFixed(2)}×`);
    return `${b.name}: ${ratio((r) => r.ms, bareMs)} (cpu ${ratio((r) => r.cpu, bareCpu)})`;
  });
  console.log(`  ${`  ÷ bare \`node -e 0\` of the same rounds, ${ms(bareMs)} (cpu ${ms(bareCpu)})`.padEnd(60)} ${cells.join('   ')}   target ≤ ${RATIO_TARGET}×`);
}

const builds = [build(ROOT, 'this build')];
if (COMPARE) builds.push(build(resolve(COMPARE), 'compared'));

const scratch = mkdtempSync(join(tmpdir(), 'agent-proxy-startup-'));
try {
  // The small recording as a .db, made by each build once in its own format (an older build cannot
  // read a newer format, and each build is timed on the file it writes).
  const needsRecording = COMMANDS ? COMMANDS === 'all' || COMMANDS.some((name) => name !== 'validate') : runs('replay') || runs('start-replay');
  for (const [i, b] of builds.entries()) {
    b.recording = join(scratch, `small-${i}.db`);
    if (!needsRecording) continue;
    await new Promise((resolve, reject) =>
      spawn(process.execPath, [b.bin, 'import', SMALL_RECORDING, '--out', b.recording], { stdio: 'ignore' }).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${b.name}: import exited with ${code}`)))),
    );
  }
  const requestRow = readFileSync(SMALL_RECORDING, 'utf8')
    .split('\n')
    .map((text) => (text ? JSON.parse(text) : undefined))
    .find((row) => row?.type === 'message' && row.exchange === 1 && row.sender === 'client');
  // NDJSON 1 gives the raw bytes as `raw`; later versions give a JSON body as `rawJson` (the replay matches it as JSON).
  const body = requestRow.raw ?? JSON.stringify(requestRow.rawJson);
  const request = { method: 'POST', path: '/agent', body };

  console.log(`start-up bench: node ${process.version}, median of ${RUNS} rounds${COMPARE ? `, alternating with ${resolve(COMPARE)}` : ''}`);
  if (EXTRA_CAS !== undefined) console.log(`  NODE_EXTRA_CA_CERTS (${EXTRA_CAS}) ${KEEP_EXTRA_CAS ? 'kept (--keep-extra-cas): Node 20 parses it at every start, the bare node too' : 'left out of every process started (--keep-extra-cas keeps it)'}`);
  if (COMMANDS) {
    console.log('  CPU of one small run of each command ÷ a bare `node -e 0` of the same rounds');
    await commandsTable(scratch, request);
  }
  if (!COMMANDS && runs('replay')) lineWithRatio('replay spawn → first response served (small recording)', TARGETS.replay, await alternating(builds, (b) => replayFirstResponse(b, b.recording, request), bareNode), builds);
  if (!COMMANDS && runs('start-replay')) {
    const inProcess = await alternating(builds, (b) => startReplayInProcess(b, b.recording));
    line('startReplay() in-process → listening (warm)', TARGETS.startReplay, inProcess, builds, (r) => ({ ms: r.median }));
    line('import of the package + the first startReplay()', undefined, inProcess, builds, (r) => ({ ms: r.cold }));
  }
  if (!COMMANDS && runs('validate')) lineWithRatio('validate of a small file, whole process', TARGETS.validate, await alternating(builds, validateWhole, bareNode), builds);
  if (!COMMANDS && runs('record')) {
    line('record spawn → "listening on", idle CPU', undefined, await alternating(builds, recordListening), builds);
    const spinners = Array.from({ length: BUSY }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
    try {
      line(`record spawn → "listening on", ${BUSY} busy processes`, undefined, await alternating(builds, recordListening), builds);
    } finally {
      for (const spinner of spinners) spinner.kill('SIGKILL');
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
