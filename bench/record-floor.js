// The floor under recording's CPU per SSE event and per WebSocket frame (issue #34: ≤ 3 µs): the least work any
// recorder of this design (a forwarding thread that hands the bytes to a worker, which frames, parses, checks
// and stores a row per message in SQLite) must do per message, each piece timed alone and then all of them
// together, in one process and one sitting, on the real modules of a build's dist. The gap between the sum and
// the recorder's measured figure (bench/record.js, recording's own CPU) is what the recorder spends beyond it.
//
// The messages: an AG-UI TEXT_MESSAGE_CONTENT event as bench/upstream.js writes it (64 to a write) and its
// `queue_update` Pi RPC text frame (62 bytes). The pieces (CPU per message, user + system, all threads: the
// GC each piece's garbage causes, on V8's helper threads too, is in its figure):
//   handover  a batch of messages' bytes copied into one buffer and posted to a worker thread (transferred,
//             with their lengths as a string, as the recorder's op batches carry them), and the worker's view
//             of each message; --batch messages to a batch (64: one socket read of the bench's SSE traffic)
//   framing   SseFramer over 64-event chunks (a WebSocket frame comes framed: ws's receiver, the bare
//             relay's work too)
//   parse     the message's JSON text decoded and JSON.parse'd
//   validate  the build's compiled validator chosen by the message's type (AG-UI's per-event anchor, Pi
//             RPC's piRpcEvent), the function alone
//   row       the message's `messages` row inserted through the store's ChunkedInsert as the writer uses it
//             (16 rows a statement, the writer's null and shared columns), 1,024 rows a transaction, WAL, in a
//             fresh recording of the newest schema
// together: a worker thread receives the batches and does framing, parse, validate and row for each message,
// the main thread posts them; CPU per message of the whole process to the last committed row, told apart by
// thread: the posting thread, the worker, and the rest (V8's GC helpers, mostly), from /proc/thread-self.
// Then `node bench/record.js --only sse,ws --threads` (with --quick when this has it) for the recorder's figure.
// Timed to the last committed row and the file's close; reading every row back afterwards (a bench that stored
// less fails) is not counted.
// Run (after a build):  node bench/record-floor.js [--quick | --smoke] [--dist PATH] [--batch N] [--no-recorder]
//   [--recorder-bin PATH] [--pack N[,N…] [--gap SSE,WS]]   (--smoke: tiny sizes, no recorder run:
//   test/bench/bench-smoke.test.ts runs it)
// --pack: the row alone and the floor together again with a stream's messages stored N to a row (a
// `message_packs` row per N consecutive messages: bench/lib/message-pack.js), everything else the same, the
// variants alternating within each round, beside a row per message; --gap: the recorder's µs above the floor
// (SSE, WS) from an earlier run, added to each floor when no recorder runs (bench/lib/packed-floor.js).
// --rest: the same for a REST exchange of record.js's traffic instead (bench/lib/rest-floor.js), beside the traffic's
// figures from `node bench/record.js --only rest --threads` (or --traffic client,upstream,bare,passthrough[,recorder],
// µs per request, from an earlier run), and the best recorded ÷ bare forwarder ratio any such recorder could reach at
// the traffic's pace, against issue #34's 0.9:  node bench/record-floor.js --rest [--quick | --smoke] [--rest-batch N]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { startCountedWorker } from './lib/counted-worker.js';
import { measureCpu } from './lib/micro-timer.js';
import { gapOption, packSizesOption, printPackedFloor } from './lib/packed-floor.js';
import { openPackedRowStore } from './lib/packed-row-store.js';
import { floorValidators, openMessageRowStore } from './lib/floor-row-store.js';

const argValue = (name) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const DIST = resolve(isMainThread ? (argValue('--dist') ?? fileURLToPath(new URL('../dist', import.meta.url))) : workerData.dist);
const load = (path) => import(pathToFileURL(join(DIST, path)).href);

// --- The traffic (bench/upstream.js's) ---------------------------------------------------------------

const sseEvent = (i) => `data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: `tok${i % 1000} ` })}\n\n`;
const SSE_PER_CHUNK = 64;
/** 64 distinct chunks of 64 events, cycled: no two messages of a run in a row are the same object. */
const sseChunks = () => Array.from({ length: 64 }, (_, c) => Buffer.from(Array.from({ length: SSE_PER_CHUNK }, (_, i) => sseEvent(c * SSE_PER_CHUNK + i)).join('')));
const wsFrame = (i) => JSON.stringify({ type: 'queue_update', steering: [], followUp: [`msg ${i}`] });
/** 4,096 distinct frames as one socket read would hold them (views), cycled. */
const wsFrames = () => {
  const texts = Array.from({ length: 4096 }, (_, i) => wsFrame(i));
  const all = Buffer.from(texts.join(''));
  let at = 0;
  return texts.map((text) => all.subarray(at, (at += Buffer.byteLength(text))));
};

