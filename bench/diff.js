// `proxy diff` on two large recordings: wall time and peak memory of the real CLI.
// Run:  npm run build && node bench/diff.js [--quick] [--runs N] [--events N] [--exchanges N] [--bin PATH]... [--repeat N] [--keep]
//
// --exchanges N: instead, N small REST exchanges a side (a chat completion's request and answer each),
// the shape where what diff does per exchange (its queries, its hash, its key) outweighs the messages.
// --bin PATH (repeatable): time these builds' bin/agent-proxy.js on the same recordings, alternating,
// --repeat N rounds (default 1); each one's CPU (user + system, all threads) is printed, and stdout must
// be the same bytes for every build.
//
// Writes two recordings of 1,000 AG-UI SSE runs × 1,000 messages (--quick: 100 runs, 100k messages)
// straight through RecordingWriter, one child process per side so that generating does not dominate.
// Each side has its own ids (thread, run, message, tool call, request ids) and timestamps, so
// everything has to be normalized; B also carries a handful of real differences: one text delta,
// one tool argument, one state value, one invalid event, one status code, one removed event and one
// inserted exchange. The diff must find exactly those and exit 1.
//
// Then it runs `node bin/proxy.js diff a.db b.db --format json` as a child and samples its
// /proc/<pid>/status (VmHWM, the kernel's peak resident set) until it exits.
// Targets: < 10 s and < 500 MB for 1M messages per side.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));
const EVENTS_PER_RUN = 1_000;
/** The fewest messages a run may have: the last difference planted in a run, its sixth state delta, comes in its sixth round of 54 events. */
const MIN_EVENTS_PER_RUN = 400;
const WORDS = ['The', ' quarterly', ' report', ' shows', ' revenue', ' up', ' 12%', ',', ' costs', ' flat', ' and', ' churn', ' down', '.', ' Next', ' steps', ':', ' hire', ' two', ' engineers'];

if (process.argv[2] === '--generate') {
  if (process.argv[5] === '--exchanges') await generateExchanges(process.argv[3], process.argv[4], Number(process.argv[6]));
  else await generate(process.argv[3], process.argv[4], Number(process.argv[5]), Number(process.argv[6]));
  process.exit(0);
}

const quick = process.argv.includes('--quick');
const keep = process.argv.includes('--keep');
// --runs N: fewer runs per side (10 still plants every difference in a run of its own), for a smoke run.
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : quick ? 100 : 1_000;
if (!Number.isInteger(RUNS) || RUNS < 10) {
  console.error(`--runs ${process.argv[runsArg + 1]}: a whole number of runs, 10 or more`);
  process.exit(2);
}
// --events N: fewer messages per run, for a smoke run (the figures are for 1,000).
const eventsArg = process.argv.indexOf('--events');
const EVENTS = eventsArg > 0 ? Number(process.argv[eventsArg + 1]) : EVENTS_PER_RUN;
if (!Number.isInteger(EVENTS) || EVENTS < MIN_EVENTS_PER_RUN || EVENTS > EVENTS_PER_RUN) {
  console.error(`--events ${process.argv[eventsArg + 1]}: a whole number of messages per run, ${MIN_EVENTS_PER_RUN} to ${'1,000'}`);
  process.exit(2);
}
const exchangesArg = process.argv.indexOf('--exchanges');
const EXCHANGES = exchangesArg > 0 ? Number(process.argv[exchangesArg + 1]) : 0;
if (exchangesArg > 0 && (!Number.isInteger(EXCHANGES) || EXCHANGES < 100)) {
  console.error(`--exchanges ${process.argv[exchangesArg + 1]}: a whole number of exchanges, 100 or more`);
  process.exit(2);
}
const bins = process.argv.flatMap((arg, i) => (arg === '--bin' ? [process.argv[i + 1]] : []));
const repeatArg = process.argv.indexOf('--repeat');
const REPEAT = repeatArg > 0 ? Number(process.argv[repeatArg + 1]) : 1;
// Prints the child's CPU (user + system, every thread) and peak RSS as it exits.
const PRELOAD = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nusage '+(u.userCPUTime+u.systemCPUTime)+' '+u.maxRSS+'\\n')})`;
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-bench-diff-'));
const a = join(dir, 'a.db');
const b = join(dir, 'b.db');
try {
  const t0 = performance.now();
  const shape = EXCHANGES > 0 ? ['--exchanges', String(EXCHANGES)] : [String(RUNS), String(EVENTS)];
  await Promise.all([run(process.execPath, [SELF, '--generate', 'a', a, ...shape]), run(process.execPath, [SELF, '--generate', 'b', b, ...shape])]);
  const generated = EXCHANGES > 0 ? `${fmt(EXCHANGES)} exchanges (${fmt(2 * EXCHANGES)} messages)` : `${fmt(RUNS * EVENTS)} messages`;
  console.log(`generated 2 × ${generated} in ${((performance.now() - t0) / 1000).toFixed(1)} s (${dir})`);
  if (EXCHANGES > 0 || bins.length > 0) await compareBuilds(bins.length > 0 ? bins : [BIN]);
  else await timeOnce();
} finally {
  if (keep) console.log(`kept ${a} and ${b}`);
  else rmSync(dir, { recursive: true, force: true });
}

