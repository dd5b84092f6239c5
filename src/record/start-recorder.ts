import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOL_VERSION } from '../core/version.js';
import type { ProtocolId } from '../protocols/protocol.js';
import { SchemaRegistry } from '../schema/schema-registry.js';
import { RecordingWriter } from '../store/recording-writer.js';
import { removeRecordingFiles, setAside } from '../store/recording-files.js';
import { refuseExistingRecording } from '../store/refuse-existing.js';
import { parseListen, parseTarget } from '../net/addresses.js';
import { reportStopped, writeFailed, type LiveListener, type StoppedListener } from './live-events.js';
import { startProxyServer } from './relay/proxy-server.js';
import { RecordingClock } from '../core/recording-clock.js';
import { defaultRecordingPath } from './recording-path.js';
import type { RecordingSink, RecordingTotals } from './pipeline/recording-sink.js';
import { TrafficRecorder, type StorageRedactionOptions } from './pipeline/traffic-recorder.js';
import { WorkerRecordingSink } from './worker/worker-recording-sink.js';

/** The compiled worker; absent when this module runs from TypeScript sources (vitest). */
const WORKER_URL = new URL('./worker/recording-worker.js', import.meta.url);

export interface RecorderOptions {
  /** `http://host:port[/base]` or `unix:/path.sock`. */
  target: string;
  /** The recording file; default `recordings/<UTC timestamp>.db`. */
  out?: string;
  /** `[host:]port`, a port number (0 picks a free one), or `unix:/path`. Default 127.0.0.1:8788. */
  listen?: string | number;
  protocol?: ProtocolId;
  redactHeaders?: string[];
  /** More query parameters whose values are never stored (besides DEFAULT_REDACTED_QUERY_PARAMS). */
  redactQuery?: string[];
  /** More JSON fields whose values are never stored: key names or JSON pointers (besides DEFAULT_REDACTED_FIELDS). */
  redactFields?: string[];
  maxBodyBytes?: number;
  /** Extra schema directories (as --schemas); AGENT_PROXY_SCHEMAS is read as well. */
  schemas?: string[];
  registry?: SchemaRegistry;
  listener?: LiveListener;
  /**
   * Told at once when recording stops while traffic is still forwarded (a write failed, the worker
   * ended); without it, that is said on stderr.
   */
  onStopped?: StoppedListener;
  /** Replace an existing output file (once the proxy has started: if it fails to, the old file stays). */
  overwrite?: boolean;
  /**
   * Runs once the proxy listens and the recording is open, before `startRecorder` resolves (the
   * CLI starts `--ui` here). If it throws, the start fails as a whole: no recording is left behind.
   */
  starting?: (out: string) => Promise<void>;
  /**
   * 'worker' (the default where the compiled worker exists): framing, judging and SQLite run in a
   * worker thread, so forwarding never waits on them. 'inline': all in this thread.
   */
  pipeline?: 'worker' | 'inline';
}

export type { RecordingTotals } from './pipeline/recording-sink.js';

export interface RunningRecorder {
  /** Where clients should connect: `http://127.0.0.1:PORT` or `unix:/path`. */
  readonly url: string;
  readonly out: string;
  readonly target: string;
  totals(): RecordingTotals;
  /** Stops accepting, closes open streams cleanly, flushes and closes the recording. */
  close(): Promise<RecordingTotals>;
}

export { defaultRecordingPath } from './recording-path.js';

/** Starts `proxy record` in-process: for tests, scripts and the CLI. */
export async function startRecorder(options: RecorderOptions): Promise<RunningRecorder> {
  const target = parseTarget(options.target);
  const listen = parseListen(options.listen);
  const clock = new RecordingClock();
  const out = resolve(options.out ?? defaultRecordingPath(clock.startedAt));
  const pipeline = options.pipeline ?? (existsSync(fileURLToPath(WORKER_URL)) ? 'worker' : 'inline');
  // A recording is written live for as long as the proxy runs, and a kill -9 must leave a readable
  // file with what was committed, so it cannot be written under a temporary name and renamed at the
  // end. Instead a start that fails removes the file it made, and a file it replaces is only moved
  // aside until the start has succeeded.
  if (!options.overwrite) refuseExistingRecording(out);
  const previous = options.overwrite ? setAside(out) : undefined;
  let sink: RecordingSink;
  try {
    sink = await openSink(options, pipeline, target.display, out, clock);
  } catch (error) {
    previous?.restore();
    throw error;
  }
  let server;
  try {
    server = await startProxyServer({ listen, target, recorder: sink, redactHeaders: options.redactHeaders, redactQuery: options.redactQuery });
  } catch (error) {
    await sink.close(new Date()).catch(() => undefined);
    removeRecordingFiles(out);
    previous?.restore();
    throw error;
  }
  try {
    await options.starting?.(out);
  } catch (error) {
    await server.close().catch(() => undefined);
    await sink.close(new Date()).catch(() => undefined);
    removeRecordingFiles(out);
    previous?.restore();
    throw error;
  }
  previous?.drop();
  let closed: Promise<RecordingTotals> | undefined;
  return {
    url: server.url,
    out,
    target: target.display,
    totals: () => sink.totals(),
    close() {
      closed ??= server.close().then(() => sink.close(new Date()));
      return closed;
    },
  };
}

async function openSink(options: RecorderOptions, pipeline: 'worker' | 'inline', target: string, out: string, clock: RecordingClock): Promise<RecordingSink> {
  return pipeline === 'worker'
    ? WorkerRecordingSink.start(
        WORKER_URL,
        {
          out,
          meta: { toolVersion: TOOL_VERSION, target, mode: 'record', startedAt: clock.startedAt.toISOString() },
          overwrite: options.overwrite,
          protocol: options.protocol,
          maxBodyBytes: options.maxBodyBytes,
          schemas: options.schemas,
          redact: redactionOf(options),
          clockOrigin: clock.origin,
          live: options.listener !== undefined,
        },
        clock,
        { listener: options.listener, onStopped: options.onStopped },
      )
    : inlineSink(options, target, out, clock);
}

function inlineSink(options: RecorderOptions, target: string, out: string, clock: RecordingClock): TrafficRecorder {
  const registry = options.registry ?? SchemaRegistry.load({ extraDirs: options.schemas });
  const writer = RecordingWriter.open(
    out,
    { toolVersion: TOOL_VERSION, target, mode: 'record', schemaHashes: registry.hashes(), startedAt: clock.startedAt },
    { overwrite: options.overwrite, onError: (error) => reportStopped(writeFailed(error, clock.now()), options.onStopped) },
  );
  return new TrafficRecorder({
    writer,
    registry,
    clock,
    protocol: options.protocol,
    maxBodyBytes: options.maxBodyBytes,
    redact: redactionOf(options),
    listener: options.listener,
  });
}

function redactionOf(options: Pick<RecorderOptions, 'redactQuery' | 'redactFields'>): StorageRedactionOptions {
  return { queryParams: options.redactQuery, fields: options.redactFields };
}
