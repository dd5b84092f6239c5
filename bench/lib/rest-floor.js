// The REST part of bench/record-floor.js (--rest): the least work any recorder of this design must do per
// REST exchange of bench/record.js's traffic (`GET /rest`, no request body, a 128-byte JSON answer no protocol
// claims: one exchange row and one message row, as `record` stores it), each piece alone and then all of them
// together in a worker, on the real modules of a build's dist. CPU per exchange, user + system, all threads
// (each piece's GC, on V8's helper threads too, is in its figure):
//   handover  the exchange's request head, response head, body and end as the forwarding thread hands them
//             over: op tuples (open, update, record, end; not the two classify hints, which the worker can
//             make from the heads) encoded, packed and posted (transferred) by the build's op-batch, --rest-batch
//             exchanges a batch, and decoded in a worker
//   heads     the two header texts the exchange row holds, from the pairs (HeaderPairs.text)
//   parse     the body's text decoded and JSON.parse'd
//   verdict   the protocol chosen from the exchange's route and content type (detectProtocol over the catalog's
//             ten protocols: none claims it, so its message is `unchecked`, with the reason record stores)
//   secrets   what the rows hold scanned for credentials by the store's StoredCredentials, as the writer does
//             (no secret reaches the disk: the URL and header texts, the body, the verdict's reason)
//   rows      the exchange row and its message row inserted through the store's ChunkedInserts as the writer
//             does (16 rows a statement, the writer's null and shared columns), 1,024 rows a transaction, WAL,
//             in a fresh recording of the newest schema
// Not counted (so the floor is low, not high): the parse cost and depth guards, the secret-field walk, the live
// totals, the progress reports. The forwarding thread's own cost over a bare forwarder, nothing recorded, is what
// bench/record.js measures as `fixture --mode passthrough` − bare; the floor recorder is the passthrough plus all
// of the above together.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { startCountedWorker } from './counted-worker.js';
import { measureCpu } from './micro-timer.js';

const ROWS_PER_TRANSACTION = 1024;
/** What the writer leaves out of a chunk's INSERT (store/write-queue.ts; the exchanges' list is not exported). */
const EXCHANGES_USUALLY_NULL = ['query', 'subprotocol', 'errorCode', 'errorMessage', 'closeCode', 'closeReason', 'exitCode', 'signal', 'tls', 'stdinEndedMs', 'tunnel'];
const OP = { open: 0, update: 3, record: 4, end: 8 };
/** RECORD_PRESETS[2] (record/worker/recorder-ops.ts): a whole JSON body. */
const WHOLE_JSON_BODY = 2;

// --- The traffic (bench/record.js's client and bench/upstream.js's answer, as `record` stores them) ------------

/** 4,096 distinct exchanges: each request's id differs, as the client's `x-request-id` does. */
const DISTINCT = 4096;
const requestPairs = (i) => ['x-request-id', `r${i}`, 'Host', '127.0.0.1:35559', 'Connection', 'keep-alive'];
const RESPONSE_PAIRS = ['content-type', 'application/json', 'content-length', '128', 'Date', 'Sun, 06 Dec 2026 20:08:19 GMT', 'Connection', 'keep-alive', 'Keep-Alive', 'timeout=60'];
const REST_BODY = JSON.stringify({ apiVersion: '1.0', requestId: 'bench', hostInstanceId: '00000000-0000-4000-8000-000000000000', ok: true, data: { ready: true } });
/** The bodies as the forwarding thread holds them (one copy each, as CollectedBodyTap makes), views of one buffer. */
const bodies = () => {
  const size = Buffer.byteLength(REST_BODY);
  const all = Buffer.from(REST_BODY.repeat(DISTINCT));
  return Array.from({ length: DISTINCT }, (_, i) => all.subarray(i * size, (i + 1) * size));
};
const HINT = { transport: 'http', method: 'GET', path: '/rest', contentType: 'application/json' };

