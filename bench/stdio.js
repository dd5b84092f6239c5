// Lines/s through `proxy record --stdio` against a direct pipe, measured in the same run.
// Run:  npm run bench   (or, after a build:  node bench/stdio.js [--quick])
//
// The client is this process: it spawns the agent (directly, or through the recorder), reads its
// stdout and notes when each chunk arrives. Two scenarios, each as the median of RUNS runs in which
// direct, a bare relay and the recorder alternate (one run of a million lines lasts ~0.1-0.2 s, short
// enough for a scheduling hiccup on a 2-CPU machine to move it by a third):
//   - a running recorder: the agent's first exchange (FIRST lines) has been forwarded and recorded,
//     the client sends a command, and the agent answers with a million lines. This is the throughput
//     an editor sees once its agent is up; the target is at least 50 % of direct.
//   - the first burst of a freshly spawned recorder: the agent writes a million lines as soon as it
//     starts, while the recorder's code is still being compiled and its recording thread starts up.
// For each: lines/s between the first and the last line the client received, as the median of the
// per-run ratios (each recorded run against the direct run just before it). bench/bare-relay.js,
// a relay that records nothing, runs beside them: its share of direct is the ceiling for any
// recorder on the same machine. Also reported: start-up (spawn to first line), and when the
// recorder exited with every line stored (it records after a burst, from its spool); each recording
// is checked to hold every line, then deleted.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const quick = process.argv.includes('--quick');
const LINES = quick ? 100_000 : 1_000_000;
const RUNS = quick ? 1 : 7;
/** The first exchange of the running-recorder scenario, and the pause before the command (a user typing). */
const FIRST = 20_000;
const PAUSE_MS = 500;
const BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));
const AGENT = fileURLToPath(new URL('./stdio-agent.js', import.meta.url));
const BARE_RELAY = fileURLToPath(new URL('./bare-relay.js', import.meta.url));
const COMMAND = '{"id":"bench","type":"get_state"}\n';

/**
 * Runs `args` as the agent and times the lines on its stdout. With `first`, the agent first writes
 * that many lines; once they are in, the client waits PAUSE_MS, sends COMMAND, and times the answer.
 */
function measure(args, first = 0) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let waiting = first;
    let lines = 0;
    let startMs;
    let from;
    let last;
    child.stdout.on('data', (chunk) => {
      const now = process.hrtime.bigint();
      startMs ??= Number(now - started) / 1e6;
      let count = 0;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) count++;
      if (waiting > 0) {
        waiting -= count;
        if (waiting < 0) return reject(new Error(`the agent answered before it was asked`));
        if (waiting === 0) setTimeout(() => child.stdin.end(COMMAND), PAUSE_MS);
        return;
      }
      from ??= now;
      lines += count;
      last = now;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ended = process.hrtime.bigint();
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited with ${code}`));
      const ms = (t) => Number(t - started) / 1e6;
      resolve({ lines, startMs, lastMs: ms(last), exitMs: ms(ended), rate: lines / (Number(last - from) / 1e9) });
    });
    if (first === 0) child.stdin.end();
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const pct = (ratios) => `${(100 * median(ratios)).toFixed(1)} % of direct; runs ${ratios.map((r) => (100 * r).toFixed(0)).join(' / ')} %`;

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-bench-stdio-'));
try {
  const record = (out, agentArgs) => [BIN, 'record', '--stdio', '--quiet', '--protocol', 'pi-rpc', '--out', out, '--', process.execPath, AGENT, ...agentArgs];
  // Warm the page cache and the compile cache for every path.
  await measure([AGENT, '2000']);
  await measure([BARE_RELAY, process.execPath, AGENT, '2000']);
  await measure(record(join(dir, 'warm.db'), ['2000']));

  /** One scenario: RUNS alternating runs of direct, the bare relay and the recorder. */
  async function scenario(first) {
    const agentArgs = first > 0 ? [String(LINES), String(first)] : [String(LINES)];
    // The command line and the response to it are lines too.
    const expected = first > 0 ? { client: LINES + 1, stored: first + LINES + 2 } : { client: LINES, stored: LINES };
    const direct = [];
    const bare = [];
    const recorded = [];
    for (let run = 0; run < RUNS; run++) {
      direct.push(await measure([AGENT, ...agentArgs], first));
      bare.push(await measure([BARE_RELAY, process.execPath, AGENT, ...agentArgs], first));
      const out = join(dir, `stdio-${first}-${run}.db`);
      const result = await measure(record(out, agentArgs), first);
      const shown = spawnSync(process.execPath, [BIN, 'show', out, '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const stored = JSON.parse(shown.stdout).totals.messages;
      if (result.lines !== expected.client || stored !== expected.stored) {
        throw new Error(`expected ${expected.client} lines: the client got ${result.lines}; and ${expected.stored} recorded, the recording holds ${stored}`);
      }
      recorded.push(result);
      // A recording of a million lines is ~100 MB of dirty pages: removed now, the kernel drops them
      // instead of writing them back while the next runs are measured.
      for (const suffix of ['', '-wal', '-shm']) rmSync(out + suffix, { force: true });
    }
    for (const r of [...direct, ...bare]) if (r.lines !== expected.client) throw new Error(`a run without the recorder got ${r.lines} lines, expected ${expected.client}`);
    return { direct, bare, recorded, ratios: recorded.map((r, i) => r.rate / direct[i].rate), bareRatios: bare.map((r, i) => r.rate / direct[i].rate) };
  }

  const running = await scenario(FIRST);
  const fresh = await scenario(0);
  const rate = (runs) => fmt(median(runs.map((r) => r.rate)));

  console.log(`stdio bench${quick ? ' (quick)' : ''}: node ${process.version}, ${fmt(LINES)} Pi RPC lines, median of ${RUNS} runs each`);
  console.log(`a running recorder: ${fmt(LINES)} lines in answer to a command, after a first exchange of ${fmt(FIRST)} lines and a ${PAUSE_MS} ms pause`);
  console.log(`  throughput:  direct ${rate(running.direct)} lines/s, record --stdio ${rate(running.recorded)} lines/s (${pct(running.ratios)})`);
  console.log(`  ceiling:     a relay recording nothing ${rate(running.bare)} lines/s (${pct(running.bareRatios)})`);
  console.log(`the first burst of a fresh recorder: ${fmt(LINES)} lines from the agent's start, while the recorder's own start-up goes on`);
  console.log(`  throughput:  direct ${rate(fresh.direct)} lines/s, record --stdio ${rate(fresh.recorded)} lines/s (${pct(fresh.ratios)})`);
  console.log(`  ceiling:     a relay recording nothing ${rate(fresh.bare)} lines/s (${pct(fresh.bareRatios)})`);
  const ms = (runs, key) => median(runs.map((r) => r[key]));
  console.log(`  start (spawn to first line): direct ${ms(fresh.direct, 'startMs').toFixed(0)} ms, record --stdio ${ms(fresh.recorded, 'startMs').toFixed(0)} ms`);
  console.log(`  spawn to last line:          direct ${ms(fresh.direct, 'lastMs').toFixed(0)} ms, record --stdio ${ms(fresh.recorded, 'lastMs').toFixed(0)} ms`);
  const exit = ms(fresh.recorded, 'exitMs');
  console.log(`  recording done (recorder exit): ${exit.toFixed(0)} ms, ${fmt(LINES / ((exit - ms(fresh.recorded, 'startMs')) / 1000))} lines/s stored, every line checked in the file`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