const ROWS_PER_TRANSACTION = 1024;
/** The build's schema checks for the floor's messages (bench/lib/floor-row-store.js). */
const validators = () => floorValidators(load);
/** A fresh recording with a row per message, as the writer stores it (bench/lib/floor-row-store.js). */
const rowStore = (dir, name, kind, schemaRef) => openMessageRowStore({ load, dir, name, kind, schemaRef, rowsPerTransaction: ROWS_PER_TRANSACTION });

/** The store the floor writes a stream's messages to: a row per message (pack 1), or `pack` messages a row. */
async function messageStore(dir, name, kind, schemaRef, pack) {
  if (pack === 1) return rowStore(dir, name, kind, schemaRef);
  const message = kind === 'ws' ? { transport: 'ws', sender: 'server', carrier: 'frame', channel: 'text', jsonAt: 0 } : { transport: 'sse', sender: 'server', carrier: 'event', channel: null, jsonAt: 6 };
  return openPackedRowStore({ load, dir, name, message, schemaRef, perRow: pack, messagesPerTransaction: ROWS_PER_TRANSACTION });
}

/** This thread's CPU in µs (user + system, 10 ms ticks), from /proc/thread-self. */
const threadCpuUs = () => {
  const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

// --- The worker: the receiving end of the handover, or the whole pipeline ------------------------------

if (!isMainThread) {
  const { kind, mode, dir, counter, pack } = workerData;
  const done = new Int32Array(counter);
  let framer;
  let check;
  let store;
  if (mode === 'pipeline') {
    const { SseFramer } = await load('framing/sse-framer.js');
    framer = new SseFramer();
    const v = await validators();
    check = kind === 'ws' ? v.ws : v.sse;
    store = await messageStore(dir, `pipeline-${kind}-${pack}`, kind, v.refs[kind], pack);
  }
  let messages = 0;
  let at = 0;
  const cpuBefore = threadCpuUs();
  parentPort.on('message', (batch) => {
    if (batch === 'close') {
      if (!store) {
        parentPort.postMessage({ rows: messages, workerCpuUs: threadCpuUs() - cpuBefore, processCpu: process.cpuUsage() });
        return;
      }
      // Timed to the last committed row and the file's close; the check that reads every row back after it is not.
      store.close();
      const workerCpuUs = threadCpuUs() - cpuBefore;
      const processCpu = process.cpuUsage();
      const stored = store.verify();
      store.remove();
      parentPort.postMessage({ rows: stored.messages, stored, workerCpuUs, processCpu, checkCpuUs: threadCpuUs() - cpuBefore - workerCpuUs });
      return;
    }
    const lengths = JSON.parse(batch.lengths);
    let offset = 0;
    for (const length of lengths) {
      const raw = Buffer.from(batch.bytes, offset, length);
      offset += length;
      at++;
      if (mode === 'receive') messages += kind === 'ws' ? 1 : SSE_PER_CHUNK;
      else if (kind === 'ws') {
        const value = JSON.parse(raw.toString('utf8'));
        if (check(value) !== true) throw new Error('a frame judged invalid');
        store.add(raw, at);
        messages++;
      } else {
        for (const frame of framer.push(raw)) {
          const value = JSON.parse(frame.data);
          if (check(value) !== true) throw new Error('an event judged invalid');
          store.add(frame.raw, at);
          messages++;
        }
      }
    }
    Atomics.store(done, 0, messages);
    Atomics.notify(done, 0);
  });
  parentPort.postMessage('ready');
} else {
  await main();
}

// --- The main thread ---------------------------------------------------------------------------------

async function main() {
  const quick = process.argv.includes('--quick');
  const smoke = process.argv.includes('--smoke');
  const SCALE = smoke ? 0.01 : quick ? 0.25 : 1;
  const ROUNDS = smoke ? 1 : quick ? 3 : 5;
  const BATCH = Number(argValue('--batch') ?? 64);
  const PACKS = packSizesOption(argValue('--pack'));
  const GAP = gapOption(argValue('--gap'));
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-record-floor-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  if (process.argv.includes('--rest')) {
    try {
      await restPart({ dir, smoke, quick, SCALE, ROUNDS });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return;
  }
  try {
    const { SseFramer } = await load('framing/sse-framer.js');
    const v = await validators();
    const chunks = sseChunks();
    const frames = wsFrames();
    const sseTexts = chunks.flatMap((chunk) => new SseFramer().push(chunk).map((frame) => frame.data));
    const sseRaws = chunks.flatMap((chunk) => new SseFramer().push(chunk).map((frame) => frame.raw));
    const sseValues = sseTexts.map((text) => JSON.parse(text));
    const wsValues = frames.map((frame) => JSON.parse(frame.toString('utf8')));
    const time = (iterations, ops, plan) => measureCpu({ iterations: Math.max(1, Math.round(iterations * SCALE)), rounds: ROUNDS, opsPerIteration: ops, ...plan }).nsPerOp / 1000;

    /** A batch of `count` payloads (views), packed into one transferred buffer with their lengths, as packBatch does. */
    const post = (worker, views, from, count) => {
      const lengths = new Array(count);
      let bytes = 0;
      for (let k = 0; k < count; k++) bytes += lengths[k] = views[(from + k) % views.length].length;
      const packed = Buffer.allocUnsafeSlow(bytes);
      let offset = 0;
      for (let k = 0; k < count; k++) {
        packed.set(views[(from + k) % views.length], offset);
        offset += lengths[k];
      }
      worker.postMessage({ lengths: JSON.stringify(lengths), bytes: packed.buffer }, [packed.buffer]);
    };
    const startWorker = (kind, mode, pack = 1) => startCountedWorker(new URL(import.meta.url), { kind, mode, pack, dir, dist: DIST });

    const pieces = {};
    for (const kind of ['sse', 'ws']) {
      const perBatch = kind === 'ws' ? BATCH : Math.max(1, Math.round(BATCH / SSE_PER_CHUNK));
      const perMessage = kind === 'ws' ? 1 : SSE_PER_CHUNK;
      const views = kind === 'ws' ? frames : chunks;
      const p = (pieces[kind] = {});
      // handover: the worker takes views of what it gets and counts; the round waits for its last batch.
      const receiver = await startWorker(kind, 'receive');
      let sent = 0;
      p.handover = time(40_000 / perBatch / perMessage + 1, perBatch * perMessage, {
        iterate(_state, i) {
          post(receiver.worker, views, i * perBatch, perBatch);
          sent += perBatch * perMessage;
        },
        finish: () => receiver.waitFor(sent),
      });
      await receiver.close();
      if (kind === 'sse') {
        p.framing = time(3_000, SSE_PER_CHUNK, {
          setup: () => ({ framer: new SseFramer(), found: 0 }),
          iterate(state, i) {
            state.found += state.framer.push(chunks[i & 63]).length;
          },
          teardown(state) {
            if (state.found === 0) throw new Error('the framer found no event');
          },
        });
      }
      p.parse = time(600_000, 1, {
        setup: () => ({ last: undefined }),
        iterate:
          kind === 'ws'
            ? (state, i) => {
                state.last = JSON.parse(frames[i & 4095].toString('utf8'));
              }
            : (state, i) => {
                state.last = JSON.parse(sseTexts[i & 4095]);
              },
      });
      const values = kind === 'ws' ? wsValues : sseValues;
      const check = kind === 'ws' ? v.ws : v.sse;
      p.validate = time(1_000_000, 1, {
        setup: () => ({ invalid: 0 }),
        iterate(state, i) {
          if (check(values[i & 4095]) !== true) state.invalid++;
        },
        teardown(state) {
          if (state.invalid > 0) throw new Error(`${kind}: ${state.invalid} messages judged invalid`);
        },
      });
      const raws = kind === 'ws' ? frames : sseRaws;
      let stores = 0;
      // row (and with --pack, the row of N messages): the stores are opened before the timing loop (their open
      // is not the row's cost), each checked and removed after its round.
      const timeRows = async (pack) => {
        const opened = [];
        for (let r = 0; r <= ROUNDS; r++) opened.push(await messageStore(dir, `row-${kind}-${pack}-${stores++}`, kind, v.refs[kind], pack));
        let next = 0;
        return time(200_000, 1, {
          setup: () => opened[next++],
          iterate(store, i) {
            store.add(raws[i & 4095], i);
          },
          finish: (store) => store.end(),
          teardown(store) {
            store.close();
            store.verify();
            store.remove();
          },
        });
      };
      p.row = await timeRows(1);
      p.packedRow = new Map();
      for (const pack of PACKS) p.packedRow.set(pack, await timeRows(pack));
    }

    // together: the whole per-message path in a worker, fed batches by this thread; with --pack, the same with
    // the messages stored N to a row, the variants alternating within each round.
    const together = {};
    const MESSAGES = Math.max(SSE_PER_CHUNK * 16, Math.round(400_000 * SCALE));
    const variants = [1, ...PACKS];
    for (const kind of ['sse', 'ws']) {
      const perBatch = kind === 'ws' ? BATCH : Math.max(1, Math.round(BATCH / SSE_PER_CHUNK));
      const perMessage = kind === 'ws' ? 1 : SSE_PER_CHUNK;
      const views = kind === 'ws' ? frames : chunks;
      const runs = new Map(variants.map((pack) => [pack, []]));
      for (let r = 0; r < ROUNDS; r++) {
        for (const pack of variants) {
          const pipeline = await startWorker(kind, 'pipeline', pack);
          const process0 = process.cpuUsage();
          const main0 = threadCpuUs();
          let sent = 0;
          for (let i = 0; sent < MESSAGES; i++) {
            post(pipeline.worker, views, i * perBatch, perBatch);
            sent += perBatch * perMessage;
            // As capture does under a flood: it runs ahead of the worker, by at most a few batches here.
            if (i % 16 === 15) pipeline.waitFor(sent - 8 * perBatch * perMessage);
          }
          pipeline.waitFor(sent);
          const mainUs = threadCpuUs() - main0;
          // The process's CPU as the worker took it, once the last row was committed and the file closed.
          const { rows, stored, workerCpuUs, processCpu, checkCpuUs } = await pipeline.close();
          if (rows !== sent) throw new Error(`together (${kind}, ${pack} a row): ${rows} messages stored, not ${sent}`);
          const all = processCpu.user - process0.user + (processCpu.system - process0.system);
          runs.get(pack).push({ sent, all: all / sent, main: mainUs / sent, worker: workerCpuUs / sent, rest: (all - mainUs - workerCpuUs) / sent, check: checkCpuUs / sent, stored });
        }
      }
      together[kind] = new Map(
        variants.map((pack) => {
          const list = runs.get(pack);
          const med = (key) => median(list.map((run) => run[key]));
          return [pack, { all: med('all'), main: med('main'), worker: med('worker'), rest: med('rest'), check: med('check'), rounds: list.map((run) => run.all), messages: list[0].sent, stored: list[0].stored }];
        }),
      );
    }

    // The recorder's measured figure, in the same sitting.
    const recorder = process.argv.includes('--no-recorder') || smoke ? undefined : recorderFigures(quick);

    console.log(
      `recording's floor per message: CPU (user + system, all threads), median of ${ROUNDS} rounds, node ${process.version}, ${BATCH} messages a batch` +
        `${argValue('--dist') ? `, ${DIST}` : ''}`,
    );
    const us = (x) => (x === undefined ? '—' : x.toFixed(2)).padStart(7);
    console.log(`  ${'piece (µs per message)'.padEnd(52)} ${'SSE event'.padStart(9)} ${'WS frame'.padStart(9)}`);
    const rows = [
      ['handover', 'handover: batch copied, posted, viewed in a worker'],
      ['framing', 'framing: SseFramer (a WS frame comes framed)'],
      ['parse', 'parse: text decoded, JSON.parse'],
      ['validate', 'validate: the compiled validator by type'],
      ['row', 'row: ChunkedInsert, 1,024 rows a transaction'],
    ];
    for (const [key, label] of rows) console.log(`  ${label.padEnd(52)} ${us(pieces.sse[key])}   ${us(pieces.ws[key])}`);
    const sum = (kind) => rows.reduce((total, [key]) => total + (pieces[kind][key] ?? 0), 0);
    console.log(`  ${'sum of the pieces, each alone'.padEnd(52)} ${us(sum('sse'))}   ${us(sum('ws'))}`);
    const floor = { sse: together.sse.get(1), ws: together.ws.get(1) };
    console.log(`  ${'together, in a worker, to the last row'.padEnd(52)} ${us(floor.sse.all)}   ${us(floor.ws.all)}`);
    for (const [key, label] of [
      ['main', '… the posting thread'],
      ['worker', '… the worker'],
      ['rest', "… the rest (V8's GC helpers, mostly)"],
    ])
      console.log(`  ${label.padEnd(52)} ${us(floor.sse[key])}   ${us(floor.ws[key])}`);
    console.log(`  ${'together, its rounds'.padEnd(52)} ${floor.sse.rounds.map((x) => x.toFixed(2)).join(' / ')}   ${floor.ws.rounds.map((x) => x.toFixed(2)).join(' / ')}`);
    console.log(`  ${'(rows stored and counted in each round)'.padEnd(52)} ${String(floor.sse.messages).padStart(7)}   ${String(floor.ws.messages).padStart(7)}`);
    console.log(`  ${'(reading them back afterwards, not counted)'.padEnd(52)} ${us(floor.sse.check)}   ${us(floor.ws.check)}`);
    let gap = GAP && { ...GAP, source: 'given with --gap' };
    if (recorder) {
      console.log(`  ${"the recorder's, recording's own (record.js)".padEnd(52)} ${us(recorder.sse)}   ${us(recorder.ws)}`);
      console.log(`  ${'… its recording worker thread'.padEnd(52)} ${us(recorder.sseWorker)}   ${us(recorder.wsWorker)}`);
      console.log(`  ${'gap: the recorder − the floor together'.padEnd(52)} ${us(recorder.sse - floor.sse.all)}   ${us(recorder.ws - floor.ws.all)}`);
      console.log(`  (${recorder.command})`);
      // A fresh recorder spends ~250-330 ms in V8's optimizing compiler; --quick spreads it over a fifth of the messages.
      if (quick) console.log('  (--quick: a fresh recorder\'s compiling is spread over fewer messages, so its figures read high; run without --quick for the steady figure)');
      gap ??= { sse: recorder.sse - floor.sse.all, ws: recorder.ws - floor.ws.all, source: "this run's record.js" };
    }
    if (PACKS.length > 0) printPackedFloor({ packs: PACKS, rowAlone: { sse: pieces.sse, ws: pieces.ws }, together, gap, target: 3 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The REST exchange's floor (bench/lib/rest-floor.js) and the best ratio it leaves, against issue #34's 0.9. */
async function restPart({ dir, smoke, quick, SCALE, ROUNDS }) {
  const { restFloor, printRestFloor } = await import('./lib/rest-floor.js');
  const batch = Number(argValue('--rest-batch') ?? 32);
  const given = argValue('--traffic')?.split(',').map(Number);
  if (given && (given.length < 4 || given.some(Number.isNaN))) throw new Error('--traffic takes client,upstream,bare,passthrough[,recorder]: µs per request');
  const traffic = given && { client: given[0], upstream: given[1], bare: given[2], passthrough: given[3], recorder: given[4], command: 'figures given with --traffic' };
  const runRecorder = !smoke && !process.argv.includes('--no-recorder');
  const result = await restFloor({ dist: DIST, dir, scale: SCALE, rounds: ROUNDS, batch, traffic, runRecorder, quick, recorderBin: argValue('--recorder-bin') });
  printRestFloor(result, { rounds: ROUNDS, batch, target: 0.9 });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs bench/record.js for SSE (64 a write) and WebSocket frames and reads recording's own CPU from it. */
function recorderFigures(quick) {
  const args = [fileURLToPath(new URL('./record.js', import.meta.url)), '--only', 'sse,ws', '--threads'];
  if (quick) args.push('--quick');
  const bin = argValue('--recorder-bin');
  if (bin) args.push('--recorder-bin', bin);
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const own = (label) => Number(run.stdout.match(new RegExp(`recording CPU per ${label} \\(µs, recorder − bare forwarder\\)\\s+([\\d.]+)`))?.[1]);
  // The recording worker is the busiest thread but the main one (recordingSplit in record.js).
  const workers = [...run.stdout.matchAll(/by thread \(µs\): bare forwarder .*?; recorder main [\d.]+, then ([\d. ]+)/g)].map((m) => Math.max(...m[1].trim().split(' ').map(Number)));
  if (run.status !== 0 || Number.isNaN(own('SSE event, 64 per write')) || Number.isNaN(own('WebSocket frame'))) {
    throw new Error(`bench/record.js failed (exit ${run.status}):\n${run.stdout}`);
  }
  return {
    sse: own('SSE event, 64 per write'),
    ws: own('WebSocket frame'),
    sseWorker: workers[0],
    wsWorker: workers[1],
    command: `node bench/record.js ${args.slice(1).join(' ')}`,
  };
}
