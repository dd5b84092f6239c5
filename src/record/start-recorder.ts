import { resolve } from 'node:path';
import { checkProtocolOption } from '../judge/protocol-option.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import { removeRecordingFiles, setAside } from '../store/recording-files.js';
import { refuseExistingRecording } from '../store/refuse-existing.js';
import { parseListen, parseTarget } from '../net/addresses.js';
import type { UpstreamTlsOptions } from '../net/upstream-tls.js';
import type { ListenTlsOptions } from '../net/listen-tls.js';
import { loadProxyTls } from '../net/proxy-tls.js';
import type { LiveListener, StoppedListener } from './live-events.js';
import type { ProxyServer } from './relay/proxy-server.js';
import { RecordingClock } from '../core/recording-clock.js';
import { defaultRecordingPath } from './recording-path.js';
import type { RecordingSink, RecordingTotals } from './pipeline/recording-sink.js';
import { openRecordingSink, type RecordingPipeline } from './open-recording-sink.js';
import type { RecordingRules } from '../judge/recording-rules.js';
import { lockForWriting } from '../store/writer-lock.js';
import { shutdownGraceOf } from '../net/graceful-shutdown.js';

/** The recording rules (`protocol`, the redactions, `maxBodyBytes`, `schemas`) are `RecordingRules`, shared with the fixture. */
export interface RecorderOptions extends RecordingRules {
  /** `http[s]://host[:port][/base]` or `unix:/path.sock`. */
  target: string;
  /** For an https:// target: more CAs to trust, or no certificate check at all (as --ca, --insecure). */
  upstreamTls?: UpstreamTlsOptions;
  /** Serve HTTPS and WSS to clients with this certificate and key (as --tls-cert, --tls-key). */
  listenTls?: ListenTlsOptions;
  /** The recording file; default `recordings/<UTC timestamp>.db`. */
  out?: string;
  /** `[host:]port`, a port number (0 picks a free one), or `unix:/path`. Default 127.0.0.1:8788. */
  listen?: string | number;
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
  pipeline?: RecordingPipeline;
  /**
   * Once close() begins, how long open exchanges and connections get to finish before they are cut,
   * in milliseconds (as --shutdown-grace; default 2000). A test suite whose clients hold
   * connections open sets it short, so each close does not wait that long.
   */
  shutdownGraceMs?: number;
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

/**
 * The handle of a started recorder (HTTP proxy or NDJSON relay): `stopServing` ends the traffic, then
 * the recording is flushed and closed. Later calls of close() get the same promise.
 */
export function runningRecorder(url: string, out: string, target: string, sink: RecordingSink, stopServing: () => Promise<void>): RunningRecorder {
  let closed: Promise<RecordingTotals> | undefined;
  return {
    url,
    out,
    target,
    totals: () => sink.totals(),
    close() {
      closed ??= stopServing().then(() => sink.close(new Date()));
      return closed;
    },
  };
}

/** Starts `proxy record` in-process: for tests, scripts and the CLI. */
export async function startRecorder(options: RecorderOptions): Promise<RunningRecorder> {
  checkProtocolOption(options.protocol, 'startRecorder protocol');
  const target = parseTarget(options.target);
  const listen = parseListen(options.listen);
  const shutdownGraceMs = shutdownGraceOf(options.shutdownGraceMs);
  // Read before the recording file is made: a bad certificate file leaves nothing behind.
  const { upstreamTls, listenTls } = loadProxyTls(target, options.upstreamTls, options.listenTls);
  // The proxy's modules load while the recording worker starts on its own thread (the worker is
  // launched synchronously below, the import runs after): the main thread would otherwise sit idle
  // until the worker is ready, then load them. The proxy still listens only once the recording is open.
  const proxyServer = import('./relay/proxy-server.js');
  // A start that fails before serving never awaits it: its failure must not become an unhandled rejection.
  proxyServer.catch(() => undefined);
  return startRecordingServer(options, target.display, async (sink) => {
    const { startProxyServer } = await proxyServer;
    return startProxyServer({ listen, target, recorder: sink, redactHeaders: options.redactHeaders, redactQuery: options.redactQuery, upstreamTls, listenTls, shutdownGraceMs });
  });
}

/** What a recording's proxy (reverse or forward) is started with, once the recording is open. */
export type ServeRecording = (sink: RecordingSink) => Promise<ProxyServer>;

/**
 * Opens the recording (locked, never over an existing file unless told), starts the proxy `serve`
 * makes on it, and hands out the running recorder; a start that fails leaves no file behind.
 * `target` is what the recording says it forwarded to.
 */
export async function startRecordingServer(options: Omit<RecorderOptions, 'target'>, target: string, serve: ServeRecording): Promise<RunningRecorder> {
  const clock = new RecordingClock();
  const out = resolve(options.out ?? defaultRecordingPath(clock.startedAt));
  // A recording is written live for as long as the proxy runs, and a kill -9 must leave a readable
  // file with what was committed, so it cannot be written under a temporary name and renamed at the
  // end. Instead a start that fails removes the file it made, and a file it replaces is only moved
  // aside until the start has succeeded.
  const lock = lockForWriting(out);
  try {
    const recorder = await startRecording(options, out, clock, target, serve);
    const close = recorder.close.bind(recorder);
    return { ...recorder, close: () => close().finally(() => lock.release()) };
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startRecording(options: Omit<RecorderOptions, 'target'>, out: string, clock: RecordingClock, target: string, serve: ServeRecording): Promise<RunningRecorder> {
  if (!options.overwrite) refuseExistingRecording(out);
  const previous = options.overwrite ? setAside(out) : undefined;
  let sink: RecordingSink;
  try {
    ({ sink } = await openRecordingSink({
      out,
      target,
      clock,
      pipeline: options.pipeline,
      protocol: options.protocol,
      maxBodyBytes: options.maxBodyBytes,
      schemas: options.schemas,
      registry: options.registry,
      redact: { queryParams: options.redactQuery, fields: options.redactFields, keepSecrets: options.keepSecretsMatching },
      listener: options.listener,
      onStopped: options.onStopped,
      overwrite: options.overwrite,
    }));
  } catch (error) {
    previous?.restore();
    throw error;
  }
  let server;
  try {
    server = await serve(sink);
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
  return runningRecorder(server.url, out, target, sink, () => server.close());
}
