import type { Server as HttpServer } from 'node:http';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { UsageError, ExchangeErrorCode } from '../../core/errors.js';
import { parseListen, type ListenAddress } from '../../net/addresses.js';
import { FlowGate, forwardHeld } from './flow-gate.js';
import { InFlight } from '../../net/in-flight.js';
import { cutAfterGrace, GracefulShutdown, shutdownGraceOf } from '../../net/graceful-shutdown.js';
import { listenOn } from '../../net/listen-on.js';
import { socketConnectReason } from '../../net/unreachable-reason.js';
import type { RecordingClock } from '../../core/recording-clock.js';
import type { BodyTap, RecordingSink } from '../pipeline/recording-sink.js';
import type { RecordingTotals } from '../pipeline/recording-sink.js';
import { runningRecorder } from '../start-recorder.js';
import { removeRecordingFiles } from '../../store/recording-files.js';
import { openLineSink, type LineSinkOptions } from '../worker/stdio-recording-sink.js';

export interface NdjsonRecorderOptions extends Omit<LineSinkOptions, 'protocol'> {
  /** The daemon's socket: `unix:/path.sock`. */
  target: string;
  /** Where clients connect: `unix:/path.sock` (created 0600). TCP `[host:]port` works too. */
  listen: string;
  /** How long open connections get to finish at close() before they are cut (default 2000 ms). */
  shutdownGraceMs?: number;
}

export interface RunningNdjsonRecorder {
  readonly url: string;
  readonly out: string;
  readonly target: string;
  totals(): RecordingTotals;
  /** Stops accepting, ends open connections, flushes and closes the recording. */
  close(): Promise<RecordingTotals>;
}

/** `unix:/path` only: the daemon's NDJSON socket is a unix socket. */
export function parseUnixTarget(value: string, flag = '--target'): string {
  if (!value.startsWith('unix:') || value.length <= 5) throw new UsageError(`${flag} '${value}' is not unix:/path.sock (the NDJSON socket is a unix socket)`);
  return value.slice(5);
}

/**
 * `proxy record --ndjson`: relays the daemon's NDJSON unix socket. Each client connection gets its
 * own upstream connection and is one exchange (transport `ndjson`, judged by the unix-ndjson
 * module); every chunk is forwarded first, then framed into LF lines and recorded. A half-written
 * last line at disconnect is recorded as incomplete.
 */
export async function startNdjsonRecorder(options: NdjsonRecorderOptions): Promise<RunningNdjsonRecorder> {
  const socketPath = parseUnixTarget(options.target);
  const listen = parseListen(options.listen);
  const graceMs = shutdownGraceOf(options.shutdownGraceMs);
  const { sink, out, clock, ready } = await openLineSink(options, options.target, options.listen);
  await ready;
  const inFlight = new InFlight(graceMs);
  const server: Server = createServer((client) => relay(client, socketPath, sink, clock, inFlight));
  const shutdown = new GracefulShutdown(server, inFlight, listen);
  try {
    await listenOn(server as unknown as HttpServer, listen);
  } catch (error) {
    await sink.close(new Date()).catch(() => undefined);
    // A recording that never started would only block the retry.
    removeRecordingFiles(out);
    throw error;
  }
  return runningRecorder(urlOf(server, listen), out, options.target, sink, () => shutdown.close());
}

function relay(client: Socket, socketPath: string, sink: RecordingSink, clock: RecordingClock, inFlight: InFlight): void {
  const exchange = sink.openExchange({ transport: 'ndjson', url: `unix:${socketPath}` });
  exchange.classify({ transport: 'ndjson' });
  const upstream = createConnection({ path: socketPath });
  const clientTap = exchange.tap({ kind: 'lines', sender: 'client' });
  const serverTap = exchange.tap({ kind: 'lines', sender: 'server' });
  let connected = false;
  let failure: NodeJS.ErrnoException | undefined;
  let clientEnded = false;
  let upstreamEnded = false;
  // Which side ended first: a replay ends the connection itself where the daemon did.
  let firstEnded: 'client' | 'upstream' | 'proxy' | undefined;
  let shutdown = false;

  const closer = () => {
    // Let the poll phase read what already arrived first: a client that had just hung up ends its
    // exchange on its own (complete), instead of being counted as cut by the shutdown.
    setImmediate(() => {
      if (clientEnded) return;
      shutdown = true;
      firstEnded ??= 'proxy';
      client.end();
      upstream.end();
      cutAfterGrace(() => {
        client.destroy();
        upstream.destroy();
      }, inFlight.graceMs);
    });
  };
  const untrack = inFlight.add(closer);

  pipe(client, upstream, clientTap, () => {
    clientEnded = true;
    firstEnded ??= 'client';
  });
  pipe(upstream, client, serverTap, () => {
    upstreamEnded = true;
    firstEnded ??= 'upstream';
  });
  function pipe(from: Socket, to: Socket, tap: BodyTap, ended: () => void): void {
    const gate = new FlowGate<'peer' | 'recorder'>(() => from.pause(), () => from.resume());
    from.on('data', (chunk: Buffer) => {
      const at = clock.now();
      forwardHeld(to, chunk, gate);
      tap.push(chunk, at);
      if (sink.overloaded && gate.hold('recorder')) sink.onDrain(() => gate.release('recorder'));
    });
    from.on('end', () => {
      ended();
      if (!to.destroyed) to.end();
    });
  }
  upstream.on('connect', () => (connected = true));
  upstream.on('error', (error: NodeJS.ErrnoException) => {
    failure ??= error;
    client.destroy();
  });
  client.on('error', () => upstream.destroy());

  let closed = 0;
  const onClose = () => {
    if (++closed < 2) return;
    clientTap.end(true, clock.now());
    serverTap.end(true, clock.now());
    if (!connected && failure) {
      exchange.end({ outcome: 'error', errorCode: ExchangeErrorCode.E_UPSTREAM_UNREACHABLE, errorMessage: `could not connect to unix:${socketPath}: ${socketConnectReason(failure)}` });
    } else {
      const complete = (clientEnded && upstreamEnded) || shutdown;
      exchange.end({ outcome: complete ? 'complete' : 'aborted', ...endCause(failure, shutdown, firstEnded) });
    }
    untrack();
  };
  client.on('close', onClose);
  upstream.on('close', onClose);
}

/**
 * What ended the connection, for `error_code`: the daemon's end when it came first (what followed
 * it, a client line written into the ended connection or the proxy's shutdown ending the client's
 * side, is its consequence), else the proxy's shutdown, else the socket's failure.
 */
function endCause(failure: NodeJS.ErrnoException | undefined, shutdown: boolean, firstEnded: 'client' | 'upstream' | 'proxy' | undefined): { errorCode?: string; errorMessage?: string } {
  if (firstEnded === 'upstream') return { errorCode: ExchangeErrorCode.E_UPSTREAM_ENDED, errorMessage: 'the daemon ended the connection before the client ended its side' };
  if (shutdown) return { errorCode: ExchangeErrorCode.E_PROXY_SHUTDOWN, errorMessage: 'the proxy was stopped' };
  return failure ? { errorCode: failure.code, errorMessage: failure.message } : {};
}

function urlOf(server: Server, listen: ListenAddress): string {
  if (listen.kind === 'unix') return `unix:${listen.socketPath}`;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  return `tcp:${listen.host}:${port}`;
}
