import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { UpstreamTlsOptions } from '../net/upstream-tls.js';
import type { ForwardOrigin } from '../net/forward-request.js';
import type { RecordingRules } from '../judge/recording-rules.js';
import type { RecordingTotals } from '../store/store-types.js';

// `--on-miss passthrough` as replay sees it: a port it forwards misses through. The recording
// pipeline behind it is record/'s (record/start-miss-recorder.ts), and record and replay are tools
// side by side, neither importing the other: record matches these types by shape, and whoever
// composes the two (the public API in src/index.ts, the CLI, the fixture) hands it to startReplay.

/** Forwards misses to the real upstream and records them. */
export interface MissPassthrough {
  /** The upstream, as given to --target; a forward replay's has none (`forward proxy`), each miss going to its own origin. */
  readonly target: string;
  /** The recording the forwarded misses go to. */
  readonly out: string;
  /** True when they are appended to the served recording (the default), false for a separate `--misses-out` file. */
  readonly appended: boolean;
  /**
   * Forwards a request whose body the replay has already read: all of it (a Buffer), or, for a body
   * too large to hold, the chunks read so far, the rest streaming on from `req`.
   */
  forwardHttp(req: IncomingMessage, body: Buffer | { head: Buffer[] }, res: ServerResponse): void;
  /** Relays a WebSocket upgrade to the upstream, recording the connection. */
  forwardUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * A forward replay's: the same passthrough for the requests a client addressed to `origin`,
   * forwarded there and recorded with their absolute URL, as `record --forward` records them.
   */
  forOrigin(origin: ForwardOrigin): MissPassthrough;
}

/** A passthrough as its replay starts and ends it. */
export interface RunningPassthrough extends MissPassthrough {
  /** Shutdown begins: forwarded streams and WebSockets are ended cleanly, plain answers may finish. */
  stop(): void;
  /** Waits for forwarded exchanges, then closes the recording the misses went to. */
  close(): Promise<RecordingTotals>;
}

/** How a replay asks for its passthrough: how misses are recorded, as `record` would record them. */
export interface MissPassthroughOptions extends RecordingRules {
  /** The real upstream; absent for a forward replay's, whose misses each go to their own origin (`forOrigin`). */
  target?: string;
  /** The recording the forwarded misses go to. */
  out: string;
  /** Append to `out`, the recording being served, instead of creating it. */
  append: boolean;
  /** Replace an existing `out` file (only without `append`). */
  overwrite?: boolean;
  /** For an https:// target (or origin): more CAs to trust, or no certificate check (as --ca, --insecure). */
  upstreamTls?: UpstreamTlsOptions;
  /** How long forwarded misses get to finish when the replay closes, before they are cut. */
  shutdownGraceMs: number;
}

/**
 * Starts a passthrough. Asynchronous so that its implementation can be loaded on first use: a
 * replay that passes nothing through never loads the recorder.
 */
export type StartMissPassthrough = (options: MissPassthroughOptions) => Promise<RunningPassthrough>;
