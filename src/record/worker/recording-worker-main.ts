import { parentPort, workerData } from 'node:worker_threads';
import { ProxyError } from '../../core/errors.js';
import { SchemaRegistry } from '../../schema/schema-registry.js';
import { RecordingWriter, type ExchangeStart, type ExchangeUpdate } from '../../store/recording-writer.js';
import { keepPatterns } from '../../core/credential-scrubber.js';
import { BurstSignal } from './burst-signal.js';
import { RecordingClock } from '../../core/recording-clock.js';
import { decodeBatch } from './op-batch.js';
import { readSpooledBatch } from './recording-spool.js';
import type { BodyTap, RecordOptions } from '../pipeline/recording-sink.js';
import type { ExchangeRecording, TrafficRecorder } from '../pipeline/traffic-recorder.js';
import { CATALOG_SUMMARY } from '../../protocols/catalog-summary.js';
import { declareProtocolSchemas } from '../../schema/schema-sources.js';
import { loadInSteps } from './load-in-steps.js';
import { yieldToForwarding } from './worker-priority.js';
import type { FromWorker, ToWorker, WorkerSetup } from './worker-messages.js';
import { fromWireHeaders, fromWireHttp, httpOfWire, OP, presetRecordOptions, type DecodedOp } from './recorder-ops.js';
import type { ChannelHint } from '../../protocols/protocol.js';

/**
 * The recording worker: framing, parsing, judging and SQLite writes, off the thread that forwards.
 * Ops arrive in capture order and are applied one by one; a tap end that must wait for a
 * decompressor is awaited before the next op, so order is never lost.
 */
const setup = workerData as WorkerSetup;
const port = parentPort!;
const send = (message: FromWorker) => port.postMessage(message);
/**
 * Rows per SQLite transaction in the worker. A batch of ops is applied without yielding, so rows
 * wait for the writer's backstop (eight of these) rather than for the next turn: with the default
 * 1000 they lived long enough to be promoted to the old generation, and collecting them there cost
 * more CPU than the extra commits do (bench/record-pipeline.js: 36 -> 32 µs per REST exchange).
 */
const WORKER_MAX_BATCH = 128;
/**
 * SQLite's page cache for the recording, in KiB. Recording only appends, at the right edge of each
 * b-tree; a writer's default 2 MiB filled up over a flood all the same and kept ~1 MB more of this
 * thread's malloc arena than 512 KiB does, for no CPU the runs could see (docs/performance.md, "The
 * recorder's peak RSS against 112 MB"). Other writers (import) keep the default.
 */
const RECORDER_PAGE_CACHE_KIB = 512;
/** Raised by capture while it forwards a burst that recording is behind on: record after it. */
const burst = setup.burst ? new BurstSignal(setup.burst) : undefined;

/** Made at the first ops (loadRecorder); a run closed before any has none. */
let recorder: TrafficRecorder | undefined;

/**
 * Opens the recording, says so, then takes ops (loading the recorder at the first); a failure to open
 * says why and ends the thread. Called at the end of this module, once everything it uses is
 * declared. (Not top-level await: the CLI runs this worker from a CommonJS bundle, see
 * scripts/bundle-cli.mjs.)
 *
 * `ready` goes as soon as the file is open: the HTTP proxy listens only then, and the recorder's
 * modules (the catalog, each protocol's checker, its schemas and libraries: ~40 ms of CPU) need not
 * hold it up. They load when the first ops arrive (loadRecorder); ops posted meanwhile wait in the
 * inbox and are applied in order once the recorder is there, so what is recorded is the same. A run
 * that ends before anything was captured closes the file without them.
 */
async function start(): Promise<void> {
  // Compiling the schemas is the costliest step of start-up: not while a burst is being forwarded.
  if (burst?.active) await burst.quiet();
  let opened: { writer: RecordingWriter; registry: SchemaRegistry; clock: RecordingClock };
  // The same schemas the catalog declares (in the CLI's bundle the summary is a literal made from
  // it), without its facts; the catalog declares them again when it loads, below.
  declareProtocolSchemas(() => CATALOG_SUMMARY.schemas);
  try {
    const registry = SchemaRegistry.load({ extraDirs: setup.schemas });
    const clock = new RecordingClock(setup.clockOrigin);
    if (burst?.active) await burst.quiet();
    const writer = RecordingWriter.open(
      setup.out,
      { ...setup.meta, schemaHashes: registry.hashes(), startedAt: new Date(setup.meta.startedAt) },
      {
        overwrite: setup.overwrite,
        maxBatch: WORKER_MAX_BATCH,
        pageCacheKib: RECORDER_PAGE_CACHE_KIB,
        keepSecrets: keepPatterns(setup.redact?.keepSecrets),
        // Told at once, not only when the recording is closed: the person watching must know now.
        onError: (error) => send({ type: 'write-failed', code: error.code, message: error.message, at: clock.now() }),
      },
    );
    opened = { writer, registry, clock };
  } catch (error) {
    send({ type: 'failed', code: error instanceof ProxyError ? error.code : 'E_STORE_OPEN', message: (error as Error).message });
    process.exit(0);
  }
  send({ type: 'ready', out: opened.writer.file });
  if (setup.lowerPriority === 'when-ready') yieldToForwarding();
  recording = opened;
  port.on('message', (message: ToWorker) => {
    inbox.push(message);
    if (!draining) void drain();
  });
}

