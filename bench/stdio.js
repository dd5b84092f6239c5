// Lines/s through `proxy record --stdio` against a direct pipe, measured in the same run.
// Run:  npm run bench   (or, after a build:  node bench/stdio.js [--quick])
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const quick = process.argv.includes('--quick');
const LINES = quick ? 50_000 : 500_000;
const BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));
const AGENT = fileURLToPath(new URL('./stdio-agent.js', import.meta.url));

/** Runs a command, counts the LF-terminated lines on its stdout, returns lines per second. */
function linesPerSecond(args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let lines = 0;
    child.stdout.on('data', (chunk) => {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited with ${code}`));
      else resolve({ lines, rate: lines / seconds });
    });
    child.stdin.end();
  });
}

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-bench-stdio-'));
try {
  await linesPerSecond([AGENT, '2000']);
  const direct = await linesPerSecond([AGENT, String(LINES)]);
  const recorded = await linesPerSecond([BIN, 'record', '--stdio', '--quiet', '--protocol', 'pi-rpc', '--out', join(dir, 'stdio.db'), '--', process.execPath, AGENT, String(LINES)]);
  if (recorded.lines !== LINES || direct.lines !== LINES) throw new Error(`line counts differ: direct ${direct.lines}, recorded ${recorded.lines}, expected ${LINES}`);
  const fmt = (n) => Math.round(n).toLocaleString('en-US');
  console.log(`stdio bench${quick ? ' (quick)' : ''}: ${fmt(LINES)} lines: direct ${fmt(direct.rate)} lines/s, record --stdio ${fmt(recorded.rate)} lines/s (${((100 * recorded.rate) / direct.rate).toFixed(1)} % of direct)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
