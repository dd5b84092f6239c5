// What recording costs per exchange, without the network: the calls the HTTP forwarder makes for a
// small REST exchange (open, classify, update, classify, the body, end), made directly on the real
// worker pipeline (`proxy record`'s), ten exchanges per turn of the event loop as under load. It
// reports the CPU of the capture thread and of the whole process (all threads: the recording worker,
// V8's helpers) per exchange: a steadier figure than throughput on a shared machine.
// Run (after a build):  node bench/record-pipeline.js [--quick] [--dist PATH] [--exchanges N] [--per-turn N] [--pipeline inline] [--threads] [--route models]
//   --dist: another build's dist folder (e.g. a copy of an earlier one), for before/after;
//   --pipeline inline: record on the capture thread instead (what the work itself costs, without the hand-over);
//   --threads: also print each thread's CPU per exchange (the worker's, once it has caught up; V8's helpers).
//   --route models: `GET /v1/models` answered with a model list, which OpenAI's checker claims and judges,
//     instead of `GET /rest`, which no protocol claims (each message stored unchecked).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { threadCpuMs } from './lib/proc-cpu.js';

const argValue = (name) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const quick = process.argv.includes('--quick');
const DIST = resolve(argValue('--dist') ?? new URL('../dist', import.meta.url).pathname);
const EXCHANGES = Number(argValue('--exchanges') ?? (quick ? 20_000 : 100_000));
const PER_TURN = Number(argValue('--per-turn') ?? 10);
const PIPELINE = argValue('--pipeline') ?? 'worker';
const THREADS = process.argv.includes('--threads');
const ROUNDS = quick ? 3 : 5;
const WARM = 5_000;

const load = (path) => import(pathToFileURL(join(DIST, path)).href);
const { openRecordingSink } = await load('record/open-recording-sink.js');
const { RecordingClock } = await load('core/recording-clock.js');
const { HeaderRedactor } = await load('judge/header-redaction.js');
const { CollectedBodyTap } = await load('record/pipeline/body-taps.js');

const redactor = new HeaderRedactor();
/** Headers as the forwarder hands them over: the redacted pairs (a build before that: their record). */
const storedHeaders = (raw) => (redactor.recordPairs ? redactor.recordPairs(raw) : redactor.record(raw));
const REQUEST_HEADERS = ['Host', '127.0.0.1:8788', 'User-Agent', 'bench', 'Accept', 'application/json', 'Authorization', 'Bearer secret', 'x-request-id', 'r1'];
const RESPONSE_HEADERS = ['content-type', 'application/json', 'content-length', '149', 'Date', 'Wed, 02 Dec 2026 06:00:00 GMT', 'Connection', 'keep-alive', 'Keep-Alive', 'timeout=5'];
const ROUTE = argValue('--route') ?? 'rest';
if (ROUTE !== 'rest' && ROUTE !== 'models') throw new Error('--route: rest or models');
const PATH = ROUTE === 'models' ? '/v1/models' : '/rest';
const BODY = Buffer.from(
  JSON.stringify(
    ROUTE === 'models'
      ? { object: 'list', data: [{ id: 'gpt-4o', object: 'model', created: 1700000000, owned_by: 'openai' }] }
      : { apiVersion: '1.0', requestId: 'bench', hostInstanceId: '00000000-0000-4000-8000-000000000000', ok: true, data: { ready: true } },
  ),
);

/** CPU ms (user + system) of each thread of this process, by thread id. */
const ownThreadsCpuMs = () => threadCpuMs(process.pid);
const processCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** One small REST exchange, as forwardHttp hands it to the recorder. */
function exchange(sink) {
  const method = 'GET';
  const path = PATH;
  const ex = sink.openExchange({ transport: 'http', method, path, query: undefined, url: path, requestHeaders: storedHeaders(REQUEST_HEADERS) });
  ex.classify({ transport: 'http', method, path });
  ex.update({ status: 200, transport: 'http', responseHeaders: storedHeaders(RESPONSE_HEADERS) });
  ex.classify({ transport: 'http', method, path, contentType: 'application/json' });
  const tap = new CollectedBodyTap(ex, { kind: 'json', sender: 'server', contentEncoding: undefined, http: { method, path, status: 200 } });
  tap.push(BODY);
  tap.end(true);
  ex.end({ outcome: 'complete', errorCode: undefined, errorMessage: undefined });
}

/** Hands `n` exchanges to the sink, PER_TURN per turn of the event loop, waiting while it is overloaded. */
async function send(sink, n) {
  for (let done = 0; done < n; ) {
    for (let k = 0; k < PER_TURN && done < n; k++, done++) exchange(sink);
    await new Promise((resolve) => setImmediate(resolve));
    if (sink.overloaded) await new Promise((resolve) => sink.onDrain(resolve));
  }
}

async function round(n) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-bench-'));
  const clock = new RecordingClock();
  const { sink } = await openRecordingSink({ out: join(dir, 'r.db'), target: 'http://127.0.0.1:1', clock, pipeline: PIPELINE });
  try {
    // The worker's start (modules, schemas) and its JIT warm-up are not what is measured: a first
    // part of the traffic is recorded, and the measure starts once the worker has caught up with it.
    await send(sink, WARM);
    while (sink.totals().messages < WARM) await new Promise((resolve) => setTimeout(resolve, 5));
    const t0 = THREADS ? ownThreadsCpuMs() : new Map();
    const before = { main: ownThreadsCpuMs().get(process.pid), all: processCpuMs() };
    await send(sink, n);
    if (THREADS) {
      // The worker's thread is gone once the sink is closed: its share is read once it has caught up.
      while (sink.totals().messages < WARM + n) await new Promise((resolve) => setTimeout(resolve, 5));
      const t1 = ownThreadsCpuMs();
      const used = [...t1.keys()]
        .map((t) => [t === process.pid ? 'capture' : t, (1000 * (t1.get(t) - (t0.get(t) ?? 0))) / n])
        .filter(([, us]) => us > 0);
      console.log(`  threads (µs per exchange): ${used.map(([t, us]) => `${t} ${us.toFixed(1)}`).join(', ')}`);
    }
    const totals = await sink.close(new Date());
    if (totals.exchanges !== WARM + n || totals.messages !== WARM + n) throw new Error(`recorded ${totals.exchanges} exchanges and ${totals.messages} messages, not ${WARM + n}`);
    return { main: (1000 * (ownThreadsCpuMs().get(process.pid) - before.main)) / n, all: (1000 * (processCpuMs() - before.all)) / n };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rounds = [];
for (let i = 0; i < ROUNDS; i++) rounds.push(await round(EXCHANGES));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `record pipeline: ${EXCHANGES.toLocaleString('en-US')} small REST exchanges (GET ${PATH}), ${PER_TURN} per event-loop turn, median of ${ROUNDS} rounds, ${PIPELINE} pipeline${argValue('--dist') ? `, ${DIST}` : ''}\n` +
    `  CPU per exchange: capture thread ${median(rounds.map((r) => r.main)).toFixed(1)} µs, all threads ${median(rounds.map((r) => r.all)).toFixed(1)} µs ` +
    `(rounds: ${rounds.map((r) => `${r.main.toFixed(1)}/${r.all.toFixed(1)}`).join(', ')})`,
);
