// The floor under the recorder's memory (bench/rss-floor.js): bench/bare-forwarder.js's forwarding, plus the least
// a recorder of this design must hold to record an SSE stream. The forwarding thread copies each socket read of
// a `text/event-stream` response into batches of at most 48 KiB (posted at the next turn of the event loop, or at
// once past that size) and transfers them to a worker thread; it pauses reading while more than 16 MiB are posted
// and not yet stored, and resumes below 4 MiB (the recorder's marks, src/record/worker/worker-recording-sink.ts).
// The worker (the recorder's young generation of 4 MiB) frames the events, parses and judges each one (the
// build's compiled AG-UI check) and stores a row per event in a fresh recording of the newest schema, with the
// store's pragmas and the recording worker's page cache of 512 KiB (bench/lib/floor-row-store.js), a
// transaction per batch. No exchange rows but the stream's, no headers, no findings, no live events.
// --idle: the worker starts and opens the recording as above, but nothing is handed to it: what merely having
// a recording worker costs, beside node:http forwarding.
// Prints `{"url":...}` once listening.
//   node bench/floor-recorder.js http://127.0.0.1:PORT OUT.db [--dist PATH] [--idle]
import { Agent, createServer, request } from 'node:http';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { floorValidators, openMessageRowStore } from './lib/floor-row-store.js';

/** The recorder's marks and batch size (src/record/worker/worker-recording-sink.ts). */
const HIGH_WATER_BYTES = 16 * 1024 * 1024;
const LOW_WATER_BYTES = 4 * 1024 * 1024;
const BATCH_BYTES = 48 * 1024;
/** The recording worker's young generation and page cache (worker-recording-sink.ts, recording-worker-main.ts). */
const WORKER_YOUNG_GENERATION_MB = 4;
const RECORDER_PAGE_CACHE_KIB = 512;

if (isMainThread) await forward();
else await store();

async function forward() {
  const target = new URL(process.argv[2]);
  const out = resolve(process.argv[3]);
  const at = process.argv.indexOf('--dist');
  const dist = resolve(at < 0 ? fileURLToPath(new URL('../dist', import.meta.url)) : process.argv[at + 1]);
  const worker = new Worker(new URL(import.meta.url), { workerData: { dist, out }, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
  worker.on('error', (error) => {
    process.stderr.write(`floor recorder: the worker failed: ${error.stack}\n`);
    process.exit(1);
  });
  await new Promise((ready) => worker.once('message', ready));

  const idle = process.argv.includes('--idle');
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
  const endToEnd = (headers) => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

  /** Payload posted to the worker and not yet stored; reading pauses above the high mark. */
  let backlog = 0;
  let overloaded = false;
  /** Tapped responses, each with whether its client's socket is full. */
  const streams = new Map();
  let nextStream = 1;
  let pending = [];
  let pendingBytes = 0;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const packed = Buffer.allocUnsafeSlow(pendingBytes);
    const segments = [];
    let offset = 0;
    for (const { stream, chunk } of pending) {
      packed.set(chunk, offset);
      offset += chunk.length;
      segments.push(stream, chunk.length);
    }
    worker.postMessage({ segments: JSON.stringify(segments), bytes: packed.buffer }, [packed.buffer]);
    pending = [];
    pendingBytes = 0;
  };
  const tap = (stream, chunk) => {
    pending.push({ stream, chunk });
    pendingBytes += chunk.length;
    backlog += chunk.length;
    if (pendingBytes >= BATCH_BYTES) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    if (backlog > HIGH_WATER_BYTES) overloaded = true;
  };
  const resumeIfFree = (state) => {
    if (!overloaded && !state.full) state.upstream.resume();
  };
  worker.on('message', ({ stored }) => {
    backlog -= stored;
    if (overloaded && backlog < LOW_WATER_BYTES) {
      overloaded = false;
      for (const state of streams.values()) resumeIfFree(state);
    }
  });

  const server = createServer((req, res) => {
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...endToEnd(req.headers), host: target.host }, agent }, (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode, endToEnd(upstreamRes.headers));
      if (idle || !/^text\/event-stream/.test(upstreamRes.headers['content-type'] ?? '')) {
        upstreamRes.pipe(res);
        return;
      }
      const id = nextStream++;
      const state = { upstream: upstreamRes, full: false };
      streams.set(id, state);
      upstreamRes.on('data', (chunk) => {
        tap(id, chunk);
        if (!res.write(chunk)) {
          state.full = true;
          upstreamRes.pause();
          res.once('drain', () => {
            state.full = false;
            resumeIfFree(state);
          });
        }
        if (overloaded) upstreamRes.pause();
      });
      upstreamRes.on('end', () => {
        streams.delete(id);
        res.end();
      });
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })));
  process.on('SIGTERM', () => process.exit(0));
}

async function store() {
  const { dist, out } = workerData;
  const load = (path) => import(pathToFileURL(join(dist, path)).href);
  const [{ SseFramer }, checks] = await Promise.all([load('framing/sse-framer.js'), floorValidators(load)]);
  const rows = await openMessageRowStore({ load, dir: dirname(out), name: basename(out, '.db'), kind: 'sse', schemaRef: checks.refs.sse, cacheKib: RECORDER_PAGE_CACHE_KIB });
  const framers = new Map();
  let at = 0;
  parentPort.on('message', ({ segments, bytes }) => {
    const list = JSON.parse(segments);
    let offset = 0;
    for (let i = 0; i < list.length; i += 2) {
      const stream = list[i];
      const read = Buffer.from(bytes, offset, list[i + 1]);
      offset += list[i + 1];
      let framer = framers.get(stream);
      if (!framer) framers.set(stream, (framer = new SseFramer()));
      at++;
      for (const frame of framer.push(read)) {
        if (checks.sse(JSON.parse(frame.data)) !== true) throw new Error('floor recorder: an event judged invalid');
        rows.add(frame.raw, at);
      }
    }
    rows.commit();
    parentPort.postMessage({ stored: offset });
  });
  parentPort.postMessage('ready');
}
