// Recording overhead, measured against a direct connection in the same run.
// Run:  npm run bench   (or, after a build:  node bench/record.js [--quick])
//
// Three processes: the upstream (bench/upstream.js), the recorder (the real CLI, `proxy record`),
// and this client. Each throughput figure is taken direct and through a fresh recorder in
// alternating rounds (three; one with --quick), and the medians are reported with each round's ratio.
// REST rounds also go through bench/bare-forwarder.js, a node:http forwarder that records nothing:
// its share of direct is the ceiling any node:http recorder can reach on the same machine.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { startProcess, stop } from './lib/processes.js';
import { sseThroughput } from './lib/sse-client.js';

const quick = process.argv.includes('--quick');
const SSE_EVENTS = quick ? 20_000 : 200_000;
const PACED_EVENTS = quick ? 300 : 2_000;
const PACED_GAP_MS = 2;
const WS_FRAMES = quick ? 20_000 : 100_000;
const REST_REQUESTS = quick ? 5_000 : 20_000;
const REST_CONCURRENCY = 32;
/** Each throughput figure is the median of this many alternating direct / recorded rounds. */
const ROUNDS = quick ? 1 : 3;
const RSS_EVENTS = process.env.RSS_EVENTS ? Number(process.env.RSS_EVENTS) : quick ? 100_000 : 1_000_000;

const BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));
const UPSTREAM = fileURLToPath(new URL('./upstream.js', import.meta.url));
const BARE_FORWARDER = fileURLToPath(new URL('./bare-forwarder.js', import.meta.url));

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

/** CPU time (user + system, all threads) a process has used, in ms; Linux clock ticks are 10 ms. */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Paced events stamped with their send time (CLOCK_MONOTONIC, shared by all processes). */
function pacedLatencies(base) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const req = request(`${base}/sse-paced?n=${PACED_EVENTS}&gap=${PACED_GAP_MS}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (text) => {
        const now = process.hrtime.bigint();
        const chunk = tail + text;
        const parts = chunk.split('\n\n');
        tail = parts.pop();
        for (const part of parts) {
          const stamp = /"delta":"t(\d+)"/.exec(part);
          if (stamp) latencies.push(Number(now - BigInt(stamp[1])) / 1e6);
        }
      });
      res.on('end', () => resolve(latencies));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ threadId: 'bench-thread', runId: 'bench-run', messages: [] }));
  });
}

function wsThroughput(base, n) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws?n=${n}`, ['pi-rpc.v1'], { perMessageDeflate: false });
    let frames = 0;
    ws.on('message', () => frames++);
    ws.on('close', (code) => resolve({ frames, code, seconds: Number(process.hrtime.bigint() - started) / 1e9 }));
    ws.on('error', reject);
  });
}

