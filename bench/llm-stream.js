// What recording and replaying cost per LLM stream chunk, for OpenAI chat completions and Anthropic messages: a
// client (this process) asks for ANSWERS streamed answers of CHUNKS content chunks each (bench/upstream.js writes
// one chunk per write(), as a model streams its tokens, then the answer's closing events), CONCURRENCY at a time:
// - recording: through bench/bare-forwarder.js (a node:http forwarder that records nothing: the ceiling) and
//   through `record` (which recognises the API by its route, judges the request and each chunk against the API's
//   schema and the stream rules, and stores them);
// - replay: from `replay --timing none` of the recording just made (every answer served once, in recorded order),
//   against the upstream itself read direct: a bare server writing the same chunks.
// Reported: the CPU (user + system, all threads, from /proc) per content chunk of the process that writes or
// forwards the chunks, measured after a warm-up and once the recorder has stored everything; chunks/s of each;
// each median of ROUNDS rounds that alternate the sides. Each recording is checked to hold every chunk, judged as
// its API's, with no invalid message, and each replayed answer to hold every event.
// Run:  npm run bench   (or, after a build:  node bench/llm-stream.js [--quick | --smoke])
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess, stop } from './lib/processes.js';
import { processCpuMs, settled } from './lib/proc-cpu.js';
import { RecordingProgress } from './lib/recording-progress.js';

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

