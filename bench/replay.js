// Replay throughput, measured against a direct connection in the same run.
// Run after a build:  node bench/replay.js [--quick]
//
// Three processes: the upstream (bench/upstream.js), the replay (the real CLI, `proxy replay
// --timing none`) and this client. The recording it serves is made first, with `proxy record`,
// of the very stream the direct figure reads: the same events, the same bytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess, stop } from './lib/processes.js';
import { sseThroughput } from './lib/sse-client.js';

const quick = process.argv.includes('--quick');
const SSE_EVENTS = quick ? 20_000 : 200_000;
const ROUNDS = 3;
const TARGET_RATIO = 0.8;

const BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));
const UPSTREAM = fileURLToPath(new URL('./upstream.js', import.meta.url));

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-replay-bench-'));
const out = join(dir, 'bench.db');
const upstream = await startProcess([UPSTREAM], (line) => JSON.parse(line));
const direct = `http://127.0.0.1:${upstream.info.port}`;
try {
  // 1. Record the stream once.
  const recorder = await startProcess([BIN, 'record', '--target', direct, '--listen', '0', '--out', out, '--quiet'], (line) => line.split(' ')[2]);
  const recorded = await sseThroughput(recorder.info, SSE_EVENTS);
  await stop(recorder.child);

  // 2. Serve it, as fast as the client reads, as often as asked.
  const replay = await startProcess([BIN, 'replay', out, '--listen', '0', '--timing', 'none', '--reuse', '--quiet'], (line) => line.replace('listening on ', ''));
  try {
    const directRates = [];
    const replayRates = [];
    for (let round = 0; round < ROUNDS; round++) {
      const d = await sseThroughput(direct, SSE_EVENTS);
      const r = await sseThroughput(replay.info, SSE_EVENTS);
      if (r.status !== 200 || r.events !== recorded.events) throw new Error(`the replay sent ${r.events} events (status ${r.status}); ${recorded.events} were recorded`);
      directRates.push(d.perSecond);
      replayRates.push(r.perSecond);
    }
    const best = (xs) => Math.max(...xs);
    const ratio = best(replayRates) / best(directRates);
    console.log(`replay bench${quick ? ' (quick)' : ''}: node ${process.version}, ${fmt(recorded.events)} SSE events, best of ${ROUNDS}`);
    console.log(`replay bench: SSE events/s direct ${fmt(best(directRates))}, replay ${fmt(best(replayRates))} (${Math.round(ratio * 100)} % of direct)`);
    if (ratio < TARGET_RATIO) {
      console.log(`replay bench: below the ${TARGET_RATIO * 100} % target`);
      process.exitCode = 1;
    }
  } finally {
    await stop(replay.child);
  }
} finally {
  await stop(upstream.child);
  rmSync(dir, { recursive: true, force: true });
}
