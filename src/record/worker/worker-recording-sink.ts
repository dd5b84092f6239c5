import { Worker } from 'node:worker_threads';
import type { Sender } from '../../core/message.js';
import { ProxyError, type ErrorCode } from '../../core/errors.js';
import type { ChannelHint } from '../../protocols/protocol.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate } from '../../store/recording-writer.js';
import { reportStopped, writeFailed, type LiveListener, type StoppedListener } from '../live-events.js';
import type { RecordingClock } from '../../core/recording-clock.js';
import { DEFAULT_MAX_BODY_BYTES, type BodyTap, type ExchangeSink, type RecordOptions, type RecordingSink, type TapSpec } from '../pipeline/recording-sink.js';
import type { RecordingTotals } from '../pipeline/recording-sink.js';
import { BURST_BACKLOG_BYTES, BurstSignal } from './burst-signal.js';
import { encodeOps, packBatch, type EncodedOps } from './op-batch.js';
import { RecordingSpool } from './recording-spool.js';
import { recorderHeapMb } from './recorder-memory.js';
import type { FromWorker, ToWorker, WorkerSetup } from './worker-messages.js';
import { OP, recordPresetOf, toWireHttp, toWireStart, toWireUpdate, wireHttpOf, type RecorderOp, type Route, type WireRecordOptions } from './recorder-ops.js';
import { LINE_PREFIX } from '../../core/program-name.js';

/**
 * The worker's young generation. 4 MiB records as fast as 8 (bench/record.js --only rest, CPU per
 * request) and keeps the recorder's RSS ~8 MB lower under a flood; 64 MiB doubles the CPU of V8's
 * helper threads, which scavenge it in parallel on the cores forwarding needs.
 */
const WORKER_YOUNG_GENERATION_MB = 4;
/** Recording may fall this far behind before capture stops reading; it resumes below the low mark. */
const HIGH_WATER_BYTES = 16 * 1024 * 1024;
const LOW_WATER_BYTES = 4 * 1024 * 1024;
/**
 * The ops' own JSON (exchange starts, headers, routes) waits in memory beside the payload: a REST
 * exchange carries ~700 B of it for a ~150 B body. Counted on its own, with its own marks, so that a
 * flood of small exchanges stays bounded without pausing payload-heavy streams any sooner.
 */
const OPS_HIGH_WATER_BYTES = 32 * 1024 * 1024;
const OPS_LOW_WATER_BYTES = 8 * 1024 * 1024;
/**
 * Ops are posted in batches: at the next turn of the event loop, or at once past this size. Small:
 * each batch's packed payload (at most this plus one socket read, under 128 KiB) is malloc'd on the
 * forwarding thread and freed by the worker, and a flood's batches of 1 MiB left malloc's main arena
 * ~6 MB larger at the peak than batches of 48 KiB do, for the same bytes in flight
 * (bench/record.js --only rss --memory); posting more often costs no CPU the runs can see.
 */
const BATCH_BYTES = 48 * 1024;
/** Ops that may wait for a busy worker's progress report before they are posted anyway (~80 REST exchanges). */
const DEFERRED_MAX_OPS = 512;
/** With a spool, batches start going there once recording is this far behind. */
const SPILL_AFTER_BYTES = 1024 * 1024;
/** With a spool, capture is paused only once this much waits on disk. */
const MAX_SPOOLED_BYTES = 1024 * 1024 * 1024;
/**
 * With a spool, the first this-many payload bytes of a burst wait in memory rather than on disk, as
 * much as any transport may keep in memory without one: writing a burst to the spool costs the
 * capture thread about as much CPU as forwarding it, on the forwarding path, which then falls behind
 * the agent. What waits in memory is posted to the worker once the burst is over, a few megabytes
 * ahead of what it has recorded, so that it does not pile up a second time in the worker's queue.
 */
const HELD_MAX_BYTES = HIGH_WATER_BYTES;
/** Held batches are posted while the worker has less than this much payload posted and not yet recorded. */
const RELEASE_AHEAD_BYTES = 4 * 1024 * 1024;

export interface WorkerSinkOptions {
  listener?: LiveListener;
  /** Told at once when recording stops while traffic is still forwarded; without it, stderr is. */
  onStopped?: StoppedListener;
  /**
   * A file for batches that arrive while recording is more than the high-water mark behind: they
   * wait there instead of capture being paused. Only for line transports (see RecordingSpool).
   */
  spoolPath?: string;
  /** With a spool: how many payload bytes of a burst wait in memory before batches go to the spool. */
  heldMaxBytes?: number;
}