/** This thread's CPU in µs (user + system, 10 ms ticks), from /proc/thread-self. */
const threadCpuUs = () => {
  const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The build's modules the pieces are made of. */
async function modules(dist) {
  const load = (path) => import(pathToFileURL(join(dist, path)).href);
  await load('protocols/catalog.js');
  const [opBatch, headers, detection, pipeline, credentials] = await Promise.all([
    load('record/worker/op-batch.js'),
    load('net/headers.js'),
    load('judge/protocol-detection.js'),
    load('judge/message-pipeline.js'),
    load('store/stored-credentials.js'),
  ]);
  return { load, opBatch, HeaderPairs: headers.HeaderPairs, detectProtocol: detection.detectProtocol, NO_PROTOCOL_REASON: pipeline.NO_PROTOCOL_REASON, StoredCredentials: credentials.StoredCredentials };
}

/** The exchange's verdict: no protocol claims `GET /rest`, so its message is unchecked, as record stores it. */
function verdictOf(m) {
  if (m.detectProtocol({ hint: HINT }) !== undefined) throw new Error('a protocol claimed the bench exchange: the floor is not the traffic record.js measures');
  return m.NO_PROTOCOL_REASON;
}

/**
 * The writer's credential scan of one exchange's stored texts (StoredCredentials: the start's URL, path and
 * request headers, the answer's headers, the body as its JSON text from the wire, the reason): none holds one.
 */
function scanned(credentials, id, request, response, raw, text, value, reason) {
  const start = { transport: 'http', method: 'GET', path: '/rest', url: '/rest', requestHeaders: request };
  const update = { status: 200, transport: 'http', responseHeaders: response };
  if (credentials.exchange(id, start) !== start || credentials.exchange(id, update) !== update) throw new Error('a credential found in the bench exchange\'s head');
  if (credentials.message(raw, text, value, undefined, true, 0).findings.length > 0) throw new Error('a credential found in the bench body');
  return credentials.text(reason);
}

/** A fresh recording of the newest schema with the writer's two ChunkedInserts; rows held until their transaction. */
async function restRowStore(m, dir, name) {
  const [{ openDatabase }, { migrate }, { ChunkedInsert }, { MESSAGE_COLUMNS, EXCHANGE_COLUMNS }, queue] = await Promise.all([
    m.load('store/open-database.js'),
    m.load('store/migrations.js'),
    m.load('store/chunked-insert.js'),
    m.load('store/schema.js'),
    m.load('store/write-queue.js'),
  ]);
  const file = join(dir, `${name}.db`);
  const db = openDatabase(file);
  migrate(db, file);
  const exchanges = new ChunkedInsert(db, 'exchanges', EXCHANGE_COLUMNS, undefined, EXCHANGES_USUALLY_NULL);
  const messages = new ChunkedInsert(db, 'messages', MESSAGE_COLUMNS, exchanges, queue.MESSAGES_USUALLY_NULL, queue.MESSAGES_USUALLY_SHARED);
  const commit = db.transaction((held) => {
    for (const [exchange, message] of held) {
      exchanges.add(exchange);
      messages.add(message);
    }
    messages.flush();
    exchanges.flush();
  });
  let id = 0;
  const held = [];
  return {
    /** One exchange's row (begin, update and end merged, as the write queue does for a short exchange) and its message's. */
    add(requestHeaders, responseHeaders, raw, reason, startedMs, at, endedMs) {
      id++;
      const exchange = {
        id,
        transport: 'http',
        protocol: null,
        method: 'GET',
        path: '/rest',
        query: null,
        url: '/rest',
        status: 200,
        subprotocol: null,
        requestHeaders,
        responseHeaders,
        startedMs,
        endedMs,
        outcome: 'complete',
        errorCode: null,
        errorMessage: null,
        closeCode: null,
        closeReason: null,
        exitCode: null,
        signal: null,
        tls: null,
        protocolEvidence: null,
        stdinEndedMs: null,
        tunnel: null,
      };
      const message = { id, exchangeId: id, seq: 1, sender: 'server', carrier: 'body', channel: null, tOffsetMs: at, raw, rawTruncatedFrom: null, json: null, status: 'unchecked', schemaRef: null, reason, findingCount: 0, jsonAt: 0, schemaRefId: null };
      held.push([exchange, message]);
      if (held.length * 2 >= ROWS_PER_TRANSACTION) this.commit();
    },
    commit() {
      if (held.length === 0) return;
      commit(held);
      held.length = 0;
    },
    close() {
      this.commit();
      const stored = db
        .prepare("SELECT (SELECT count(*) FROM exchanges WHERE outcome = 'complete' AND status = 200) AS exchanges, count(*) AS messages, sum(status = 'unchecked' AND length(raw) = ?) AS same FROM messages")
        .get(Buffer.byteLength(REST_BODY));
      db.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
      if (stored.exchanges !== id || stored.messages !== id || stored.same !== id) throw new Error(`${name}: ${stored.exchanges} exchanges and ${stored.messages} messages stored (${stored.same} as written), not ${id}`);
      return id;
    },
  };
}

// --- The worker: the receiving end of the handover, or the whole per-exchange path ------------------------------

if (!isMainThread && workerData?.part === 'rest') {
  const { mode, dir, counter, dist } = workerData;
  const m = await modules(dist);
  const done = new Int32Array(counter);
  const store = mode === 'pipeline' ? await restRowStore(m, dir, 'pipeline-rest') : undefined;
  const credentials = new m.StoredCredentials();
  /** Exchanges open in the worker, by id: their start, their answer's head, their message. */
  const open = new Map();
  let exchanges = 0;
  const cpuBefore = threadCpuUs();
  parentPort.on('message', (batch) => {
    if (batch === 'close') {
      const rows = store ? store.close() : exchanges;
      parentPort.postMessage({ rows, workerCpuUs: threadCpuUs() - cpuBefore });
      return;
    }
    for (const op of m.opBatch.decodeBatch(batch)) {
      if (mode === 'receive') {
        if (op[0] === OP.end) exchanges++;
        continue;
      }
      switch (op[0]) {
        case OP.open:
          open.set(op[1], { request: new m.HeaderPairs(op[3].requestHeaders), startedMs: op[2], response: undefined, raw: undefined, at: 0, reason: null });
          break;
        case OP.update:
          open.get(op[1]).response = new m.HeaderPairs(op[2].responseHeaders);
          break;
        case OP.record: {
          const exchange = open.get(op[1]);
          const text = op[3].toString('utf8');
          const value = JSON.parse(text);
          if (value.ok !== true) throw new Error('a body parsed wrong');
          exchange.raw = op[3];
          exchange.at = op[4];
          exchange.reason = scanned(credentials, op[1], exchange.request, exchange.response, op[3], text, value, verdictOf(m));
          break;
        }
        case OP.end: {
          const exchange = open.get(op[1]);
          open.delete(op[1]);
          store.add(exchange.request.text, exchange.response.text, exchange.raw, exchange.reason, exchange.startedMs, exchange.at, op[2]);
          exchanges++;
          break;
        }
      }
    }
    Atomics.store(done, 0, exchanges);
    Atomics.notify(done, 0);
  });
  parentPort.postMessage('ready');
}

// --- The main thread ----------------------------------------------------------------------------------------------

/**
 * Times the pieces and the whole path in a worker, then, unless told not to, takes the traffic's figures from
 * a `node bench/record.js --only rest --threads` run (or from `traffic`: client, upstream, bare, passthrough
 * and optionally the recorder, µs per request) and prints the best ratio any recorder of this design could reach.
 */
export async function restFloor({ dist, dir, scale, rounds, batch, traffic, runRecorder, quick, recorderBin }) {
  const m = await modules(dist);
  const time = (iterations, ops, plan) => measureCpu({ iterations: Math.max(1, Math.round(iterations * scale)), rounds, opsPerIteration: ops, ...plan }).nsPerOp / 1000;
  const views = bodies();
  const pairs = Array.from({ length: DISTINCT }, (_, i) => requestPairs(i));
  const texts = views.map((view) => view.toString('utf8'));

  /** `count` exchanges' ops, as the forwarding thread queues them, encoded, packed and posted. */
  const post = (worker, from, count) => {
    const ops = [];
    let bytes = 0;
    for (let k = 0; k < count; k++) {
      const i = (from + k) % DISTINCT;
      const id = from + k + 1;
      const body = views[i];
      ops.push([OP.open, id, k, { transport: 'http', method: 'GET', path: '/rest', url: '/rest', requestHeaders: pairs[i] }]);
      ops.push([OP.update, id, { status: 200, transport: 'http', responseHeaders: RESPONSE_PAIRS }]);
      ops.push([OP.record, id, 'server', body, k + 0.5, WHOLE_JSON_BODY, 200]);
      ops.push([OP.end, id, k + 1, { outcome: 'complete' }]);
      bytes += body.length;
    }
    const packed = m.opBatch.packBatch(m.opBatch.encodeOps(ops, bytes));
    worker.postMessage(packed, [packed.bytes]);
  };
  const startWorker = (mode) => startCountedWorker(new URL(import.meta.url), { part: 'rest', mode, dir, dist });

  const pieces = {};
  const receiver = await startWorker('receive');
  let sent = 0;
  pieces.handover = time(40_000 / batch + 1, batch, {
    iterate(_state, i) {
      post(receiver.worker, i * batch, batch);
      sent += batch;
    },
    finish: () => receiver.waitFor(sent),
  });
  const received = await receiver.close();
  if (received.rows !== sent) throw new Error(`handover: the worker took ${received.rows} exchanges, not ${sent}`);
  pieces.heads = time(200_000, 1, {
    setup: () => ({ length: 0 }),
    iterate(state, i) {
      state.length += new m.HeaderPairs(pairs[i & 4095]).text.length + new m.HeaderPairs(RESPONSE_PAIRS).text.length;
    },
    teardown(state) {
      if (state.length === 0) throw new Error('no header text made');
    },
  });
  pieces.parse = time(400_000, 1, {
    setup: () => ({ ok: 0 }),
    iterate(state, i) {
      if (JSON.parse(views[i & 4095].toString('utf8')).ok === true) state.ok++;
    },
    teardown(state) {
      if (state.ok === 0) throw new Error('no body parsed');
    },
  });
  pieces.verdict = time(400_000, 1, {
    setup: () => ({ reasons: 0 }),
    iterate(state) {
      state.reasons += verdictOf(m).length > 0 ? 1 : 0;
    },
  });
  const requestHeaders = pairs.map((p) => new m.HeaderPairs(p));
  const responseHeaders = new m.HeaderPairs(RESPONSE_PAIRS);
  const values = texts.map((text) => JSON.parse(text));
  pieces.secrets = time(200_000, 1, {
    setup: () => ({ credentials: new m.StoredCredentials(), stored: 0 }),
    iterate(state, i) {
      const k = i & 4095;
      state.stored += scanned(state.credentials, i + 1, requestHeaders[k], responseHeaders, views[k], texts[k], values[k], m.NO_PROTOCOL_REASON).length;
    },
    teardown(state) {
      if (state.stored === 0) throw new Error('no reason stored');
    },
  });
  // The stores are opened before the timing loop (their open is not the rows' cost).
  const opened = [];
  for (let r = 0; r <= rounds; r++) opened.push(await restRowStore(m, dir, `rows-rest-${r}`));
  let next = 0;
  const request = pairs.map((p) => new m.HeaderPairs(p).text);
  const response = new m.HeaderPairs(RESPONSE_PAIRS).text;
  pieces.rows = time(100_000, 1, {
    setup: () => opened[next++],
    iterate(store, i) {
      store.add(request[i & 4095], response, views[i & 4095], m.NO_PROTOCOL_REASON, i, i + 0.5, i + 1);
    },
    finish: (store) => store.commit(),
    teardown: (store) => store.close(),
  });

  // together: the whole per-exchange path in a worker, fed batches by this thread.
  const EXCHANGES = Math.max(batch * 16, Math.round(100_000 * scale));
  const runs = [];
  for (let r = 0; r < rounds; r++) {
    const pipeline = await startWorker('pipeline');
    const process0 = process.cpuUsage();
    const main0 = threadCpuUs();
    let posted = 0;
    for (let i = 0; posted < EXCHANGES; i++) {
      post(pipeline.worker, i * batch, batch);
      posted += batch;
      // As capture does under a flood: it runs ahead of the worker, by at most a few batches here.
      if (i % 16 === 15) pipeline.waitFor(posted - 8 * batch);
    }
    pipeline.waitFor(posted);
    const mainUs = threadCpuUs() - main0;
    const { rows, workerCpuUs } = await pipeline.close();
    const used = process.cpuUsage(process0);
    if (rows !== posted) throw new Error(`together (REST): ${rows} exchanges stored, not ${posted}`);
    const all = used.user + used.system;
    runs.push({ posted, all: all / posted, main: mainUs / posted, worker: workerCpuUs / posted, rest: (all - mainUs - workerCpuUs) / posted });
  }
  const med = (key) => median(runs.map((run) => run[key]));
  const together = { all: med('all'), main: med('main'), worker: med('worker'), rest: med('rest'), rounds: runs.map((run) => run.all), exchanges: runs[0].posted };

  const measured = traffic ?? (runRecorder ? recorderFigures(quick, recorderBin) : undefined);
  return { pieces, together, traffic: measured };
}

/** Prints the REST floor's table and, with the traffic's figures, the best ratio against the target. */
export function printRestFloor({ pieces, together, traffic }, { rounds, batch, target }) {
  const us = (x) => (x === undefined ? '—' : x.toFixed(2)).padStart(8);
  console.log(`REST exchange's floor (GET /rest, a 128-byte JSON answer: one exchange row, one message row): CPU per exchange, all threads, median of ${rounds} rounds, ${batch} exchanges a batch`);
  const rows = [
    ['handover', 'handover: 4 ops encoded, packed, posted, decoded'],
    ['heads', 'heads: the two header texts of the row'],
    ['parse', 'parse: body decoded, JSON.parse'],
    ['verdict', 'verdict: the protocol chosen (none: unchecked)'],
    ['secrets', 'secrets: what is stored scanned for credentials'],
    ['rows', 'rows: exchange + message, ChunkedInsert, 1,024 a tx'],
  ];
  for (const [key, label] of rows) console.log(`  ${label.padEnd(58)} ${us(pieces[key])}`);
  const sum = rows.reduce((total, [key]) => total + pieces[key], 0);
  console.log(`  ${'sum of the pieces, each alone'.padEnd(58)} ${us(sum)}`);
  console.log(`  ${'together, in a worker, to the last row'.padEnd(58)} ${us(together.all)}`);
  console.log(`  ${'… the posting thread / the worker / the rest (V8 helpers)'.padEnd(58)} ${us(together.main)} ${us(together.worker)} ${us(together.rest)}`);
  console.log(`  ${'together, its rounds'.padEnd(58)} ${together.rounds.map((x) => x.toFixed(2)).join(' / ')}`);
  console.log(`  ${'(exchanges stored and counted in each round)'.padEnd(58)} ${String(together.exchanges).padStart(8)}`);
  if (!traffic) {
    console.log('  (no traffic figures: run without --no-recorder, or give --traffic client,upstream,bare,passthrough[,recorder])');
    return;
  }
  const { client, upstream, bare, passthrough, recorder } = traffic;
  const peers = client + upstream;
  const floorRecorder = passthrough + together.all;
  const best = (peers + bare) / (peers + floorRecorder);
  const allowed = (peers + bare) / target - peers;
  console.log(`  the traffic, µs per request: client ${client.toFixed(2)}, upstream ${upstream.toFixed(2)}, bare forwarder ${bare.toFixed(2)}, passthrough ${passthrough.toFixed(2)}${recorder === undefined ? '' : `, recorder ${recorder.toFixed(2)}`}`);
  console.log(`  ${"forwarding's own: passthrough − bare forwarder".padEnd(58)} ${us(passthrough - bare)}`);
  console.log(`  ${'the floor recorder: passthrough + together'.padEnd(58)} ${us(floorRecorder)}`);
  console.log(`  ${`at the traffic's pace, ${target} needs the recorder at ≤`.padEnd(58)} ${us(allowed)}   (recording's share over passthrough ≤ ${(allowed - passthrough).toFixed(2)})`);
  console.log(`  ${'best recorded ÷ bare any such recorder could reach'.padEnd(58)} ${best.toFixed(3).padStart(8)}   target ≥ ${target}: ${best >= target ? `reachable, with ${(allowed - floorRecorder).toFixed(2)} µs to spare over the floor` : `out of reach, the floor is ${(floorRecorder - allowed).toFixed(2)} µs over it`}`);
  // A recorder whose forwarding cost no more than the bare forwarder's: the ceiling whatever forwarding does.
  const ceiling = (peers + bare) / (peers + bare + together.all);
  console.log(`  ${'… with passthrough = bare (forwarding adds nothing)'.padEnd(58)} ${ceiling.toFixed(3).padStart(8)}   (0.9 leaves recording ≤ ${(allowed - bare).toFixed(2)} µs over the bare forwarder)`);
  // bench/record.js's own REST line holds the ratio to 0.85.
  const allowedThere = (peers + bare) / 0.85 - peers;
  console.log(`  ${"(record.js's line: 0.85 needs the recorder at ≤".padEnd(58)} ${us(allowedThere)}   the floor recorder ${floorRecorder <= allowedThere ? 'is within it' : 'is over it'})`);
  if (recorder !== undefined) {
    console.log(`  ${"the recorder's own CPU allows ≤".padEnd(58)} ${((peers + bare) / (peers + recorder)).toFixed(3).padStart(8)}   (it spends ${(recorder - floorRecorder).toFixed(2)} µs over the floor recorder)`);
  }
  if (traffic.command) console.log(`  (${traffic.command})`);
}

/** Runs `node bench/record.js --only rest --threads` and reads the per-request CPU of each process from it. */
function recorderFigures(quick, recorderBin) {
  const args = [fileURLToPath(new URL('../record.js', import.meta.url)), '--only', 'rest', '--threads'];
  if (quick) args.push('--quick');
  if (recorderBin) args.push('--recorder-bin', recorderBin);
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const number = (pattern) => Number(run.stdout.match(pattern)?.[1]);
  const figures = {
    bare: number(/CPU per req \(all threads\): bare forwarder ([\d.]+) µs/),
    recorder: number(/CPU per req \(all threads\): bare forwarder [\d.]+ µs, recorder ([\d.]+) µs/),
    passthrough: number(/fixture --mode passthrough\): [\d,]+ req\/s \([\d.]+ % of bare\), ([\d.]+) µs CPU per req/),
    client: number(/CPU per req, client \/ upstream: ([\d.]+) \//),
    upstream: number(/CPU per req, client \/ upstream: [\d.]+ \/ ([\d.]+) µs/),
  };
  if (run.status !== 0 || Object.values(figures).some(Number.isNaN)) throw new Error(`bench/record.js failed or printed no REST figures (exit ${run.status}):\n${run.stdout}`);
  const ratio = run.stdout.match(/REST req\/s recorded ÷ bare forwarder +([\d.]+)/)?.[1];
  return { ...figures, command: `node bench/record.js ${args.slice(1).join(' ')}${ratio ? `: recorded ÷ bare measured ${ratio}` : ''}` };
}
