// What recording costs per MCP message over stdio: a client (this process) drives a stand-in MCP
// server (bench/mcp-server.js) through initialize, tools/list and then CALLS tools/call requests,
// WINDOW in flight, as an agent calling tools does; the server is spawned directly, behind
// bench/bare-relay.js (a relay that records nothing: the ceiling), and behind `record --stdio` (which
// recognises MCP on its own, judges each message against the 2025-11-25 schema, the lifecycle and the
// tool's own input and output schemas, and stores it). Reported: the CPU (user + system, all threads,
// from /proc) the process between client and server spends per message (a request or a response
// line), for the bare relay and the recorder, measured after a warm-up and once the recorder has
// stored everything (its worker may lag); calls/s of each; each median of ROUNDS alternating rounds.
// Each recording is checked to hold every message, judged `mcp`, with no invalid one, then deleted.
// Run:  npm run bench   (or, after a build:  node bench/mcp-stdio.js [--quick | --smoke])
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processCpuMs, settled } from './lib/proc-cpu.js';
import { RecordingProgress } from './lib/recording-progress.js';

const smoke = process.argv.includes('--smoke');
const quick = process.argv.includes('--quick');
const CALLS = smoke ? 300 : quick ? 5_000 : 20_000;
const WARM = smoke ? 50 : 1_000;
const WINDOW = 16;
const ROUNDS = smoke || quick ? 1 : 3;
const BIN = fileURLToPath(new URL('../bin/agent-proxy.js', import.meta.url));
const SERVER = fileURLToPath(new URL('./mcp-server.js', import.meta.url));
const BARE_RELAY = fileURLToPath(new URL('./bare-relay.js', import.meta.url));

/** A JSON-RPC client over a child's stdin/stdout: `request` resolves with the answer to its id. */
function connect(args) {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const pending = new Map();
  let nextId = 0;
  let tail = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    const lines = (tail + text).split('\n');
    tail = lines.pop();
    for (const line of lines) {
      const message = JSON.parse(line);
      const resolve = pending.get(message.id);
      if (resolve === undefined) throw new Error(`an answer to no request: ${line.slice(0, 200)}`);
      pending.delete(message.id);
      resolve(message);
    }
  });
  const exited = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
  return {
    child,
    request(method, params) {
      const id = nextId++;
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }) + '\n');
      return new Promise((resolve) => pending.set(id, resolve));
    },
    notify(method) {
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n');
    },
    close() {
      child.stdin.end();
      return exited;
    },
  };
}

/** `n` tools/call requests, WINDOW in flight; resolves once every one is answered. */
async function calls(client, n) {
  let sent = 0;
  const worker = async () => {
    while (sent < n) {
      const i = sent++;
      const answer = await client.request('tools/call', { name: 'echo', arguments: { message: `call ${i} of the bench`, count: i } });
      if (answer.error) throw new Error(`tools/call failed: ${JSON.stringify(answer.error)}`);
    }
  };
  await Promise.all(Array.from({ length: WINDOW }, worker));
}

/**
 * One session through `args`: the handshake, a warm-up, then CALLS timed calls; the CPU of the child per message.
 * `recording`: the recorder's file, whose every message is waited for (the warm-up's before the timed calls, theirs
 * before the CPU is read): a recorder stores what it relayed after it.
 */
async function session(args, recording) {
  const progress = recording && new RecordingProgress(recording, 'messages');
  const client = connect(args);
  await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-client', version: '1.0.0' } });
  client.notify('notifications/initialized');
  await client.request('tools/list');
  await calls(client, WARM);
  // The initialize exchange (2 lines), notifications/initialized, tools/list (2), then two lines per call.
  await progress?.reach(5 + 2 * WARM);
  await settled(client.child.pid);
  const before = processCpuMs(client.child.pid);
  const started = process.hrtime.bigint();
  await calls(client, CALLS);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // A recorder may still be storing what it forwarded: that is its CPU too.
  await progress?.reach(5 + 2 * (WARM + CALLS));
  progress?.close();
  await settled(client.child.pid);
  const cpuMs = processCpuMs(client.child.pid) - before;
  await client.close();
  return { callsPerSecond: CALLS / seconds, cpuPerMessageUs: (1000 * cpuMs) / (2 * CALLS) };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const us = (n) => `${n.toFixed(2)} µs`;

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-bench-mcp-'));
try {
  const record = (out) => [BIN, 'record', '--stdio', '--quiet', '--out', out, '--', process.execPath, SERVER];
  // The initialize exchange (2 lines), notifications/initialized, tools/list (2), then two lines per call.
  const expectedMessages = 5 + 2 * (WARM + CALLS);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const direct = await session([SERVER]);
    const bare = await session([BARE_RELAY, process.execPath, SERVER]);
    const out = join(dir, `mcp-${round}.db`);
    const recorded = await session(record(out), out);
    const shown = JSON.parse(spawnSync(process.execPath, [BIN, 'show', out, '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout);
    const [exchange] = shown.exchanges;
    if (shown.totals.messages !== expectedMessages || exchange?.protocol !== 'mcp' || shown.totals.invalid !== 0) {
      throw new Error(`expected ${expectedMessages} valid mcp messages recorded; the recording holds ${shown.totals.messages} (${exchange?.protocol}, ${shown.totals.invalid} invalid)`);
    }
    rmSync(out, { force: true });
    rounds.push({ direct, bare, recorded });
  }
  const of = (side, key) => median(rounds.map((r) => r[side][key]));
  const bareCpu = of('bare', 'cpuPerMessageUs');
  const recordCpu = of('recorded', 'cpuPerMessageUs');
  console.log(`mcp stdio bench${smoke ? ' (smoke)' : quick ? ' (quick)' : ''}: node ${process.version}, ${fmt(CALLS)} tools/call requests (${WINDOW} in flight) after initialize, tools/list and ${fmt(WARM)} warm-up calls, median of ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}`);
  console.log(`  CPU per message (all threads): bare relay ${us(bareCpu)}, record --stdio ${us(recordCpu)}; recording's own ${us(recordCpu - bareCpu)} (judged against the schema, the lifecycle and the tool's input and output schemas, and stored)`);
  console.log(`  calls/s: direct ${fmt(of('direct', 'callsPerSecond'))}, bare relay ${fmt(of('bare', 'callsPerSecond'))}, record --stdio ${fmt(of('recorded', 'callsPerSecond'))}`);
  console.log(`  the stand-in server itself: ${us(of('direct', 'cpuPerMessageUs'))} CPU per message; every recording checked: ${fmt(expectedMessages)} messages, mcp, none invalid`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
