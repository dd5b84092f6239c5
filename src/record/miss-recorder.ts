import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough, type Duplex } from 'node:stream';
import { parseTarget, type TargetAddress } from '../net/addresses.js';
import { keepAliveAgent, upstreamAgent, type CaptureContext } from './capture-context.js';
import type { ForwardOrigin } from '../net/forward-request.js';
import { FORWARD_TARGET } from './forward-target.js';
import { checkUpstreamTlsTarget, loadUpstreamTls, type UpstreamTlsOptions } from '../net/upstream-tls.js';
import { forwardHttp } from './relay/http-forwarder.js';
import { InFlight } from '../net/in-flight.js';
import { endInFlight, shutdownGraceOf } from '../net/graceful-shutdown.js';
import { RecordingClock } from '../core/recording-clock.js';
import { HeaderRedactor } from '../judge/header-redaction.js';
import { keepPatterns } from '../core/credential-scrubber.js';
import type { RecordingTotals } from '../store/store-types.js';
import { TrafficRecorder } from './pipeline/traffic-recorder.js';
import { relayUpgrade } from './relay/ws-relay.js';
import { TOOL_VERSION } from '../core/version.js';
import { SchemaRegistry } from '../schema/schema-registry.js';
import { RecordingWriter } from '../store/recording-writer.js';
import { StoreError } from '../store/store-errors.js';
import { isNdjsonRecording } from '../store/open-recording.js';
import type { RecordingRules } from '../judge/recording-rules.js';

/** How one request or upgrade is forwarded and recorded: to the target, or to a forward replay's origin. */
interface MissForwarder {
  readonly target: string;
  readonly out: string;
  readonly appended: boolean;
  forwardHttp(req: IncomingMessage, body: Buffer | { head: Buffer[] }, res: ServerResponse): void;
  forwardUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** The forwarder for the requests a forward replay's client addressed to `origin`, recorded with their absolute URL. */
  forOrigin(origin: ForwardOrigin): MissForwarder;
}

/** The misses recorder behind replay's `--on-miss passthrough` (start-miss-recorder.ts). */
export interface RunningMissRecorder extends MissForwarder {
  /** The upstream, as given to --target; `forward proxy` for a forward replay's, whose misses each go to their own origin. */
  readonly target: string;
  /** The recording the forwarded misses go to. */
  readonly out: string;
  /** True when they are appended to the served recording, false for a new file. */
  readonly appended: boolean;
  /**
   * Forwards a request whose body the replay has already read: all of it (a Buffer), or, for a body
   * too large to hold, the chunks read so far, the rest streaming on from `req`.
   */
  forwardHttp(req: IncomingMessage, body: Buffer | { head: Buffer[] }, res: ServerResponse): void;
  /** Relays a WebSocket upgrade to the upstream, recording the connection. */
  forwardUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Shutdown begins: forwarded streams and WebSockets are ended cleanly, plain answers may finish. */
  stop(): void;
  /** Waits for forwarded exchanges, then closes the recording the misses went to. */
  close(): Promise<RecordingTotals>;
}

/** Where and how forwarded misses are recorded, as `record` would record them. */
export interface MissRecorderOptions extends RecordingRules {
  /** The real upstream; absent for a forward replay's, whose misses each go to their own origin (`forOrigin`). */
  target?: string;
  /** The recording the forwarded misses go to. */
  out: string;
  /** Append to `out`, an existing recording (the one being served), instead of creating it. */
  append?: boolean;
  /** Replace an existing `out` file (only without `append`). */
  overwrite?: boolean;
  registry?: SchemaRegistry;
  /** For an https:// target: more CAs to trust, or no certificate check (as --ca, --insecure). */
  upstreamTls?: UpstreamTlsOptions;
  /** How long forwarded misses get to finish when the replay closes, before they are cut (default 2000 ms). */
  shutdownGraceMs?: number;
}

/**
 * VCR's "new episodes" for replay's `--on-miss passthrough`: a miss is forwarded to the real
 * upstream by the recorder's own forwarder and recorded, with verdicts. With `append` (what `proxy
 * replay` does by default) the exchanges are appended to the served recording itself, with ids
 * after its last ones and offsets counted from its `started_at`; the replay serves from its
 * in-memory script, so appended episodes are served from the next replay on. Without it they go to
 * a new file (`--misses-out`).
 */