/**
 * True in the CLI's bundle, where each protocol's module loads when traffic is first claimed by it
 * (protocols/module-by-id.ts, scripts/bundle-cli.mjs sets this): the recorder then loads without them.
 * Unbundled, the recorder's imports load them all, so they load here first, one step each.
 */
const PROTOCOL_MODULES_ON_FIRST_USE = false;

/** The open file, its schemas and clock: what the recorder is made with once ops arrive. */
let recording: { writer: RecordingWriter; registry: SchemaRegistry; clock: RecordingClock };

/**
 * Loads the catalog, each protocol's module (a step each; in the CLI's bundle, none until traffic is
 * claimed by it) and the recorder, and makes the recorder:
 * at the first ops, not at `ready`, so that a run that captures nothing (a `record` stopped before
 * any traffic, a start that a test only checks) never loads them. A module that fails to load ends
 * the thread with its error: the capture thread reports that recording stopped, as for a worker
 * that dies later.
 */
async function loadRecorder(): Promise<TrafficRecorder> {
  const { MODULE_LOADS } = await import('../../protocols/catalog.js');
  await loadInSteps([...(PROTOCOL_MODULES_ON_FIRST_USE ? [] : MODULE_LOADS), () => import('../pipeline/traffic-recorder.js')], burst);
  const { TrafficRecorder } = await import('../pipeline/traffic-recorder.js');
  return new TrafficRecorder({
    writer: recording.writer,
    registry: recording.registry,
    clock: recording.clock,
    protocol: setup.protocol,
    maxBodyBytes: setup.maxBodyBytes,
    redact: setup.redact,
    listener: setup.live ? (event) => send({ type: 'live', event }) : undefined,
  });
}

/** Progress is reported at most this often: each report costs the capture thread a message. */
const PROGRESS_INTERVAL_MS = 10;
let unreportedBytes = 0;
let unreportedOps = 0;
let unreportedSpool = 0;
let progressTimer: NodeJS.Timeout | undefined;

function reportProgress(bytes: number, opsBytes: number, spooled: number): void {
  unreportedBytes += bytes;
  unreportedOps += opsBytes;
  unreportedSpool += spooled;
  progressTimer ??= setTimeout(() => {
    progressTimer = undefined;
    send({ type: 'progress', bytes: unreportedBytes, opsBytes: unreportedOps, spooled: unreportedSpool, totals: recorder!.totals() });
    unreportedBytes = 0;
    unreportedOps = 0;
    unreportedSpool = 0;
  }, PROGRESS_INTERVAL_MS);
}

/**
 * Test only (test/hostile/recorder-memory.test.ts): with AGENT_PROXY_TEST_RECORDER_OOM set, the first
 * payload that contains its value makes this worker allocate until V8 ends it for reaching its heap
 * limit, the way a real out-of-memory ends it. No legal input does that any more, yet the capture
 * thread must survive it; this lets a test see that it does. Unset, it costs one test per payload.
 */
const oomMarker = process.env.AGENT_PROXY_TEST_RECORDER_OOM ? Buffer.from(process.env.AGENT_PROXY_TEST_RECORDER_OOM) : undefined;

function exhaustHeapOn(payload: Buffer): void {
  if (!oomMarker || !payload.includes(oomMarker)) return;
  // Parsed arrays, as a recorder's own allocations are: on Node 24 a worker that only fills
  // `new Array(n)` in a tight loop sits at its heap limit without being ended (nor terminated).
  const item = `[${new Array<number>(1000).fill(7).join(',')}]`;
  const hoard: unknown[] = [];
  for (;;) hoard.push(JSON.parse(item));
}