/** A batch of a burst that has not been posted yet: in memory, or in the spool (only its place in the order waits here). */
type HeldBatch = { in: 'memory'; encoded: EncodedOps; bytes: number } | { in: 'spool'; message: Extract<ToWorker, { type: 'spooled' }> };

/**
 * The capture thread's side of the recording worker. Calls only stamp the time and queue an op;
 * batches go to the worker once per event-loop turn, so forwarding never waits on parsing,
 * judging or SQLite. If recording falls more than 16 MiB behind, `overloaded` tells capture to
 * pause reading until the worker catches up, which keeps memory flat under any load.
 */
export class WorkerRecordingSink implements RecordingSink {
  readonly maxBodyBytes: number;
  private ops: RecorderOp[] = [];
  private opBytes = 0;
  private scheduled = false;
  private backlog = 0;
  /** Op JSON posted and not yet applied by the worker (spooled ops wait on disk and do not count). */
  private opsBacklog = 0;
  private nextExchange = 1;
  private nextTap = 1;
  private latest: RecordingTotals = { exchanges: 0, messages: 0, invalid: 0, findings: 0 };
  private drainListeners: Array<() => void> = [];
  private closing?: Promise<RecordingTotals>;
  private closed?: (message: Extract<FromWorker, { type: 'closed' }>) => void;
  overloaded = false;
  /** Batches go to the spool (recording is behind); back to the worker's queue below the low mark. */
  private spilling = false;
  private spool?: RecordingSpool;
  /** Batches of a burst waiting to be posted, in capture order; posted once the burst is over. */
  private held: HeldBatch[] = [];
  private heldBytes = 0;
  /** Payload posted to the worker (in messages or spooled) and not yet reported recorded. */
  private postedBytes = 0;
  private releaseScheduled = false;
  /** @internal how many batches have waited in memory and in the spool, for tests. */
  readonly deferred = { inMemory: 0, spooled: 0 };
  /** @internal batches of a burst still held in memory right now, for tests. */
  get heldBatches(): number {
    return this.held.length;
  }
  private readonly burst?: BurstSignal;
  private readonly listener?: LiveListener;
  /** Set once the worker has died: nothing more is recorded. */
  private failure?: string;
  /** Set once a write has failed: the worker goes on judging, but stores nothing more. */
  private writeFailure?: string;
  /** The worker had opened the recording. */
  private opened = false;
  /** Resolves once the worker has opened the recording file; rejects with its error if it could not. */
  readonly ready: Promise<void>;
  private settleReady!: (error?: ProxyError) => void;

  private constructor(
    private readonly worker: Worker,
    private readonly clock: RecordingClock,
    setup: WorkerSetup,
    private readonly options: WorkerSinkOptions,
  ) {
    this.maxBodyBytes = setup.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.listener = options.listener;
    if (setup.burst) {
      this.burst = new BurstSignal(setup.burst);
      this.burst.onQuiet(() => this.releaseHeld());
    }
    this.ready = new Promise<void>((resolve, reject) => {
      this.settleReady = (error) => (error ? reject(error) : resolve());
    });
    // Whoever awaits `ready` reports the failure; an unawaited one must not become an unhandled rejection.
    this.ready.catch(() => undefined);
    worker.on('message', (message: FromWorker) => this.onMessage(message));
    // A worker that dies (out of memory, a bug) can record nothing more; forwarding must not wait on
    // it, so recording stops, capture is released, and close() reports the failure.
    worker.on('error', (error: Error) => {
      this.settleReady(new ProxyError('E_STORE_OPEN', `the recording worker failed: ${error.message}`));
      this.fail(`the recording worker failed: ${error.message}`);
    });
    worker.on('exit', (code) => {
      this.settleReady(new ProxyError('E_STORE_OPEN', `the recording worker exited with code ${code} before it was ready`));
      if (!this.closing) this.fail(`the recording worker exited with code ${code}`);
    });
  }