export function openMissRecorder(options: MissRecorderOptions): RunningMissRecorder {
  const target = options.target === undefined ? undefined : parseTarget(options.target);
  if (target) checkUpstreamTlsTarget(target, options.upstreamTls);
  const tls = loadUpstreamTls(options.upstreamTls);
  const registry = options.registry ?? SchemaRegistry.load({ extraDirs: options.schemas });
  let writer: RecordingWriter;
  let clock: RecordingClock;
  if (options.append) {
    if (isNdjsonRecording(options.out)) {
      throw new StoreError('E_STORE_OPEN', options.out, `cannot append new episodes to ${options.out}: it is the NDJSON form of a recording, and episodes are appended to a .db; add --misses-out <file>, or import it into a .db first`);
    }
    try {
      writer = RecordingWriter.append(options.out, { keepSecrets: keepPatterns(options.keepSecretsMatching) });
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      const hint = '--misses-out <file> records the forwarded misses into a separate file instead';
      throw new StoreError(error.code, error.file, `cannot append new episodes: ${error.message}; ${hint}`, { cause: error });
    }
    // Offsets of appended exchanges count from the recording's start, like those already in it.
    clock = new RecordingClock(writer.startedAt.getTime());
  } else {
    clock = new RecordingClock();
    writer = RecordingWriter.open(
      options.out,
      { toolVersion: TOOL_VERSION, target: target?.display ?? FORWARD_TARGET, mode: 'record', schemaHashes: registry.hashes(), startedAt: clock.startedAt },
      { overwrite: options.overwrite, keepSecrets: keepPatterns(options.keepSecretsMatching) },
    );
  }
  // Inline, not the worker (record/open-recording-sink.ts): only the inline writer can append to the
  // recording being served, and misses are few.
  const recorder = new TrafficRecorder({
    writer,
    registry,
    clock,
    protocol: options.protocol,
    maxBodyBytes: options.maxBodyBytes,
    redact: { queryParams: options.redactQuery, fields: options.redactFields, keepSecrets: options.keepSecretsMatching },
  });
  const shutdownGraceMs = shutdownGraceOf(options.shutdownGraceMs);
  const inFlight = new InFlight(shutdownGraceMs);
  // A forward replay's misses go to many origins: one keep-alive agent per scheme, as record --forward has.
  const agents = target ? { target: upstreamAgent(target, tls) } : { http: keepAliveAgent(false, tls), https: keepAliveAgent(true, tls) };
  const redactor = new HeaderRedactor(options.redactHeaders, options.redactQuery);
  const track = (stop: () => void) => inFlight.add(stop);
  const captureFor = (to: TargetAddress, origin?: string): CaptureContext => {
    const agent = agents.target ?? (to.kind === 'tcp' && to.protocol === 'https:' ? agents.https : agents.http)!;
    return { target: to, recorder, redactor, agent, tls, track, shutdownGraceMs, ...(origin === undefined ? {} : { origin }) };
  };
  const origins = new Map<string, MissForwarder>();
  const forwarder = (capture: CaptureContext | undefined): MissForwarder => ({
    target: target?.display ?? FORWARD_TARGET,
    out: writer.file,
    appended: writer.appending,
    forwardHttp(req, body, res) {
      if (!capture) throw new Error('a forward replay forwards each miss through forOrigin');
      forwardHttp(bufferedRequest(req, body), res, capture);
    },
    forwardUpgrade(req, socket, head) {
      if (!capture) throw new Error('a forward replay forwards each miss through forOrigin');
      relayUpgrade(req, socket, head, capture);
    },
    forOrigin(origin) {
      let served = origins.get(origin.display);
      if (!served) origins.set(origin.display, (served = forwarder(captureFor(origin, origin.display))));
      return served;
    },
  });
  return {
    ...forwarder(target ? captureFor(target) : undefined),
    stop() {
      inFlight.stopAll();
    },
    async close() {
      await endInFlight(inFlight);
      for (const agent of Object.values(agents)) agent?.destroy();
      return recorder.close(new Date());
    },
  };
}

/**
 * The forwarder reads the request as a stream, but replay has already read it (or, for a body too
 * large to hold, its start) to match it: hand the forwarder a stream of the same body carrying the
 * same request line and headers. The rest of a large body streams on, at the upstream's pace.
 */
function bufferedRequest(req: IncomingMessage, body: Buffer | { head: Buffer[] }): IncomingMessage {
  const stream = new PassThrough();
  if (Buffer.isBuffer(body)) stream.end(body);
  else {
    for (const chunk of body.head) stream.write(chunk);
    req.pipe(stream);
    stream.on('close', () => req.unpipe(stream));
  }
  return Object.assign(stream, {
    method: req.method,
    url: req.url,
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    httpVersion: req.httpVersion,
    socket: req.socket,
  }) as unknown as IncomingMessage;
}
