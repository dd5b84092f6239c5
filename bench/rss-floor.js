// A floor under the recorder's peak RSS (issue #34: < 120 MB over 1M SSE events), as bench/record-floor.js is one
// under its CPU: the same traffic as `node bench/record.js --only rss` (bench/upstream.js's stream of 1M events, 64 a
// write, read by the same client), through three processes in alternating rounds:
//   bare      bench/bare-forwarder.js: node:http forwarding that records nothing (node, its heap, the sockets)
//   worker    bench/floor-recorder.js --idle: the same forwarding beside the floor's worker, started, its recording
//             open, handed nothing: what merely having a recording worker (an isolate, SQLite) costs
//   floor     bench/floor-recorder.js: the same forwarding plus what any recorder of this design must hold: the
//             socket reads copied into 48 KiB batches for a worker thread, 16 MiB of them at most in flight, and
//             a worker (young generation 4 MiB) that frames, parses and judges each event and stores a row per
//             event with better-sqlite3 (the store's pragmas, the recording worker's 512 KiB page cache)
//   recorder  the CLI's `record` (or --recorder-bin's), as record.js starts it
// Each side's RSS is sampled as record.js's rss part samples the recorder's (every 1/20 of the stream, then every
// 100 ms until the recording holds every event), and its peak is also read from the kernel's high-water mark
// (VmHWM, /proc/<pid>/status) once the last event is stored: the peak between samples too. With --memory, where the
// memory lies at each side's highest sample (bench/lib/proc-memory.js, as record.js --memory).
// Every process runs on this bench's node: run it with another Node from a copy of the build whose better-sqlite3
// matches that Node (the children are spawned with process.execPath).
// Run (after a build):  node bench/rss-floor.js [--rounds N] [--events N] [--only bare,floor,recorder] [--memory]
//   [--recorder-bin PATH] [--smoke]   (--only bare,worker,floor,recorder)   (--smoke: 5,000 events, one round: test/bench/bench-smoke.test.ts runs it)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess, stop } from './lib/processes.js';
import { residentByKind } from './lib/proc-memory.js';
import { RecordingProgress } from './lib/recording-progress.js';
import { sseThroughput } from './lib/sse-client.js';

const argValue = (name) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const SMOKE = process.argv.includes('--smoke');
const MEMORY = process.argv.includes('--memory');
const EVENTS = Number(argValue('--events') ?? (SMOKE ? 5_000 : 1_000_000));
const ROUNDS = Number(argValue('--rounds') ?? (SMOKE ? 1 : 3));
if (!Number.isInteger(EVENTS) || EVENTS < 20) throw new Error('--events takes a whole number of events, 20 or more');
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds takes a whole number, 1 or more');
const SIDES = ['bare', 'worker', 'floor', 'recorder'];
const ONLY = argValue('--only')?.split(',') ?? SIDES;
for (const side of ONLY) if (!SIDES.includes(side)) throw new Error(`--only: ${SIDES.join(', ')}, not ${side}`);

const BIN = argValue('--recorder-bin') ?? fileURLToPath(new URL('../bin/agent-proxy.js', import.meta.url));
const UPSTREAM = fileURLToPath(new URL('./upstream.js', import.meta.url));
const BARE_FORWARDER = fileURLToPath(new URL('./bare-forwarder.js', import.meta.url));
const FLOOR_RECORDER = fileURLToPath(new URL('./floor-recorder.js', import.meta.url));

const kbOf = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

/** The side's process, started with its recording (if it makes one) at `out`. */
function startSide(side, upstreamUrl, out) {
  const args = {
    bare: [BARE_FORWARDER, upstreamUrl],
    worker: [FLOOR_RECORDER, upstreamUrl, out, '--idle'],
    floor: [FLOOR_RECORDER, upstreamUrl, out],
    recorder: [BIN, 'record', '--target', upstreamUrl, '--listen', '0', '--out', out, '--json', '--quiet'],
  }[side];
  return startProcess(args, (line) => JSON.parse(line));
}

