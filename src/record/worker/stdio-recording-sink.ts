import { resolve } from 'node:path';
import type { ProtocolId } from '../../protocols/catalog.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import type { LiveListener, StoppedListener } from '../live-events.js';
import { RecordingClock } from '../../core/recording-clock.js';
import type { RecordingSink } from '../pipeline/recording-sink.js';
import { defaultRecordingPath } from '../recording-path.js';
import { openRecordingSink, type RecordingPipeline } from '../open-recording-sink.js';

/** What the line-based recorders (stdio child, NDJSON socket) share with `startRecorder`. */
export interface LineSinkOptions {
  out?: string;
  protocol?: ProtocolId;
  maxBodyBytes?: number;
  schemas?: string[];
  /** More JSON fields whose values are never stored: key names or JSON pointers (besides DEFAULT_REDACTED_FIELDS). */
  redactFields?: string[];
  /** Credentials of a well-known format to store as they are (`--keep-secrets-matching`). */
  keepSecretsMatching?: string[];
  registry?: SchemaRegistry;
  listener?: LiveListener;
  /** Told at once when recording stops while traffic is still forwarded; without it, stderr is. */
  onStopped?: StoppedListener;
  overwrite?: boolean;
  pipeline?: RecordingPipeline;
}

/** An opened line sink. `ready` settles once the recording file is open (at once for the inline pipeline). */
export interface LineSink {
  sink: RecordingSink;
  out: string;
  clock: RecordingClock;
  ready: Promise<void>;
}

/**
 * Opens the recording for a line-based recorder, in the same pipeline as `startRecorder` does for
 * HTTP. `target` is what the recording names as its upstream (the command line, or the daemon
 * socket). It returns before the worker is ready, so that a stdio agent can be started alongside
 * instead of after it; callers await `ready` before they rely on the file.
 */
export async function openLineSink(options: LineSinkOptions, target: string, listen: string | undefined, clock = new RecordingClock()): Promise<LineSink> {
  const out = resolve(options.out ?? defaultRecordingPath(clock.startedAt));
  const { sink, ready } = await openRecordingSink({
    out,
    target,
    listen,
    clock,
    lines: true,
    pipeline: options.pipeline,
    protocol: options.protocol,
    maxBodyBytes: options.maxBodyBytes,
    schemas: options.schemas,
    registry: options.registry,
    redact: { fields: options.redactFields, keepSecrets: options.keepSecretsMatching },
    listener: options.listener,
    onStopped: options.onStopped,
    overwrite: options.overwrite,
  });
  return { sink, out, clock, ready };
}