  /**
   * Starts the worker and returns at once: ops queue in its port until it has opened the recording,
   * so a caller that must not keep its peer waiting (a stdio agent) can start forwarding right away
   * and await `ready` alongside.
   */
  static launch(workerUrl: URL, workerSetup: WorkerSetup, clock: RecordingClock, options: WorkerSinkOptions = {}): WorkerRecordingSink {
    const setup: WorkerSetup = options.spoolPath ? { ...workerSetup, burst: new SharedArrayBuffer(4) } : workerSetup;
    const worker = new Worker(workerUrl, { workerData: setup, resourceLimits: { maxOldGenerationSizeMb: recorderHeapMb(setup.maxBodyBytes), maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    return new WorkerRecordingSink(worker, clock, setup, options);
  }

  /** Starts the worker and resolves once it has opened the recording file (or rejects with its error). */
  static async start(workerUrl: URL, workerSetup: WorkerSetup, clock: RecordingClock, options: WorkerSinkOptions = {}): Promise<WorkerRecordingSink> {
    // Nothing is forwarded before this resolves, so start-up need not give way to traffic.
    const sink = WorkerRecordingSink.launch(workerUrl, { lowerPriority: 'when-ready', ...workerSetup }, clock, options);
    try {
      await sink.ready;
    } catch (error) {
      await sink.worker.terminate();
      throw error;
    }
    return sink;
  }

  openExchange(start: Omit<ExchangeStart, 'tOffsetMs'>, at = this.clock.now()): ExchangeSink {
    const id = this.nextExchange++;
    this.push([OP.open, id, at, toWireStart(start)], 0);
    return new RemoteExchange(this, id, start);
  }

  onDrain(listener: () => void): void {
    if (!this.overloaded) listener();
    else this.drainListeners.push(listener);
  }

  totals(): RecordingTotals {
    return { ...this.latest };
  }

  close(endedAt: Date): Promise<RecordingTotals> {
    if (this.failure && !this.closing) {
      // The worker is gone: there is nothing to flush and no reply to wait for.
      this.closing = this.worker.terminate().then(() => {
        this.spool?.close();
        throw new ProxyError('E_STORE_WRITE', `the recording is incomplete: ${this.failure}`);
      });
    }
    this.closing ??= new Promise<Extract<FromWorker, { type: 'closed' }>>((resolve) => {
      this.closed = resolve;
      // Nothing more is forwarded: recording need not wait for a quiet moment. The last ops join
      // the held batches first (while spilling, flush holds them too), then all of them are posted.
      this.burst?.clear();
      this.flush();
      this.releaseHeld(true);
      this.worker.postMessage({ type: 'close', endedAt: endedAt.toISOString() } satisfies ToWorker);
      this.worker.once('exit', () => resolve({ type: 'closed', totals: this.latest, error: { code: 'E_STORE_WRITE', message: 'the recording worker stopped unexpectedly' } }));
    }).then(async (message) => {
      await this.worker.terminate();
      this.spool?.close();
      if (message.error) throw new ProxyError(message.error.code as ErrorCode, message.error.message);
      return message.totals;
    });
    return this.closing;
  }

  now(): number {
    return this.clock.now();
  }

  /** @internal */
  newTapId(): number {
    return this.nextTap++;
  }

  /** @internal queues one op; `bytes` counts payload toward the backlog. */
  push(op: RecorderOp, bytes: number): void {
    if (this.failure) return;
    this.ops.push(op);
    this.opBytes += bytes;
    this.backlog += bytes;
    if (!this.overloaded && !this.spilling && this.backlog > (this.options.spoolPath ? SPILL_AFTER_BYTES : HIGH_WATER_BYTES)) this.fallBehind();
    // Only while a spool can take the batches the waiting worker leaves behind.
    if (this.burst && this.options.spoolPath && !this.overloaded && this.backlog > BURST_BACKLOG_BYTES) this.burst.activity();
    if (this.opBytes >= BATCH_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushUnlessBusy);
    }
  }

  /**
   * The turn's ops go to an idle worker at once. A worker still applying earlier batches would only
   * queue them, so they wait for its next progress report (at most 10 ms away: it reports what it
   * applied), up to DEFERRED_MAX_OPS: under load each batch then carries several turns' ops, and
   * both threads pay a message's fixed cost (its clone, the worker's wake-up and drain) less often.
   * Not with a spool (line transports): a burst's batches are held and spooled a turn at a time.
   */
  private readonly flushUnlessBusy = (): void => {
    if (this.opsBacklog > 0 && this.ops.length < DEFERRED_MAX_OPS && !this.options.spoolPath) {
      this.scheduled = false;
      return;
    }
    this.flush();
  };

  /** Recording is a high-water mark behind: spill to the spool if there is one, else pause capture. */
  private fallBehind(): void {
    if (this.options.spoolPath && !this.spool) {
      try {
        this.spool = RecordingSpool.open(this.options.spoolPath);
      } catch (error) {
        this.options.spoolPath = undefined;
        process.stderr.write(`${LINE_PREFIX}cannot open the recording spool, traffic is paused while recording catches up: ${(error as Error).message}\n`);
      }
    }
    if (this.spool) this.spilling = true;
    else this.overloaded = true;
  }

  private fail(message: string): void {
    if (this.failure) return;
    this.failure = message;
    // Before it was ready, whoever awaits `ready` says why; after, recording stopped mid-way.
    if (this.opened) reportStopped({ reason: 'recorder-exited', code: 'E_RECORDER_EXITED', message, tOffsetMs: this.clock.now() }, this.options.onStopped);
    this.burst?.clear();
    this.ops = [];
    this.opBytes = 0;
    this.held = [];
    this.heldBytes = 0;
    this.backlog = 0;
    this.opsBacklog = 0;
    this.releaseCapture();
  }

  private releaseCapture(): void {
    this.overloaded = false;
    const listeners = this.drainListeners;
    this.drainListeners = [];
    for (const listener of listeners) listener();
  }

  private flush(): void {
    this.scheduled = false;
    if (this.ops.length === 0 || this.failure) return;
    const ops = this.ops;
    const bytes = this.opBytes;
    this.ops = [];
    this.opBytes = 0;
    let encoded: EncodedOps;
    try {
      encoded = encodeOps(ops, bytes);
    } catch (error) {
      // A bug, not bad traffic (ops hold plain values): recording stops, forwarding goes on.
      this.fail(`a batch could not be handed to the recording worker: ${(error as Error).message}`);
      return;
    }
    if (this.spilling && this.spool) {
      if (this.heldBytes + bytes <= (this.options.heldMaxBytes ?? HELD_MAX_BYTES)) {
        this.hold({ in: 'memory', encoded, bytes });
        return;
      }
      try {
        const spooled = this.spool.append(encoded);
        this.deferred.spooled++;
        const message = { type: 'spooled', batch: spooled, bytes } satisfies ToWorker;
        // Behind batches still held in memory, its place in the order waits too.
        if (this.held.length > 0) this.held.push({ in: 'spool', message });
        else this.postSpooled(message);
        if (this.spool.pending > MAX_SPOOLED_BYTES) {
          // So far behind that capture must wait: recording gets the CPU whatever the traffic does.
          this.overloaded = true;
          this.burst?.clear();
          this.releaseHeld();
        }
        return;
      } catch (error) {
        // A full disk: what is spooled stays readable; from here on, capture pauses instead.
        this.spilling = false;
        this.options.spoolPath = undefined;
        this.burst?.clear();
        this.releaseHeld();
        this.overloaded = this.backlog > HIGH_WATER_BYTES;
        process.stderr.write(`${LINE_PREFIX}cannot write the recording spool, traffic is paused while recording catches up: ${(error as Error).message}\n`);
      }
    }
    // Held batches go first: order is everything to the worker.
    if (this.held.length > 0) {
      this.hold({ in: 'memory', encoded, bytes });
      return;
    }
    this.post(encoded, bytes);
  }

  private hold(batch: Extract<HeldBatch, { in: 'memory' }>): void {
    this.held.push(batch);
    this.heldBytes += batch.bytes;
    this.deferred.inMemory++;
  }

  /**
   * Posts held batches, in order, once the burst is over (or `all` at once, when closing): as the
   * worker records what it has, and one batch from memory per event-loop turn, since its copy into a
   * transferable buffer must not hold up forwarding. If a new burst starts meanwhile, the rest waits.
   */
  private releaseHeld(all = false): void {
    while (this.held.length > 0 && !this.failure) {
      if (!all && (this.burst?.active || this.postedBytes > RELEASE_AHEAD_BYTES)) return;
      const batch = this.held.shift()!;
      if (batch.in === 'spool') {
        this.postSpooled(batch.message);
        continue;
      }
      this.heldBytes -= batch.bytes;
      this.post(batch.encoded, batch.bytes);
      if (!all && this.held.length > 0) {
        if (!this.releaseScheduled) {
          this.releaseScheduled = true;
          setImmediate(() => {
            this.releaseScheduled = false;
            this.releaseHeld();
          });
        }
        return;
      }
    }
  }

  private postSpooled(message: Extract<ToWorker, { type: 'spooled' }>): void {
    this.worker.postMessage(message);
    this.postedBytes += message.bytes;
  }

  private post(encoded: EncodedOps, bytes: number): void {
    const batch = packBatch(encoded);
    const message: ToWorker = { type: 'ops', batch, bytes, opsBytes: batch.ops.length };
    this.worker.postMessage(message, [batch.bytes]);
    this.postedBytes += bytes;
    this.opsBacklog += batch.ops.length;
    if (this.opsBacklog > OPS_HIGH_WATER_BYTES) this.overloaded = true;
  }

  private onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'ready':
        this.opened = true;
        this.settleReady();
        return;
      case 'failed':
        // Reported by whoever awaits `ready`; nothing was recorded, so there is nothing to warn about.
        this.failure ??= message.message;
        this.settleReady(new ProxyError(message.code as ErrorCode, message.message));
        this.releaseCapture();
        return;
      case 'live':
        this.listener?.(message.event);
        return;
      case 'write-failed':
        if (this.writeFailure || this.failure) return;
        this.writeFailure = message.message;
        reportStopped(writeFailed(message, message.at), this.options.onStopped);
        return;
      case 'progress':
        this.latest = message.totals;
        this.backlog -= message.bytes;
        this.postedBytes -= message.bytes;
        this.opsBacklog -= message.opsBytes;
        if (this.spilling && this.backlog < SPILL_AFTER_BYTES / 2) {
          this.spilling = false;
          this.burst?.clear();
          this.releaseHeld();
        }
        if (message.spooled > 0) this.spool?.consumedBytes(message.spooled, this.spilling);
        // Paused on a full spool: resume once half of it is recorded, not only at the low mark.
        const caughtUp =
          this.opsBacklog < OPS_LOW_WATER_BYTES &&
          (this.backlog < LOW_WATER_BYTES || (this.spool !== undefined && this.spool.pending < MAX_SPOOLED_BYTES / 2));
        if (this.overloaded && caughtUp) this.releaseCapture();
        this.releaseHeld();
        // What waited for this report (flushUnlessBusy).
        if (this.ops.length > 0) this.flush();
        return;
      case 'closed':
        this.latest = message.totals;
        this.closed?.(message);
        return;
      default:
        return;
    }
  }
}

