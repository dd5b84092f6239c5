// Lines/s through `proxy record --stdio` against a direct pipe, measured in the same run.
// Run:  npm run bench   (or, after a build:  node bench/stdio.js [--quick])
//
// The client is this process: it spawns the agent (directly, or through the recorder), reads its
// stdout and notes when each chunk arrives. Direct and recorded runs alternate; reported, as medians of
// RUNS runs (seven: one run of a million lines lasts ~0.2 s, short enough for a scheduling hiccup on
// a 2-CPU machine to move it by a third):
//   - throughput: lines/s between the first and the last line the client received, which is what
//     "recording must not slow the traffic" is about; the target is at least 50 % of direct. The
//     figure is the median of the per-run ratios, each recorded run against the direct run before it;
//     each run also goes through bench/bare-relay.js, a relay that records nothing: its share of
//     direct is the ceiling for any recorder on the same machine;
//   - start: spawn to first line (the proxy's own start-up is in it);
//   - to last line: spawn to the last line, start-up included;
//   - recording done: when the recorder exited, every line stored (it records after a burst, from
//     its spool); the file is checked to hold every line.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const quick = process.argv.includes('--quick');
const LINES = quick ? 100_000 : 1_000_000;
const RUNS = quick ? 1 : 7;
const BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));
const AGENT = fileURLToPath(new URL('./stdio-agent.js', import.meta.url));
const BARE_RELAY = fileURLToPath(new URL('./bare-relay.js', import.meta.url));

/** Runs a command as the agent, counts the LF-terminated lines on its stdout, and times them. */
function measure(args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let lines = 0;
    let first;
    let last;
    child.stdout.on('data', (chunk) => {
      const now = process.hrtime.bigint();
      first ??= now;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      last = now;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ended = process.hrtime.bigint();
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited with ${code}`));
      const ms = (t) => Number(t - started) / 1e6;
      resolve({ lines, startMs: ms(first), lastMs: ms(last), exitMs: ms(ended), rate: lines / ((ms(last) - ms(first)) / 1000) });
    });
    child.stdin.end();
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-bench-stdio-'));
try {
  // Warm the page cache and the compile cache for both paths.
  await measure([AGENT, '2000']);
  await measure([BARE_RELAY, process.execPath, AGENT, '2000']);
  await measure([BIN, 'record', '--stdio', '--quiet', '--protocol', 'pi-rpc', '--out', join(dir, 'warm.db'), '--', process.execPath, AGENT, '2000']);

  const direct = [];
  const bare = [];
  const recorded = [];
  for (let run = 0; run < RUNS; run++) {
    direct.push(await measure([AGENT, String(LINES)]));
    bare.push(await measure([BARE_RELAY, process.execPath, AGENT, String(LINES)]));
    const out = join(dir, `stdio-${run}.db`);
    const result = await measure([BIN, 'record', '--stdio', '--quiet', '--protocol', 'pi-rpc', '--out', out, '--', process.execPath, AGENT, String(LINES)]);
    const shown = spawnSync(process.execPath, [BIN, 'show', out, '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const stored = JSON.parse(shown.stdout).totals.messages;
    if (result.lines !== LINES || stored !== LINES) throw new Error(`expected ${LINES} lines: the client got ${result.lines}, the recording holds ${stored}`);
    recorded.push(result);
    // A recording of a million lines is ~100 MB of dirty pages: removed now, the kernel drops them
    // instead of writing them back while the next runs are measured.
    for (const suffix of ['', '-wal', '-shm']) rmSync(out + suffix, { force: true });
  }
  for (const r of [...direct, ...bare]) if (r.lines !== LINES) throw new Error(`a run without the recorder got ${r.lines} lines, expected ${LINES}`);

  const ratios = recorded.map((r, i) => r.rate / direct[i].rate);
  const bareRatios = bare.map((r, i) => r.rate / direct[i].rate);
  const d = { rate: median(direct.map((r) => r.rate)), start: median(direct.map((r) => r.startMs)), last: median(direct.map((r) => r.lastMs)) };
  const p = {
    rate: median(recorded.map((r) => r.rate)),
    start: median(recorded.map((r) => r.startMs)),
    last: median(recorded.map((r) => r.lastMs)),
    exit: median(recorded.map((r) => r.exitMs)),
  };
  console.log(`stdio bench${quick ? ' (quick)' : ''}: node ${process.version}, ${fmt(LINES)} Pi RPC lines, median of ${RUNS} runs each`);
  console.log(
    `throughput (first to last line): direct ${fmt(d.rate)} lines/s, record --stdio ${fmt(p.rate)} lines/s ` +
      `(${(100 * median(ratios)).toFixed(1)} % of direct; runs ${ratios.map((r) => (100 * r).toFixed(0)).join(' / ')} %)`,
  );
  console.log(
    `ceiling: a relay recording nothing ${fmt(median(bare.map((r) => r.rate)))} lines/s ` +
      `(${(100 * median(bareRatios)).toFixed(1)} % of direct; runs ${bareRatios.map((r) => (100 * r).toFixed(0)).join(' / ')} %)`,
  );
  console.log(`start (spawn to first line):     direct ${d.start.toFixed(0)} ms, record --stdio ${p.start.toFixed(0)} ms`);
  console.log(`spawn to last line:              direct ${d.last.toFixed(0)} ms, record --stdio ${p.last.toFixed(0)} ms (${((100 * d.last) / p.last).toFixed(1)} % of direct speed)`);
  console.log(`recording done (recorder exit):  ${p.exit.toFixed(0)} ms, ${fmt(LINES / ((p.exit - p.start) / 1000))} lines/s stored, every line checked in the file`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