/** The 1M-message check: wall time and peak RSS of this build against the targets. */
async function timeOnce() {
  const result = await measure(process.execPath, [BIN, 'diff', a, b, '--format', 'json']);
  if (result.code !== 1) throw new Error(`proxy diff exited with ${result.code} (expected 1: the recordings differ)\n${result.stderr}`);
  const report = JSON.parse(result.stdout);
  checkReport(report);
  const seconds = result.ms / 1000;
  const mb = result.peakKb / 1024;
  const messages = fmt(report.a.messages);
  console.log(
    `diff bench: ${messages} messages per side: ${seconds.toFixed(1)} s, peak RSS ${Math.round(mb)} MB (targets < 10 s, < 500 MB)` +
      `${RUNS === 1_000 && EVENTS === EVENTS_PER_RUN ? '' : ` [${RUNS} runs of ${EVENTS} messages a side]`}`,
  );
  const s = report.summary;
  console.log(
    `  found: exchanges ${s.exchanges.changed} changed, ${s.exchanges.added} added, ${s.exchanges.removed} removed, ${s.exchanges.equal} equal; ` +
      `messages ${s.messages.changed} changed, ${s.messages.added} added, ${s.messages.removed} removed; ${s.regressions} regression`,
  );
  // The targets are for the full size (1,000 runs a side).
  if (RUNS === 1_000 && EVENTS === EVENTS_PER_RUN && (seconds >= 10 || mb >= 500)) process.exitCode = 1;
}

/** Times each build in turn on a and b, REPEAT rounds; every stdout must be the same bytes and the report what B plants. */
async function compareBuilds(builds) {
  let first;
  for (let round = 1; round <= REPEAT; round++) {
    for (const bin of builds) {
      const r = await measure(process.execPath, ['--import', PRELOAD, bin, 'diff', a, b, '--format', 'json']);
      const usage = /\nusage (\d+) (\d+)\n$/.exec(r.stderr);
      if (r.code !== 1) throw new Error(`${bin} diff exited with ${r.code} (expected 1: the recordings differ)\n${r.stderr}`);
      const report = JSON.parse(r.stdout);
      if (EXCHANGES > 0) checkExchangesReport(report);
      else checkReport(report);
      if (first === undefined) first = r.stdout;
      else if (r.stdout !== first) throw new Error(`${bin}: its report is not the same bytes as the first build's`);
      const cpu = Number(usage?.[1]) / 1e6;
      console.log(`${bin}: CPU ${cpu.toFixed(2)} s, wall ${(r.ms / 1000).toFixed(2)} s, peak RSS ${Math.round(Number(usage?.[2]) / 1024)} MB (${fmt(report.a.messages + report.b.messages)} messages read)`);
    }
  }
}

