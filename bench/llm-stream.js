// What recording costs per LLM stream chunk: a client (this process) asks for ANSWERS streamed OpenAI
// chat completions of CHUNKS content chunks each (bench/upstream.js writes one chunk per write(), as a
// model streams its tokens, then the finish and usage chunks and `data: [DONE]`), CONCURRENCY at a
// time, through bench/bare-forwarder.js (a node:http forwarder that records nothing: the ceiling) and
// through `record` (which recognises the OpenAI API by its route, judges the request and each chunk
// against the API's schema and the stream rules, and stores them). Reported: the CPU (user + system,
// all threads, from /proc) the process between client and upstream spends per chunk, measured after a
// warm-up and once the recorder has stored everything; chunks/s of each and of direct; each median
// of ROUNDS alternating rounds. Each recording is checked to hold every chunk, judged `openai`, with
// no invalid message.
// Run:  npm run bench   (or, after a build:  node bench/llm-stream.js [--quick | --smoke])
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess, stop } from './lib/processes.js';
import { processCpuMs, settled } from './lib/proc-cpu.js';

const smoke = process.argv.includes('--smoke');
const quick = process.argv.includes('--quick');
const ANSWERS = smoke ? 20 : quick ? 200 : 1_000;
const CHUNKS = smoke ? 20 : 100;
const WARM_ANSWERS = smoke ? 5 : 50;
const CONCURRENCY = 4;
const ROUNDS = smoke || quick ? 1 : 3;
const BIN = fileURLToPath(new URL('../bin/agent-proxy.js', import.meta.url));
const UPSTREAM = fileURLToPath(new URL('./upstream.js', import.meta.url));
const BARE_FORWARDER = fileURLToPath(new URL('./bare-forwarder.js', import.meta.url));
const REQUEST = JSON.stringify({ model: 'gpt-bench', messages: [{ role: 'system', content: 'You are a bench.' }, { role: 'user', content: 'Count.' }], stream: true, stream_options: { include_usage: true } });
/** Server messages per answer: the role chunk, CHUNKS content chunks, the finish chunk, the usage chunk, `[DONE]`. */
const EVENTS_PER_ANSWER = CHUNKS + 4;

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** One streamed answer; resolves with the number of SSE events it held. */
function answer(base) {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/v1/chat/completions?n=${CHUNKS}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', accept: 'text/event-stream' } }, (res) => {
      let events = 0;
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (text) => {
        const parts = (tail + text).split('\n\n');
        tail = parts.pop();
        events += parts.length;
      });
      res.on('end', () => (res.statusCode === 200 ? resolve(events) : reject(new Error(`status ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(REQUEST);
  });
}

/** `n` answers, CONCURRENCY at a time; every one must hold all its events. */
async function answers(base, n) {
  let sent = 0;
  const worker = async () => {
    while (sent++ < n) {
      const events = await answer(base);
      if (events !== EVENTS_PER_ANSWER) throw new Error(`an answer held ${events} events, expected ${EVENTS_PER_ANSWER}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** ANSWERS timed answers through `base` after a warm-up; the CPU of `between` (the proxy, if any) per content chunk. */
async function measure(base, between) {
  await answers(base, WARM_ANSWERS);
  if (between) await settled(between.pid);
  const before = between && processCpuMs(between.pid);
  const started = process.hrtime.bigint();
  await answers(base, ANSWERS);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // A recorder may still be storing what it forwarded: that is its CPU too.
  if (between) await settled(between.pid);
  const chunks = ANSWERS * CHUNKS;
  return { chunksPerSecond: chunks / seconds, cpuPerChunkUs: between ? (1000 * (processCpuMs(between.pid) - before)) / chunks : 0 };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const us = (n) => `${n.toFixed(2)} µs`;

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-bench-llm-'));
const { child: upstream, info } = await startProcess([UPSTREAM], (line) => JSON.parse(line));
const upstreamUrl = `http://127.0.0.1:${info.port}`;
try {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const direct = await measure(upstreamUrl);
    const bareProcess = await startProcess([BARE_FORWARDER, upstreamUrl], (line) => JSON.parse(line));
    const bare = await measure(bareProcess.info.url, bareProcess.child);
    await stop(bareProcess.child);
    const out = join(dir, `llm-${round}.db`);
    const recorder = await startProcess([BIN, 'record', '--target', upstreamUrl, '--listen', '0', '--out', out, '--json', '--quiet'], (line) => JSON.parse(line));
    const recorded = await measure(recorder.info.url, recorder.child);
    await stop(recorder.child);
    const shown = JSON.parse(spawnSync(process.execPath, [BIN, 'show', out, '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout);
    const total = WARM_ANSWERS + ANSWERS;
    const expected = total * (1 + EVENTS_PER_ANSWER);
    const openai = shown.exchanges.filter((e) => e.protocol === 'openai').length;
    if (shown.totals.messages !== expected || openai !== total || shown.totals.invalid !== 0) {
      throw new Error(`expected ${expected} valid messages in ${total} openai exchanges; the recording holds ${shown.totals.messages} in ${openai} (${shown.totals.invalid} invalid)`);
    }
    rmSync(out, { force: true });
    rounds.push({ direct, bare, recorded });
  }
  const of = (side, key) => median(rounds.map((r) => r[side][key]));
  const bareCpu = of('bare', 'cpuPerChunkUs');
  const recordCpu = of('recorded', 'cpuPerChunkUs');
  console.log(
    `llm stream bench${smoke ? ' (smoke)' : quick ? ' (quick)' : ''}: node ${process.version}, ${fmt(ANSWERS)} streamed OpenAI chat completions of ${CHUNKS} content chunks (one per write, ${CONCURRENCY} at a time) after ${WARM_ANSWERS} warm-up answers, median of ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}`,
  );
  console.log(`  CPU per chunk (all threads, the answer's other events and its request included): bare forwarder ${us(bareCpu)}, record ${us(recordCpu)}; recording's own ${us(recordCpu - bareCpu)} (judged against the API's schema and the stream rules, and stored)`);
  console.log(`  chunks/s: direct ${fmt(of('direct', 'chunksPerSecond'))}, bare forwarder ${fmt(of('bare', 'chunksPerSecond'))}, record ${fmt(of('recorded', 'chunksPerSecond'))}`);
} finally {
  await stop(upstream);
  agent.destroy();
  rmSync(dir, { recursive: true, force: true });
}
