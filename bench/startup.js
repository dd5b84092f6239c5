// How long `proxy record` takes to listen, on an idle CPU and with busy processes beside it.
// Run:  npm run build && node bench/startup.js [--runs N] [--busy N]
//
// Each run spawns the real CLI and times spawn → its `listening on` line, then stops it with SIGINT.
// With --busy N (default: one per CPU, plus one) as many spinning child processes compete for the
// CPU, as on a CI machine running tests beside the recorder. Medians are reported.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
};
const RUNS = arg('--runs', 7);
const BUSY = arg('--busy', availableParallelism() + 1);

async function timeToListen() {
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-startup-'));
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--out', join(dir, 'run.db'), '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('listening on')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`proxy record exited with ${code} before listening`)));
  });
  const elapsed = performance.now() - started;
  child.kill('SIGINT');
  await new Promise((resolve) => child.on('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
  return elapsed;
}

async function medianOf(runs) {
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await timeToListen());
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], all: times };
}

const format = ({ median, all }) => `${median.toFixed(0)} ms (runs: ${all.map((t) => t.toFixed(0)).join(', ')})`;

console.log(`record start-up, spawn to "listening on", median of ${RUNS}`);
console.log(`  idle CPU:           ${format(await medianOf(RUNS))}`);
const spinners = Array.from({ length: BUSY }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
try {
  console.log(`  ${BUSY} busy processes:  ${format(await medianOf(RUNS))}`);
} finally {
  for (const spinner of spinners) spinner.kill('SIGKILL');
}