/** One exchange as the capture thread sees it when recording happens in the worker. */
class RemoteExchange implements ExchangeSink {
  constructor(
    private readonly sink: WorkerRecordingSink,
    readonly id: number,
    /** Its method and path: hints and messages of the same route do not send them again. */
    private readonly route: Route,
  ) {}

  classify(hint: ChannelHint): void {
    const { route } = this;
    if (hint.method === route.method && hint.path === route.path && hint.subprotocol === undefined && hint.requestBody === undefined && hint.sniffed === undefined) {
      this.sink.push([OP.classifyRoute, this.id, hint.transport, hint.contentType ?? null], 0);
    } else this.sink.push([OP.classify, this.id, hint], 0);
  }

  update(update: ExchangeUpdate): void {
    this.sink.push([OP.update, this.id, toWireUpdate(update)], 0);
  }

  record(sender: Sender, raw: Buffer, options: RecordOptions): void {
    const at = options.at ?? this.sink.now();
    // Only what will be stored crosses to the worker: a 200 MB WebSocket message is kept to its
    // first --max-body bytes, not copied whole into a batch. (The usual message takes the first branch.)
    const max = this.sink.maxBodyBytes;
    if (raw.length <= max) {
      const preset = recordPresetOf(options, raw.length);
      this.sink.push([OP.record, this.id, sender, raw, at, preset >= 0 ? preset : factsOf(options), wireHttpOf(options.http, this.route)], raw.length);
      return;
    }
    const kept = raw.subarray(0, max);
    const facts = { ...factsOf(options), totalBytes: options.totalBytes ?? raw.length };
    this.sink.push([OP.record, this.id, sender, kept, at, facts, wireHttpOf(options.http, this.route)], kept.length);
  }

