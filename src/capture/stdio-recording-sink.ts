import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOL_VERSION } from '../core/version.js';
import type { ProtocolId } from '../protocols/protocol.js';
import { SchemaRegistry } from '../schema/schema-registry.js';
import { RecordingWriter } from '../store/recording-writer.js';
import type { LiveListener } from './live-events.js';
import { RecordingClock } from './recording-clock.js';
import type { RecordingSink } from './recording-sink.js';
import { defaultRecordingPath } from './start-recorder.js';
import { TrafficRecorder } from './traffic-recorder.js';
import { WorkerRecordingSink } from './worker-recording-sink.js';

/** The compiled worker; absent when this module runs from TypeScript sources (vitest). */
const WORKER_URL = new URL('./recording-worker.js', import.meta.url);

/** What the line-based recorders (stdio child, NDJSON socket) share with `startRecorder`. */
export interface LineSinkOptions {
  out?: string;
  protocol?: ProtocolId;
  maxBodyBytes?: number;
  schemas?: string[];
  registry?: SchemaRegistry;
  listener?: LiveListener;
  overwrite?: boolean;
  pipeline?: 'worker' | 'inline';
}

/**
 * Opens the recording for a line-based recorder, exactly as `startRecorder` does for HTTP: judging and
 * SQLite in the recording worker where it has been compiled, inline otherwise. `target` is what the
 * recording names as its upstream (the command line, or the daemon socket).
 */
export async function openLineSink(
  options: LineSinkOptions,
  target: string,
  listen: string | undefined,
  clock = new RecordingClock(),
): Promise<{ sink: RecordingSink; out: string; clock: RecordingClock }> {
  const out = resolve(options.out ?? defaultRecordingPath(clock.startedAt));
  const pipeline = options.pipeline ?? (existsSync(fileURLToPath(WORKER_URL)) ? 'worker' : 'inline');
  if (pipeline === 'worker') {
    const sink = await WorkerRecordingSink.start(
      WORKER_URL,
      {
        out,
        meta: { toolVersion: TOOL_VERSION, target, listen, mode: 'record', startedAt: clock.startedAt.toISOString() },
        overwrite: options.overwrite,
        protocol: options.protocol,
        maxBodyBytes: options.maxBodyBytes,
        schemas: options.schemas,
        clockOrigin: clock.origin,
        live: options.listener !== undefined,
      },
      clock,
      options.listener,
    );
    return { sink, out, clock };
  }
  const registry = options.registry ?? SchemaRegistry.load({ extraDirs: options.schemas });
  const writer = RecordingWriter.open(
    out,
    { toolVersion: TOOL_VERSION, target, listen, mode: 'record', schemaHashes: registry.hashes(), startedAt: clock.startedAt },
    { overwrite: options.overwrite },
  );
  const sink = new TrafficRecorder({ writer, registry, clock, protocol: options.protocol, maxBodyBytes: options.maxBodyBytes, listener: options.listener });
  return { sink, out, clock };
}
