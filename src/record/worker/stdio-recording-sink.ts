import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOL_VERSION } from '../../core/version.js';
import type { ProtocolId } from '../../protocols/protocol.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import { reportStopped, writeFailed, type LiveListener, type StoppedListener } from '../live-events.js';
import { RecordingClock } from '../../core/recording-clock.js';
import type { RecordingSink } from '../pipeline/recording-sink.js';
import { refuseExistingRecording } from '../../store/refuse-existing.js';
import { defaultRecordingPath } from '../recording-path.js';
import { WorkerRecordingSink } from './worker-recording-sink.js';

/** The compiled worker; absent when this module runs from TypeScript sources (vitest). */
const WORKER_URL = new URL('./recording-worker.js', import.meta.url);

/** What the line-based recorders (stdio child, NDJSON socket) share with `startRecorder`. */
export interface LineSinkOptions {
  out?: string;
  protocol?: ProtocolId;
  maxBodyBytes?: number;
  schemas?: string[];
  /** More JSON fields whose values are never stored: key names or JSON pointers (besides DEFAULT_REDACTED_FIELDS). */
  redactFields?: string[];
  registry?: SchemaRegistry;
  listener?: LiveListener;
  /** Told at once when recording stops while traffic is still forwarded; without it, stderr is. */
  onStopped?: StoppedListener;
  overwrite?: boolean;
  pipeline?: 'worker' | 'inline';
}

/** An opened line sink. `ready` settles once the recording file is open (at once for the inline pipeline). */
export interface LineSink {
  sink: RecordingSink;
  out: string;
  clock: RecordingClock;
  ready: Promise<void>;
}

/**
 * Opens the recording for a line-based recorder, exactly as `startRecorder` does for HTTP: judging and
 * SQLite in the recording worker where it has been compiled, inline otherwise. `target` is what the
 * recording names as its upstream (the command line, or the daemon socket).
 *
 * It returns before the worker is ready, so that a stdio agent can be started alongside instead of
 * after it; callers await `ready` before they rely on the file. The inline pipeline (tests run from
 * TypeScript sources) is imported only when used, which keeps the CLI's start quick.
 */
export async function openLineSink(options: LineSinkOptions, target: string, listen: string | undefined, clock = new RecordingClock()): Promise<LineSink> {
  const out = resolve(options.out ?? defaultRecordingPath(clock.startedAt));
  const pipeline = options.pipeline ?? (existsSync(fileURLToPath(WORKER_URL)) ? 'worker' : 'inline');
  if (pipeline === 'worker') {
    // The worker would refuse it too, but only after a stdio agent had been started for nothing.
    refuseExistingRecording(out, options.overwrite);
    const sink = WorkerRecordingSink.launch(
      WORKER_URL,
      {
        out,
        meta: { toolVersion: TOOL_VERSION, target, listen, mode: 'record', startedAt: clock.startedAt.toISOString() },
        overwrite: options.overwrite,
        protocol: options.protocol,
        maxBodyBytes: options.maxBodyBytes,
        schemas: options.schemas,
        redact: { fields: options.redactFields },
        clockOrigin: clock.origin,
        live: options.listener !== undefined,
      },
      clock,
      // A burst of lines waits in a spool beside the recording instead of pausing the agent.
      { listener: options.listener, onStopped: options.onStopped, spoolPath: `${out}.spool` },
    );
    return { sink, out, clock, ready: sink.ready };
  }
  const [{ SchemaRegistry }, { RecordingWriter }, { TrafficRecorder }] = await Promise.all([
    import('../../schema/schema-registry.js'),
    import('../../store/recording-writer.js'),
    import('../pipeline/traffic-recorder.js'),
  ]);
  const registry = options.registry ?? SchemaRegistry.load({ extraDirs: options.schemas });
  const writer = RecordingWriter.open(
    out,
    { toolVersion: TOOL_VERSION, target, listen, mode: 'record', schemaHashes: registry.hashes(), startedAt: clock.startedAt },
    { overwrite: options.overwrite, onError: (error) => reportStopped(writeFailed(error, clock.now()), options.onStopped) },
  );
  const sink = new TrafficRecorder({
    writer,
    registry,
    clock,
    protocol: options.protocol,
    maxBodyBytes: options.maxBodyBytes,
    redact: { fields: options.redactFields },
    listener: options.listener,
  });
  return { sink, out, clock, ready: Promise.resolve() };
}
