// Reading a big recording: `export` (NDJSON), `diff`, `validate` and `show --exchange` of its largest exchange,
// each as the built CLI runs for a user, on a recording of 200,000 messages (issue #34's target: ≥ 200k messages/s
// each). Messages/s are given by the child's CPU time (user + system, all its threads: the machine is shared, so
// wall time says more about the neighbours) and by wall time.
//
// Run after a build:  node bench/read-scale.js [--quick] [--bin PATH] [--keep DIR] [--outputs DIR]
//   --quick       50,000 messages instead of 200,000
//   --smoke       about a hundred (a check that the bench runs, and small recordings to compare outputs on)
//   --bin PATH    time another build's bin/agent-proxy.js (before/after comparisons) on the same recordings
//   --keep DIR    make the recordings in DIR and keep them (made once: reused when they are there)
//   --outputs DIR write each command's stdout to DIR/<command>.out, to compare two builds' outputs byte for byte
//   --only NAME   run only that command (export, diff, validate, show)
//
// The recording is made once, through the real recorder (`record` in front of bench/upstream.js), so its verdicts,
// schema hashes and rules version are a real recording's: three streamed LLM answers (OpenAI chat completions and
// Anthropic messages, one SSE event per token) and a WebSocket connection of JSON frames, plus a few small REST
// calls. Side B, for `diff`, is the same traffic recorded again with a few changes: one answer a token longer, the
// WebSocket one frame longer, and a REST call fewer.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { WebSocket } from 'ws';
import { startProcess, stop } from './lib/processes.js';

const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const quick = args.includes('--quick');
const smoke = args.includes('--smoke');
const BIN = resolve(option('--bin') ?? fileURLToPath(new URL('../bin/agent-proxy.js', import.meta.url)));
const RECORDER_BIN = fileURLToPath(new URL('../bin/agent-proxy.js', import.meta.url));
const UPSTREAM = fileURLToPath(new URL('./upstream.js', import.meta.url));
const TARGET = 200_000;
const SCALE = smoke ? 0.0005 : quick ? 0.25 : 1;

/** The traffic of one side: streamed answers (content chunks each), WebSocket frames, REST calls. */
function traffic(side) {
  const n = (x) => Math.round(x * SCALE);
  return {
    answers: [
      { path: '/v1/chat/completions', chunks: n(80_000) },
      { path: '/v1/messages', chunks: n(40_000) + (side === 'b' ? 1 : 0), anthropic: true },
      { path: '/v1/chat/completions', chunks: n(30_000) },
    ],
    frames: Math.max(5, n(50_000) - 40) + (side === 'b' ? 1 : 0),
    rest: side === 'b' ? 4 : 5,
  };
}

const OPENAI = {
  headers: { authorization: 'Bearer sk-bench' },
  body: JSON.stringify({ model: 'gpt-bench', messages: [{ role: 'user', content: 'Count.' }], stream: true, stream_options: { include_usage: true } }),
};
const ANTHROPIC = {
  headers: { 'x-api-key': 'sk-ant-bench', 'anthropic-version': '2023-06-01' },
  body: JSON.stringify({ model: 'claude-bench', max_tokens: 1024, messages: [{ role: 'user', content: 'Count.' }], stream: true }),
};