/** What --exchanges plants in B: one answer's text, one status (a 500), one answer judged invalid. */
function checkExchangesReport(report) {
  const s = report.summary;
  if (s.exchanges.changed !== 3 || s.exchanges.added !== 0 || s.exchanges.removed !== 0 || s.regressions !== 1) {
    throw new Error(`diff bench: expected 3 changed exchanges and 1 regression (the invalid answer)\n${JSON.stringify(s)}`);
  }
}

/** The differences planted in B, and where the diff has to report them. */
function checkReport(report) {
  const s = report.summary;
  const expect = (ok, what) => {
    if (!ok) throw new Error(`diff bench: ${what}\n${JSON.stringify(report.summary)}`);
  };
  expect(report.a.messages === report.b.messages, 'both sides should have the same number of messages');
  expect(s.exchanges.changed === 6 && s.exchanges.added === 1 && s.exchanges.removed === 0, 'expected 6 changed exchanges and 1 added');
  expect(s.regressions === 1, 'expected 1 regression');
  const pointers = report.exchanges.flatMap((e) => [...e.fields.map((f) => `#${e.a?.id ?? e.b.id} ${f.pointer}`), ...e.messages.flatMap((m) => m.differences.map((d) => `#${e.a?.id} ${m.a?.seq} ${d.pointer}`))]);
  for (const want of ['/delta', '/delta/0/value', '/status']) expect(pointers.some((p) => p.endsWith(` ${want}`)), `no difference at ${want}: ${pointers.join(', ')}`);
}

/** Runs a child to completion; rejects on a non-zero exit. */
function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

/** Runs a child, timing it and sampling its peak resident set (VmHWM) every few milliseconds. */
function measure(cmd, args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let peakKb = 0;
    const sample = () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const hwm = /VmHWM:\s+(\d+) kB/.exec(status) ?? /VmRSS:\s+(\d+) kB/.exec(status);
        if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
      } catch {
        // Gone already.
      }
    };
    const timer = setInterval(sample, 5);
    const out = [];
    let stderr = '';
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    let ms = 0;
    child.on('exit', () => {
      ms = performance.now() - started;
      clearInterval(timer);
    });
    child.on('close', (code) => resolve({ code, ms, peakKb, stdout: Buffer.concat(out).toString('utf8'), stderr }));
  });
}

// ---------------------------------------------------------------------------------------------
// Generating one side

async function generate(side, file, runs, eventsPerRun) {
  const { RecordingWriter } = await import('../dist/store/recording-writer.js');
  const writer = RecordingWriter.open(file, { toolVersion: 'bench', mode: 'record', schemaHashes: {}, startedAt: new Date() }, { maxBatch: 50_000, flushIntervalMs: 60_000, overwrite: true });
  const valid = { status: 'valid', schemaRef: 'https://ag-ui.com/spec/draft/schema.json#/$defs/Event', findings: [] };
  const enc = new TextEncoder();
  let t = 0;
  const clock = () => (t += 1);
  const now = Date.now() + (side === 'b' ? 86_400_000 : 0);
  for (let r = 1; r <= runs; r++) {
    if (side === 'b' && r === Math.round(runs * 0.4)) insertedHealthCheck(writer, enc, clock);
    const threadId = `thread-${randomUUID()}`;
    const runId = `run-${randomUUID()}`;
    const input = {
      threadId,
      runId,
      messages: [{ id: randomUUID(), role: 'user', content: `Question ${r}: summarise the quarterly report and update the dashboard.` }],
      state: { step: 0, items: [] },
      tools: [{ name: 'search', description: 'Searches the documents', parameters: { type: 'object', properties: { query: { type: 'string' } } } }],
      context: [],
      forwardedProps: {},
    };
    const id = writer.beginExchange({
      transport: 'sse',
      protocol: 'agui',
      method: 'POST',
      path: '/agent',
      requestHeaders: { 'content-type': 'application/json', accept: 'text/event-stream', host: '127.0.0.1:4000', 'x-request-id': randomUUID(), 'user-agent': 'bench' },
      tOffsetMs: clock(),
    });
    const body = JSON.stringify(input);
    writer.addMessage({ exchangeId: id, sender: 'client', carrier: 'body', tOffsetMs: clock(), raw: enc.encode(body), json: input, verdict: valid });
    const status = side === 'b' && r === Math.round(runs * 0.99) ? 500 : 200;
    writer.updateExchange(id, { status, responseHeaders: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', date: new Date(now + t).toUTCString() } });
    const events = runEvents(side, r, runs, threadId, runId, now, eventsPerRun);
    for (const { event, invalid } of events) {
      const verdict = invalid ? { status: 'invalid', schemaRef: valid.schemaRef, findings: [{ rule: 'schema', severity: 'error', pointer: '/delta', message: '/delta: must be string' }] } : valid;
      writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'event', tOffsetMs: clock(), raw: enc.encode(`data: ${JSON.stringify(event)}\n\n`), json: event, verdict });
    }
    writer.endExchange(id, { outcome: 'complete', tOffsetMs: clock() });
  }
  writer.close();
}