async function restThroughput(base, total, concurrency) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let sent = 0;
  let done = 0;
  const started = process.hrtime.bigint();
  const one = () =>
    new Promise((resolve, reject) => {
      const req = request(`${base}/rest`, { agent, headers: { 'x-request-id': `r${sent}` } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
  const worker = async () => {
    while (sent < total) {
      sent++;
      await one();
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return { requests: done, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const median = (values) => percentile(values, 50);
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const percent = (ratio) => `${(100 * ratio).toFixed(1)} % of direct`;

/**
 * Runs `run` against a fresh recorder. `warm` first sends it a little of the same traffic, as each
 * direct figure is taken against a warmed upstream: the figures compare steady states, not a cold
 * start (the recorder's start-up is measured by bench/stdio.js).
 */
async function withRecorder(upstreamUrl, dir, name, warm, run) {
  const out = join(dir, `${name}.db`);
  const { child, info } = await startProcess([BIN, 'record', '--target', upstreamUrl, '--listen', '0', '--out', out, '--json', '--quiet'], (line) => JSON.parse(line));
  try {
    if (warm) await warm(info.url);
    return await run(info.url, child);
  } finally {
    await stop(child);
  }
}

/** Like withRecorder, through bench/bare-forwarder.js: a node:http forwarder that records nothing. */
async function withBareForwarder(upstreamUrl, warm, run) {
  const { child, info } = await startProcess([BARE_FORWARDER, upstreamUrl], (line) => JSON.parse(line));
  try {
    await warm(info.url);
    return await run(info.url);
  } finally {
    await stop(child);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-bench-'));
const { child: upstream, info } = await startProcess([UPSTREAM], (line) => JSON.parse(line));
const upstreamUrl = `http://127.0.0.1:${info.port}`;
const results = {};
try {
  // Each kind of traffic is warmed on both paths (JIT, connections) before it is measured.
  const warmSse = (url) => sseThroughput(url, 2_000);
  const warmWs = (url) => wsThroughput(url, 2_000);
  const warmRest = (url) => restThroughput(url, 2_000, REST_CONCURRENCY);

  /**
   * ROUNDS alternating rounds of direct, then a fresh warmed recorder; medians of each side, and the
   * median of the per-round ratios as the figure (each ratio compares runs taken side by side).
   * Alternating keeps a machine that speeds up or slows down from favouring a side.
   * With `bare`, each round also goes through the bare forwarder, the ceiling for the recorded figure.
   */
  async function compare(name, warm, measure, rate, { bare = false } = {}) {
    await warm(upstreamUrl);
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const direct = await measure(upstreamUrl);
      const viaBare = bare ? rate(await withBareForwarder(upstreamUrl, warm, measure)) : undefined;
      const proxied = await withRecorder(upstreamUrl, dir, `${name}-${round}`, warm, measure);
      rounds.push({ direct: rate(direct), bare: viaBare, proxied: rate(proxied), proxiedRun: proxied });
    }
    const ratios = rounds.map((r) => r.proxied / r.direct);
    const bareRatios = bare ? rounds.map((r) => r.bare / r.direct) : undefined;
    return {
      direct: median(rounds.map((r) => r.direct)),
      proxied: median(rounds.map((r) => r.proxied)),
      ratio: median(ratios),
      ratios,
      ...(bare ? { bare: median(rounds.map((r) => r.bare)), bareRatio: median(bareRatios), bareRatios } : {}),
      runs: rounds.map((r) => r.proxiedRun),
    };
  }

  results.sse = await compare('sse', warmSse, (url) => sseThroughput(url, SSE_EVENTS), (run) => run.events / run.seconds);

  const latDirect = await pacedLatencies(upstreamUrl);
  const latProxied = await withRecorder(upstreamUrl, dir, 'latency', warmSse, (url) => pacedLatencies(url));
  results.latency = {
    direct: { p50: percentile(latDirect, 50), p99: percentile(latDirect, 99) },
    proxied: { p50: percentile(latProxied, 50), p99: percentile(latProxied, 99) },
  };

  results.ws = await compare('ws', warmWs, (url) => wsThroughput(url, WS_FRAMES), (run) => run.frames / run.seconds);

  results.rest = await compare(
    'rest',
    warmRest,
    async (url, child) => {
      if (!child) return restThroughput(url, REST_REQUESTS, REST_CONCURRENCY);
      // Where the CPU goes: on a machine with fewer cores than busy processes, the ratio is set by the sum.
      const before = { client: process.cpuUsage(), upstream: cpuMsOf(upstream.pid), recorder: cpuMsOf(child.pid) };
      const run = await restThroughput(url, REST_REQUESTS, REST_CONCURRENCY);
      const client = process.cpuUsage(before.client);
      const perRequest = (ms) => (1000 * ms) / run.requests;
      run.cpu = {
        client: perRequest((client.user + client.system) / 1000),
        upstream: perRequest(cpuMsOf(upstream.pid) - before.upstream),
        recorder: perRequest(cpuMsOf(child.pid) - before.recorder),
      };
      return run;
    },
    (run) => run.requests / run.seconds,
    { bare: true },
  );

  results.rss = await withRecorder(upstreamUrl, dir, 'rss', undefined, async (url, child) => {
    const samples = [];
    let next = 0;
    await sseThroughput(url, RSS_EVENTS, (events) => {
      if (events >= next) {
        samples.push({ events, rss: rssOf(child.pid) });
        next += RSS_EVENTS / 20;
      }
    });
    samples.push({ events: RSS_EVENTS, rss: rssOf(child.pid) });
    return samples;
  });
} finally {
  await stop(upstream);
  rmSync(dir, { recursive: true, force: true });
}

const peak = Math.max(...results.rss.map((s) => s.rss));
const mid = results.rss[Math.floor(results.rss.length / 2)].rss;
console.log(`record bench${quick ? ' (quick)' : ''}: node ${process.version}, ${fmt(SSE_EVENTS)} SSE events, ${fmt(WS_FRAMES)} WS frames, ${fmt(REST_REQUESTS)} REST requests, medians of ${ROUNDS} alternating rounds`);
const ratios = (result) => result.ratios.map((r) => `${(100 * r).toFixed(1)}`).join(' / ');
console.log(
  `SSE events/s:        direct ${fmt(results.sse.direct)}  recorded ${fmt(results.sse.proxied)}  (${percent(results.sse.ratio)}; rounds ${ratios(results.sse)} %)`,
);
console.log(
  `event latency (ms):  direct p50 ${results.latency.direct.p50.toFixed(3)} p99 ${results.latency.direct.p99.toFixed(3)}  ` +
    `recorded p50 ${results.latency.proxied.p50.toFixed(3)} p99 ${results.latency.proxied.p99.toFixed(3)}  ` +
    `added p50 ${(results.latency.proxied.p50 - results.latency.direct.p50).toFixed(3)} p99 ${(results.latency.proxied.p99 - results.latency.direct.p99).toFixed(3)}`,
);
console.log(
  `WS frames/s:         direct ${fmt(results.ws.direct)}  recorded ${fmt(results.ws.proxied)}  (${percent(results.ws.ratio)}; rounds ${ratios(results.ws)} %), ` +
    `close ${results.ws.runs.map((run) => run.code).join('/')}`,
);
console.log(
  `REST req/s (c=${REST_CONCURRENCY}):   direct ${fmt(results.rest.direct)}  recorded ${fmt(results.rest.proxied)}  (${percent(results.rest.ratio)}; rounds ${ratios(results.rest)} %)`,
);
console.log(
  `REST ceiling:        a node:http forwarder recording nothing ${fmt(results.rest.bare)}  (${percent(results.rest.bareRatio)}; rounds ${results.rest.bareRatios.map((r) => (100 * r).toFixed(1)).join(' / ')} %)`,
);
const cpu = (key) => median(results.rest.runs.map((run) => run.cpu[key]));
console.log(
  `REST CPU per request (recorded runs, median, ${availableParallelism()} CPUs): recorder ${cpu('recorder').toFixed(0)} us (all threads), ` +
    `client ${cpu('client').toFixed(0)} us, upstream ${cpu('upstream').toFixed(0)} us`,
);
console.log(
  `recorder RSS over ${fmt(RSS_EVENTS)} events: peak ${(peak / 2 ** 20).toFixed(1)} MB, at half-way ${(mid / 2 ** 20).toFixed(1)} MB, ` +
    `samples ${results.rss.map((s) => (s.rss / 2 ** 20).toFixed(0)).join(' ')}`,
);