function call(base, path, api, query = '') {
  return new Promise((resolveCall, reject) => {
    const headers = api ? { 'content-type': 'application/json', accept: 'text/event-stream', ...api.headers } : {};
    const req = request(`${base}${path}${query}`, { method: api ? 'POST' : 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolveCall() : reject(new Error(`${path}: status ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(api?.body);
  });
}

function frames(base, n) {
  return new Promise((resolveFrames, reject) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws?n=${n}`, ['pi-rpc.v1'], { perMessageDeflate: false });
    ws.on('message', () => undefined);
    ws.on('close', () => resolveFrames());
    ws.on('error', reject);
  });
}

/** Records one side's traffic through a fresh recorder into `out`. */
async function recordSide(side, upstreamUrl, out) {
  const recorder = await startProcess([RECORDER_BIN, 'record', '--target', upstreamUrl, '--listen', '0', '--out', out, '--json', '--quiet'], (line) => JSON.parse(line));
  const base = recorder.info.url;
  const t = traffic(side);
  for (let i = 0; i < t.rest; i++) await call(base, '/health');
  for (const a of t.answers) await call(base, a.path, a.anthropic ? ANTHROPIC : OPENAI, `?n=${a.chunks}`);
  await frames(base, t.frames);
  await stop(recorder.child);
}

// The child reports its own CPU time and peak RSS on exit, on stderr's last line.
const PRELOAD = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nusage '+(u.userCPUTime+u.systemCPUTime)+' '+u.maxRSS+'\\n')})`;

/** Runs the CLI to its end: wall and CPU seconds, peak RSS, stdout (kept only when asked to). */
/**
 * Says when the recordings were judged by older rules than the timed build's: its readers then judge
 * every message again on read (`diff` ~3× the CPU), which kept recordings (--keep) made by an older
 * build silently measure.
 */
async function sayWhenJudgedAgain(file) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const stored = db.prepare('SELECT rules_version FROM recording').pluck().get();
  db.close();
  const { RULES_VERSION } = await import(pathToFileURL(join(dirname(dirname(BIN)), 'dist/core/rules-version.js')).href);
  if (stored !== RULES_VERSION) console.log(`  the recordings were judged under rules ${stored}, the timed build's are ${RULES_VERSION}: its readers judge every message again (record a fresh --keep folder to time the current rules)`);
}

function run(cliArgs, keepStdout) {
  return new Promise((resolveRun, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', PRELOAD, BIN, ...cliArgs], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    const out = [];
    let stdoutBytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdoutBytes += chunk.length;
      if (keepStdout) out.push(chunk);
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - started) / 1e9;
      const usage = /\nusage (\d+) (\d+)\n$/.exec(stderr);
      resolveRun({ code, wall, cpu: Number(usage?.[1] ?? NaN) / 1e6, rssMb: Number(usage?.[2] ?? NaN) / 1024, stdoutBytes, stdout: Buffer.concat(out), stderr: stderr.replace(/\nusage \d+ \d+\n$/, '') });
    });
  });
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const keepDir = option('--keep');
const outputs = option('--outputs');
const dir = keepDir ? resolve(keepDir) : mkdtempSync(join(tmpdir(), 'agent-proxy-bench-read-'));
mkdirSync(dir, { recursive: true });
if (outputs) mkdirSync(outputs, { recursive: true });
const size = smoke ? '-smoke' : quick ? '-quick' : '';
const a = join(dir, `a${size}.db`);
const b = join(dir, `b${size}.db`);
try {
  if (!existsSync(a) || !existsSync(b)) {
    const started = performance.now();
    const { child: upstream, info } = await startProcess([UPSTREAM], (line) => JSON.parse(line));
    try {
      await recordSide('a', `http://127.0.0.1:${info.port}`, a);
      await recordSide('b', `http://127.0.0.1:${info.port}`, b);
    } finally {
      await stop(upstream);
    }
    console.log(`recorded 2 sides in ${((performance.now() - started) / 1000).toFixed(1)} s (${dir})`);
  }
  const shown = JSON.parse((await run(['show', a, '--json'], true)).stdout.toString('utf8'));
  const messages = shown.totals.messages;
  const largest = shown.exchanges.reduce((x, y) => (y.messages > x.messages ? y : x));
  if (shown.totals.invalid !== 0) throw new Error(`read-scale: the recording holds ${shown.totals.invalid} invalid messages; expected none`);
  console.log(`read bench: node ${process.version}, ${BIN === RECORDER_BIN ? 'this build' : BIN}; a recording of ${fmt(messages)} messages in ${shown.exchanges.length} exchanges (largest #${largest.id}: ${fmt(largest.messages)})`);
  await sayWhenJudgedAgain(a);
  const commands = [
    ['export', ['export', a, '--format', 'ndjson'], messages, 0],
    ['diff', ['diff', a, b], 2 * messages, 1],
    ['validate', ['validate', a], messages, 0],
    ['show --exchange', ['show', a, '--exchange', String(largest.id)], largest.messages, 0],
  ];
  const only = option('--only');
  for (const [name, cliArgs, count, exitCode] of commands.filter(([name]) => only === undefined || name.startsWith(only))) {
    const r = await run(cliArgs, outputs !== undefined);
    if (r.code !== exitCode) {
      console.error(`read-scale: ${name} exited ${r.code} (expected ${exitCode}): ${r.stderr.trim().split('\n')[0]}`);
      process.exitCode = 1;
      continue;
    }
    if (outputs) writeFileSync(join(outputs, `${name.replace(/\W+/g, '-')}.out`), r.stdout);
    const perCpu = count / r.cpu;
    console.log(
      `${name.padEnd(16)} ${fmt(count).padStart(9)} messages: CPU ${r.cpu.toFixed(2)} s → ${fmt(perCpu).padStart(9)} msg/s, wall ${r.wall.toFixed(2)} s → ${fmt(count / r.wall).padStart(9)} msg/s; ` +
        `peak RSS ${r.rssMb.toFixed(0)} MB, ${(r.stdoutBytes / 1e6).toFixed(1)} MB out (target ≥ ${fmt(TARGET)}/s by CPU: ${perCpu >= TARGET ? 'met' : 'not met'})`,
    );
  }
} finally {
  if (!keepDir) rmSync(dir, { recursive: true, force: true });
}