/** `count` chat completions, a request and an answer each; B's answer differs in three of them. */
async function generateExchanges(side, file, count) {
  const { RecordingWriter } = await import('../dist/store/recording-writer.js');
  await import('../dist/protocols/catalog.js'); // declares the protocols' schemas to the registry
  const { SchemaRegistry } = await import('../dist/schema/schema-registry.js');
  const { TOOL_VERSION } = await import('../dist/core/version.js');
  // Written as record writes it (this version, these schemas), so that diff compares the stored verdicts, not judging again.
  const meta = { toolVersion: TOOL_VERSION, mode: 'record', schemaHashes: SchemaRegistry.load({}).hashes(), startedAt: new Date() };
  const writer = RecordingWriter.open(file, meta, { maxBatch: 50_000, flushIntervalMs: 60_000, overwrite: true });
  const enc = new TextEncoder();
  const request = { status: 'valid', schemaRef: 'https://api.openai.com/v1#/components/schemas/CreateChatCompletionRequest', findings: [] };
  const answer = { status: 'valid', schemaRef: 'https://api.openai.com/v1#/components/schemas/CreateChatCompletionResponse', findings: [] };
  let t = 0;
  const clock = () => (t += 1);
  const at = (fraction) => side === 'b' && Math.round(count * fraction);
  for (let n = 1; n <= count; n++) {
    const id = writer.beginExchange({
      transport: 'http',
      protocol: 'openai',
      method: 'POST',
      path: '/v1/chat/completions',
      requestHeaders: { 'content-type': 'application/json', host: '127.0.0.1:4000', 'x-request-id': randomUUID() },
      tOffsetMs: clock(),
    });
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Question ${n % 50}` }] };
    writer.addMessage({ exchangeId: id, sender: 'client', carrier: 'body', tOffsetMs: clock(), raw: enc.encode(JSON.stringify(body)), json: body, verdict: request });
    const status = at(0.5) === n ? 500 : 200;
    writer.updateExchange(id, { status, responseHeaders: { 'content-type': 'application/json', date: new Date(1_700_000_000_000 + t).toUTCString() } });
    const content = at(0.25) === n ? 'Answer changed' : `Answer ${n % 50}`;
    const reply = { id: `chatcmpl-${randomUUID()}`, object: 'chat.completion', created: 1_700_000_000 + n, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] };
    const invalid = at(0.75) === n;
    if (invalid) reply.choices[0].index = 'first';
    const verdict = invalid ? { ...answer, status: 'invalid', findings: [{ rule: 'schema', severity: 'error', pointer: '/choices/0/index', message: '/choices/0/index: must be integer' }] } : answer;
    writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'body', tOffsetMs: clock(), raw: enc.encode(JSON.stringify(reply)), json: reply, verdict });
    writer.endExchange(id, { outcome: 'complete', tOffsetMs: clock() });
  }
  writer.close();
}

function insertedHealthCheck(writer, enc, clock) {
  const id = writer.beginExchange({ transport: 'http', method: 'GET', path: '/health', requestHeaders: { host: '127.0.0.1:4000' }, tOffsetMs: clock() });
  writer.updateExchange(id, { status: 200, responseHeaders: { 'content-type': 'application/json' } });
  const body = { ok: true };
  writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'body', tOffsetMs: clock(), raw: enc.encode(JSON.stringify(body)), json: body, verdict: { status: 'unchecked', findings: [], reason: 'no schema' } });
  writer.endExchange(id, { outcome: 'complete', tOffsetMs: clock() });
}

/**
 * The server events of one run (999 by default): RUN_STARTED, a state snapshot, then rounds of a text message
 * (start, 40 deltas, end), a tool call (start, 4 argument chunks, end, result) and a state delta,
 * heartbeats to fill up, and RUN_FINISHED last. Every event carries a timestamp; ids are fresh per
 * side. In B, a few runs get one real difference each.
 */
function runEvents(side, r, runs, threadId, runId, now, eventsPerRun) {
  const out = [];
  const ts = () => now + r * 10_000 + out.length;
  const push = (event) => out.push({ event: { ...event, timestamp: ts() }, invalid: false });
  const total = eventsPerRun - 1;
  push({ type: 'RUN_STARTED', threadId, runId });
  push({ type: 'STATE_SNAPSHOT', snapshot: { step: 0, items: [], owner: 'bench' } });
  for (let round = 1; out.length + 54 < total; round++) {
    const messageId = `msg-${randomUUID()}`;
    push({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
    for (let i = 0; i < 40; i++) push({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: WORDS[(i + round) % WORDS.length] });
    push({ type: 'TEXT_MESSAGE_END', messageId });
    const toolCallId = `call_${randomUUID()}`;
    push({ type: 'TOOL_CALL_START', toolCallId, toolCallName: 'search', parentMessageId: messageId });
    for (const delta of ['{"query"', ': "', 'Q2 revenue', `", "page": ${round}}`]) push({ type: 'TOOL_CALL_ARGS', toolCallId, delta });
    push({ type: 'TOOL_CALL_END', toolCallId });
    push({ type: 'TOOL_CALL_RESULT', messageId: `tool-${randomUUID()}`, toolCallId, role: 'tool', content: `{"hits": ${round % 7}, "top": "report-${round}.pdf"}` });
    push({ type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/step', value: round }] });
  }
  while (out.length < total - 1) push({ type: 'CUSTOM', name: 'heartbeat', value: out.length });
  push({ type: 'RUN_FINISHED', threadId, runId });
  if (side !== 'b') return out;
  const nth = (type, n) => out.filter((e) => e.event.type === type)[n - 1];
  const at = (fraction) => r === Math.round(runs * fraction);
  if (at(0.25)) nth('TEXT_MESSAGE_CONTENT', 107).event.delta = ' profit'; // one token of text
  if (at(0.5)) nth('TOOL_CALL_ARGS', 11).event.delta = 'Q3 revenue'; // a tool argument
  if (at(0.6)) out.splice(out.indexOf(nth('TEXT_MESSAGE_CONTENT', 200)), 1); // one delta fewer (the health check below adds one message)
  if (at(0.75)) nth('STATE_DELTA', 6).event.delta[0].value = 'done'; // a state value
  if (at(0.9)) {
    // One invalid event, by the rules diff judges with (an empty delta became valid in the schema).
    const e = nth('TEXT_MESSAGE_CONTENT', 55);
    e.event.delta = 42;
    e.invalid = true;
  }
  return out;
}
