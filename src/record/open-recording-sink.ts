import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TOOL_VERSION } from '../core/version.js';
import type { RecordingClock } from '../core/recording-clock.js';
import type { ProtocolId } from '../protocols/catalog.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import { keepPatterns } from '../core/credential-scrubber.js';
import { refuseExistingRecording } from '../store/refuse-existing.js';
import { reportStopped, writeFailed, type LiveListener, type StoppedListener } from './live-events.js';
import type { RecordingSink } from './pipeline/recording-sink.js';
import type { StorageRedactionOptions } from './pipeline/traffic-recorder.js';
import { WorkerRecordingSink } from './worker/worker-recording-sink.js';
import type { WorkerSetup } from './worker/worker-messages.js';

/**
 * Where framing, judging and SQLite run: 'worker', a worker thread, so forwarding never waits on
 * them; 'inline', the capture thread.
 */
export type RecordingPipeline = 'worker' | 'inline';

/** The compiled worker; absent when this module runs from TypeScript sources (vitest). */
const WORKER_URL = new URL('./worker/recording-worker.js', import.meta.url);

/** The pipeline asked for; by default the worker, wherever it has been compiled. */
export function recordingPipeline(requested?: RecordingPipeline): RecordingPipeline {
  return requested ?? (existsSync(fileURLToPath(WORKER_URL)) ? 'worker' : 'inline');
}

export interface RecordingSinkOptions {
  /** The recording file (an absolute path). */
  out: string;
  /** What the recording names as its upstream (a URL, a command line, the daemon socket). */
  target: string;
  /** Where clients connect, for the line transports (`stdio`, the NDJSON socket). */
  listen?: string;
  clock: RecordingClock;
  pipeline?: RecordingPipeline;
  protocol?: ProtocolId;
  maxBodyBytes?: number;
  schemas?: string[];
  /** The inline pipeline's registry (the worker loads its own from `schemas`). */
  registry?: SchemaRegistry;
  redact?: StorageRedactionOptions;
  listener?: LiveListener;
  /** Told at once when recording stops while traffic is still forwarded; without it, stderr is. */
  onStopped?: StoppedListener;
  overwrite?: boolean;
  /**
   * A line transport (stdio, NDJSON): a burst of lines waits in a spool beside the recording instead
   * of pausing the peer, and the sink is returned before the worker has opened the file, so that a
   * stdio agent can be started alongside. Otherwise the worker is ready when this resolves.
   */
  lines?: boolean;
}

/** An opened sink. `ready` settles once the recording file is open. */
export interface OpenedRecordingSink {
  sink: RecordingSink;
  pipeline: RecordingPipeline;
  ready: Promise<void>;
}

/**
 * Opens the recording every recorder writes through (HTTP proxy, stdio child, NDJSON socket), in the
 * pipeline `recordingPipeline` picks. The inline pipeline is imported only when used, which keeps
 * the CLI's start quick.
 */
export async function openRecordingSink(options: RecordingSinkOptions): Promise<OpenedRecordingSink> {
  const pipeline = recordingPipeline(options.pipeline);
  const { out, target, listen, clock } = options;
  if (pipeline === 'worker') {
    const setup: WorkerSetup = {
      out,
      meta: { toolVersion: TOOL_VERSION, target, listen, mode: 'record', startedAt: clock.startedAt.toISOString() },
      overwrite: options.overwrite,
      protocol: options.protocol,
      maxBodyBytes: options.maxBodyBytes,
      schemas: options.schemas,
      redact: options.redact,
      clockOrigin: clock.origin,
      live: options.listener !== undefined,
    };
    const events = { listener: options.listener, onStopped: options.onStopped };
    if (!options.lines) {
      const sink = await WorkerRecordingSink.start(WORKER_URL, setup, clock, events);
      return { sink, pipeline, ready: sink.ready };
    }
    // The worker would refuse it too, but only after a stdio agent had been started for nothing.
    refuseExistingRecording(out, options.overwrite);
    const sink = WorkerRecordingSink.launch(WORKER_URL, setup, clock, { ...events, spoolPath: `${out}.spool` });
    return { sink, pipeline, ready: sink.ready };
  }
  const [{ SchemaRegistry }, { RecordingWriter }, { TrafficRecorder }] = await Promise.all([
    import('../schema/schema-registry.js'),
    import('../store/recording-writer.js'),
    import('./pipeline/traffic-recorder.js'),
  ]);
  const registry = options.registry ?? SchemaRegistry.load({ extraDirs: options.schemas });
  const writer = RecordingWriter.open(
    out,
    { toolVersion: TOOL_VERSION, target, listen, mode: 'record', schemaHashes: registry.hashes(), startedAt: clock.startedAt },
    { overwrite: options.overwrite, keepSecrets: keepPatterns(options.redact?.keepSecrets), onError: (error) => reportStopped(writeFailed(error, clock.now()), options.onStopped) },
  );
  const sink = new TrafficRecorder({
    writer,
    registry,
    clock,
    protocol: options.protocol,
    maxBodyBytes: options.maxBodyBytes,
    redact: options.redact,
    listener: options.listener,
  });
  return { sink, pipeline, ready: Promise.resolve() };
}