  tap(spec: TapSpec): BodyTap {
    const tap = this.sink.newTapId();
    this.sink.push([OP.tap, this.id, tap, spec.kind === 'lines' ? spec : { kind: spec.kind, sender: spec.sender, contentEncoding: spec.contentEncoding, http: toWireHttp(spec.http) }], 0);
    const sink = this.sink;
    return {
      push(chunk: Buffer, at?: number) {
        sink.push([OP.push, tap, chunk, at ?? sink.now()], chunk.length);
      },
      // Packing copies them into the batch anyway (op-batch.ts): concatenating them first would copy twice.
      pushChunks(chunks: readonly Buffer[], bytes: number, at?: number) {
        sink.push([OP.push, tap, chunks, at ?? sink.now()], bytes);
      },
      end(complete: boolean, at?: number) {
        sink.push([OP.tapEnd, tap, complete, at ?? sink.now()], 0);
      },
    };
  }

  end(end: Omit<ExchangeEnd, 'tOffsetMs'>): void {
    this.sink.push([OP.end, this.id, this.sink.now(), end], 0);
  }
}

/** The options of a message as they cross: without `at` and `http`, which the op carries on its own. */
function factsOf(options: RecordOptions): WireRecordOptions {
  if (options.http === undefined && options.at === undefined) return options;
  const { http: _http, at: _at, ...facts } = options;
  return facts;
}