/** One side's run: the stream read through it, its RSS sampled as record.js samples the recorder's. */
async function runSide(side, upstreamUrl, dir, round) {
  const out = join(dir, `${side}-${round}.db`);
  const { child, info } = await startSide(side, upstreamUrl, out);
  const progress = side === 'floor' || side === 'recorder' ? new RecordingProgress(out, 'messages') : undefined;
  const samples = [];
  let atPeak;
  const sample = () => {
    const rss = kbOf(child.pid, 'VmRSS');
    if (MEMORY && rss > (atPeak?.rss ?? 0)) atPeak = { rss, ...residentByKind(child.pid) };
    samples.push(rss);
  };
  try {
    let next = 0;
    const run = await sseThroughput(info.url, EVENTS, (events) => {
      if (events >= next) {
        sample();
        next += EVENTS / 20;
      }
    });
    // The stream's own events (its run's start and end) come with the EVENTS asked for.
    if (run.events < EVENTS) throw new Error(`${side}: the client read ${run.events} events, fewer than ${EVENTS}`);
    sample();
    let stored;
    if (progress) {
      // The recorder stores the request's body as a message too; the floor stores the stream's events alone.
      const due = side === 'recorder' ? run.events + 1 : run.events;
      while ((stored = progress.count()) < due) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        sample();
      }
      if (stored !== due) throw new Error(`${side}: ${stored} messages stored, not the ${due} due`);
    }
    return { peak: Math.max(...samples), hwm: kbOf(child.pid, 'VmHWM'), stored, atPeak };
  } finally {
    progress?.close();
    await stop(child);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-rss-floor-'));
const { child: upstream, info } = await startProcess([UPSTREAM], (line) => JSON.parse(line));
const upstreamUrl = `http://127.0.0.1:${info.port}`;
const runs = Object.fromEntries(ONLY.map((side) => [side, []]));
try {
  for (let round = 0; round < ROUNDS; round++) for (const side of ONLY) runs[side].push(await runSide(side, upstreamUrl, dir, round));
} finally {
  await stop(upstream);
  rmSync(dir, { recursive: true, force: true });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const mb = (kb) => (kb / 1024).toFixed(1);
const LABELS = { bare: 'bare forwarder', worker: 'idle worker', floor: 'floor recorder', recorder: 'recorder' };
console.log(
  `rss floor: node ${process.version}, ${EVENTS.toLocaleString('en-US')} SSE events (64 a write) per run, ${ROUNDS} alternating round${ROUNDS === 1 ? '' : 's'}` +
    `${argValue('--recorder-bin') ? `, recorder ${BIN}` : ''}; MB, medians (rounds)`,
);
for (const side of ONLY) {
  const list = runs[side];
  const stored = list[0].stored === undefined ? '' : `, ${list[0].stored.toLocaleString('en-US')} messages stored`;
  console.log(
    `  ${LABELS[side].padEnd(15)} peak RSS sampled ${mb(median(list.map((r) => r.peak))).padStart(6)} (${list.map((r) => mb(r.peak)).join(' / ')})` +
      `   high-water mark ${mb(median(list.map((r) => r.hwm))).padStart(6)} (${list.map((r) => mb(r.hwm)).join(' / ')})${stored}`,
  );
  if (MEMORY) {
    const kinds = (r) => `${mb(r.atPeak.file)} (node ${mb(r.atPeak.nodeBinary)}) / ${mb(r.atPeak.brk)} / ${mb(r.atPeak.arenas)} / ${mb(r.atPeak.otherAnon)}`;
    console.log(`  ${''.padEnd(15)} at the highest sample, mapped files (node's binary) / main arena / other threads' arenas / other anonymous: ${list.map(kinds).join('; ')}`);
  }
}
/** Each round's difference, so that a round's load cancels out. */
const above = (over, under, key) => runs[over].map((r, i) => r[key] - runs[under][i][key]);
const aboveLine = (over, under, label) => {
  if (!runs[over] || !runs[under]) return;
  const sampled = above(over, under, 'peak');
  const hwm = above(over, under, 'hwm');
  console.log(
    `  ${label.padEnd(40)} sampled ${mb(median(sampled))} (${sampled.map(mb).join(' / ')})   high-water mark ${mb(median(hwm))} (${hwm.map(mb).join(' / ')})`,
  );
};
aboveLine('worker', 'bare', 'idle worker above the bare forwarder:');
aboveLine('floor', 'bare', 'floor above the bare forwarder:');
aboveLine('recorder', 'floor', 'recorder above the floor:');