/** The two stream APIs: the request each answer is asked with, and the server events an answer holds. */
const APIS = [
  {
    protocol: 'openai',
    name: 'OpenAI chat stream',
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer sk-bench' },
    body: JSON.stringify({ model: 'gpt-bench', messages: [{ role: 'system', content: 'You are a bench.' }, { role: 'user', content: 'Count.' }], stream: true, stream_options: { include_usage: true } }),
    // The role chunk, CHUNKS content chunks, the finish chunk, the usage chunk, `[DONE]`.
    events: CHUNKS + 4,
  },
  {
    protocol: 'anthropic',
    name: 'Anthropic messages stream',
    path: '/v1/messages',
    headers: { 'x-api-key': 'sk-ant-bench', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-bench', max_tokens: 1024, system: 'You are a bench.', messages: [{ role: 'user', content: 'Count.' }], stream: true }),
    // message_start, content_block_start, CHUNKS deltas, content_block_stop, message_delta, message_stop.
    events: CHUNKS + 5,
  },
];

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** One streamed answer; resolves with the number of SSE events it held. */
function answer(api, base) {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'text/event-stream', ...api.headers };
    const req = request(`${base}${api.path}?n=${CHUNKS}`, { method: 'POST', agent, headers }, (res) => {
      let events = 0;
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (text) => {
        const parts = (tail + text).split('\n\n');
        tail = parts.pop();
        events += parts.length;
      });
      res.on('end', () => (res.statusCode === 200 ? resolve(events) : reject(new Error(`${api.name}: status ${res.statusCode}: ${tail}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(api.body);
  });
}

/** `n` answers, CONCURRENCY at a time; every one must hold all its events. */
async function answers(api, base, n) {
  let sent = 0;
  const worker = async () => {
    while (sent++ < n) {
      const events = await answer(api, base);
      if (events !== api.events) throw new Error(`${api.name}: an answer held ${events} events, expected ${api.events}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/**
 * ANSWERS timed answers from `base` after a warm-up; the CPU of `writer` (the process that writes or forwards the
 * chunks) per content chunk. `recording`: the recorder's file, whose every message is waited for (the warm-up's
 * before the timed answers start, theirs before the CPU is read): a recorder stores what it forwarded after it.
 */
async function measure(api, base, writer, recording) {
  const progress = recording && new RecordingProgress(recording, 'messages');
  await answers(api, base, WARM_ANSWERS);
  await progress?.reach(WARM_ANSWERS * (1 + api.events));
  await settled(writer.pid);
  const before = processCpuMs(writer.pid);
  const started = process.hrtime.bigint();
  await answers(api, base, ANSWERS);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // A recorder may still be storing what it forwarded: that is its CPU too.
  await progress?.reach((WARM_ANSWERS + ANSWERS) * (1 + api.events));
  progress?.close();
  await settled(writer.pid);
  const chunks = ANSWERS * CHUNKS;
  return { chunksPerSecond: chunks / seconds, cpuPerChunkUs: (1000 * (processCpuMs(writer.pid) - before)) / chunks };
}

/** The recording holds every answer's request and events, as `api.protocol`'s, none invalid. */
function checkRecording(api, out) {
  const shown = JSON.parse(spawnSync(process.execPath, [BIN, 'show', out, '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout);
  const total = WARM_ANSWERS + ANSWERS;
  const expected = total * (1 + api.events);
  const judged = shown.exchanges.filter((e) => e.protocol === api.protocol).length;
  if (shown.totals.messages !== expected || judged !== total || shown.totals.invalid !== 0) {
    throw new Error(`${api.name}: expected ${expected} valid messages in ${total} ${api.protocol} exchanges; the recording holds ${shown.totals.messages} in ${judged} (${shown.totals.invalid} invalid)`);
  }
}

/** One round of one API: direct (the upstream's CPU), the bare forwarder, record, then replay of what record stored. */
async function round(api, upstream, upstreamUrl, out) {
  const direct = await measure(api, upstreamUrl, upstream);
  const bareProcess = await startProcess([BARE_FORWARDER, upstreamUrl], (line) => JSON.parse(line));
  const bare = await measure(api, bareProcess.info.url, bareProcess.child);
  await stop(bareProcess.child);
  const recorder = await startProcess([BIN, 'record', '--target', upstreamUrl, '--listen', '0', '--out', out, '--json', '--quiet'], (line) => JSON.parse(line));
  const recorded = await measure(api, recorder.info.url, recorder.child, out);
  await stop(recorder.child);
  checkRecording(api, out);
  // Every recorded answer is asked for once (the warm-up's and the timed ones): identical requests replay in order.
  const replay = await startProcess([BIN, 'replay', out, '--listen', '0', '--timing', 'none', '--quiet'], (line) => line.replace('listening on ', '').trim());
  const replayed = await measure(api, replay.info, replay.child);
  await stop(replay.child);
  rmSync(out, { force: true });
  return { direct, bare, recorded, replayed };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const us = (n) => `${n.toFixed(2)} µs`;

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-bench-llm-'));
const { child: upstream, info } = await startProcess([UPSTREAM], (line) => JSON.parse(line));
const upstreamUrl = `http://127.0.0.1:${info.port}`;
try {
  const rounds = new Map(APIS.map((api) => [api, []]));
  for (let r = 0; r < ROUNDS; r++) for (const api of APIS) rounds.get(api).push(await round(api, upstream, upstreamUrl, join(dir, `${api.protocol}-${r}.db`)));
  console.log(
    `llm stream bench${smoke ? ' (smoke)' : quick ? ' (quick)' : ''}: node ${process.version}, ${fmt(ANSWERS)} streamed answers of ${CHUNKS} content chunks per API (one per write, ${CONCURRENCY} at a time) after ${WARM_ANSWERS} warm-up answers, median of ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}`,
  );
  for (const api of APIS) {
    const of = (side, key) => median(rounds.get(api).map((r) => r[side][key]));
    const bareCpu = of('bare', 'cpuPerChunkUs');
    const recordCpu = of('recorded', 'cpuPerChunkUs');
    const serverCpu = of('direct', 'cpuPerChunkUs');
    const replayCpu = of('replayed', 'cpuPerChunkUs');
    console.log(`${api.name}:`);
    console.log(`  CPU per chunk (all threads, the answer's other events and its request included): bare forwarder ${us(bareCpu)}, record ${us(recordCpu)}; recording's own ${us(recordCpu - bareCpu)} (judged against the API's schema and the stream rules, and stored)`);
    console.log(`  replay CPU per chunk (--timing none): bare server ${us(serverCpu)}, replay ${us(replayCpu)}; ${(replayCpu / serverCpu).toFixed(1)}× the bare server's`);
    console.log(`  chunks/s: direct ${fmt(of('direct', 'chunksPerSecond'))}, bare forwarder ${fmt(of('bare', 'chunksPerSecond'))}, record ${fmt(of('recorded', 'chunksPerSecond'))}, replay ${fmt(of('replayed', 'chunksPerSecond'))}`);
  }
} finally {
  await stop(upstream);
  agent.destroy();
  rmSync(dir, { recursive: true, force: true });
}