const exchanges = new Map<number, ExchangeRecording>();
const taps = new Map<number, BodyTap>();
const inbox: ToWorker[] = [];
let draining = false;

async function drain(): Promise<void> {
  draining = true;
  while (inbox.length > 0) {
    if (burst?.active) await burst.quiet();
    const message = inbox.shift()!;
    if (message.type === 'close') {
      if (progressTimer) clearTimeout(progressTimer);
      let error: { code: string; message: string } | undefined;
      // Without a recorder nothing was captured: closing the file is all its close would do.
      const { writer } = recording;
      let totals = recorder?.totals() ?? { ...writer.totals };
      try {
        if (recorder) totals = await recorder.close(new Date(message.endedAt));
        else {
          writer.close(new Date(message.endedAt));
          totals = { ...writer.totals };
        }
      } catch (e) {
        error = { code: e instanceof ProxyError ? e.code : 'E_STORE_WRITE', message: (e as Error).message };
      }
      send({ type: 'closed', totals, error });
      port.close();
      return;
    }
    const active = (recorder ??= await loadRecorder());
    const ops = decodeBatch(message.type === 'spooled' ? readSpooledBatch(message.batch) : message.batch);
    // By index, not for…of: in this async function the array iterator's results were allocated, ~3 % of the
    // worker's garbage on a REST flood.
    for (let i = 0; i < ops.length; i++) {
      // Checked per op, not per batch: a batch can hold a megabyte of lines, a long time to compete.
      if (burst?.active) await burst.quiet();
      const pending = apply(ops[i], active);
      if (pending) await pending;
    }
    reportProgress(message.bytes, message.type === 'ops' ? message.opsBytes : 0, message.type === 'spooled' ? message.batch.length : 0);
  }
  draining = false;
}

function apply(op: DecodedOp, recorder: TrafficRecorder): Promise<void> | void {
  switch (op[0]) {
    case OP.open: {
      // In place: the decoded op is the worker's own.
      const start = op[3] as Omit<ExchangeStart, 'tOffsetMs'>;
      if (op[3].requestHeaders !== undefined) start.requestHeaders = fromWireHeaders(op[3].requestHeaders);
      exchanges.set(op[1], recorder.openExchange(start, op[2]));
      return;
    }
    case OP.classify:
      exchanges.get(op[1])?.classify(op[2]);
      return;
    case OP.classifyRoute: {
      const exchange = exchanges.get(op[1]);
      if (!exchange) return;
      const { method, path } = exchange.start;
      const hint: ChannelHint = { transport: op[2] };
      if (method !== undefined) hint.method = method;
      if (path !== undefined) hint.path = path;
      if (op[3] !== null) hint.contentType = op[3];
      exchange.classify(hint);
      return;
    }
    case OP.update: {
      const update = op[2] as ExchangeUpdate;
      if (op[2].responseHeaders !== undefined) update.responseHeaders = fromWireHeaders(op[2].responseHeaders);
      exchanges.get(op[1])?.update(update);
      return;
    }
    case OP.record: {
      if (oomMarker) exhaustHeapOn(op[3]);
      const exchange = exchanges.get(op[1]);
      if (!exchange) return;
      const http = httpOfWire(op[6], exchange.start);
      if (typeof op[5] === 'number') exchange.record(op[2], op[3], presetRecordOptions(op[5], op[4], http));
      else {
        // In place: the decoded facts are the worker's own (a preset is shared, so it is copied).
        const facts = op[5] as RecordOptions;
        facts.at = op[4];
        facts.http = http;
        exchange.record(op[2], op[3], facts);
      }
      return;
    }
    case OP.tap: {
      const exchange = exchanges.get(op[1]);
      const spec = op[3];
      if (exchange) taps.set(op[2], exchange.tap(spec.kind === 'lines' ? spec : { kind: spec.kind, sender: spec.sender, contentEncoding: spec.contentEncoding, http: fromWireHttp(spec.http) }));
      return;
    }
    case OP.push:
      if (oomMarker) exhaustHeapOn(op[2]);
      taps.get(op[1])?.push(op[2], op[3]);
      return;
    case OP.tapEnd: {
      const tap = taps.get(op[1]);
      taps.delete(op[1]);
      return tap?.end(op[2], op[3]) ?? undefined;
    }
    case OP.end:
      exchanges.get(op[1])?.end(op[3], op[2]);
      exchanges.delete(op[1]);
      return;
  }
}

start().catch((error: unknown) =>
  setImmediate(() => {
    throw error;
  }),
);
