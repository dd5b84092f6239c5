import { resolve } from 'node:path';
import { parseListen } from '../net/addresses.js';
import type { RecordingTotals } from '../store/store-types.js';
import { SYSTEM_CLOCK, type Clock } from './clock.js';
import { CorrelationMemory } from '../match/correlation.js';
import { parseIgnoreOption } from '../core/field-specs.js';
import { UsageError } from '../core/errors.js';
import type { RunningPassthrough, StartMissPassthrough } from './miss-passthrough.js';
import { ReplayLedger, SILENT_LOG, type MissPolicy, type ReplayLog, type ReplayMiss } from './replay-context.js';
import { loadReplayScript, type ScriptExchange } from './replay-script.js';
import { loadFrameCodecs } from './match/frame-substitution.js';
import { startReplayServer } from './replay-server.js';
import { checkServable, REPLAY_HINTS, type ServeHints } from './servable.js';
import { missAnswersSummary } from './miss-answers-summary.js';
import { checkMissOptions } from './miss-options.js';
import { removeRecordingFiles, setAside } from '../store/recording-files.js';
import { refuseExistingRecording } from '../store/refuse-existing.js';
import { maxRequestBytesOf } from './http/request-limits.js';
import { parseTiming, type Timing } from './timing.js';
import type { UpstreamTlsOptions } from '../net/upstream-tls.js';
import { loadListenTls, type ListenTlsOptions } from '../net/listen-tls.js';
import { FaultPlan, type FaultTally } from './fault/fault-plan.js';
import { parseFault, type FaultSpec } from './fault/fault-spec.js';
import type { RecordingRules } from '../judge/recording-rules.js';
import { isRecordedPreflight } from './http/cors.js';
import { isSessionResumption } from './http/recorded-sessions.js';
import type { ListenAddress } from '../net/addresses.js';
import { originOfUrl } from './forward/recorded-origins.js';
import type { ReplayContext } from './replay-context.js';
import { ProxyAuth } from '../net/proxy-auth.js';
import { shutdownGraceOf } from '../net/graceful-shutdown.js';

export interface ReplayOptions {
  /** The recording to serve. */
  recording: string;
  /** `recorded` (default), `none`, or a speed such as `2x`; or an already parsed Timing. */
  timing?: string | Timing;
  /** `[host:]port`, a port number (0 picks a free one), or `unix:/path`. Default 127.0.0.1:8788. */
  listen?: string | number;
  /**
   * `error` (default): 404 / close 1008. `passthrough`: forward to `target` and append the exchange to
   * the served recording ("new episodes", served from the next replay on), or record it into `missesOut`.
   */
  onMiss?: MissPolicy;
  /** The real upstream, for `onMiss: 'passthrough'`: `http[s]://host[:port][/base]` or `unix:/path.sock`. */
  target?: string;
  /** For an https:// `target`: more CAs to trust, or no certificate check (as --ca, --insecure). */
  upstreamTls?: UpstreamTlsOptions;
  /** Serve HTTPS and WSS with this certificate and key (as --tls-cert, --tls-key). */
  listenTls?: ListenTlsOptions;
  /** Record passthrough misses into this new file instead of appending them to the served recording. */
  missesOut?: string;
  /** Replace an existing `missesOut` file. */
  overwriteMisses?: boolean;
  /**
   * How forwarded misses are recorded, as `record` would record them: more headers, query
   * parameters and JSON fields never stored, `maxBodyBytes`, `schemas`, a forced `protocol`.
   */
  missRecording?: RecordingRules;
  /** Serve a request's last recorded answer again once its answers are used up. */
  reuse?: boolean;
  /** More fields to ignore when matching: JSON pointers (`/messages/0/id`, `*` for any key) or key names. */
  ignore?: string[];
  /**
   * Longest request body or client WebSocket frame held to match it, in bytes (default 10 MiB, the
   * same as `record`'s `maxBodyBytes`, so nothing longer could match a recording made with the
   * default). A longer body gets 413 (or, with passthrough, is streamed to the upstream); a longer
   * frame closes the connection with 1009.
   */
  maxRequestBytes?: number;
  /** Makes `close()` report `ok: false` when anything missed or a recorded exchange went unused. */
  strict?: boolean;
  /** Told about every served exchange and every miss. */
  log?: ReplayLog;
  /** What the pacing runs on (default: the system clock); tests pass a clock they advance by hand. */
  clock?: Clock;
  /**
   * Faults to inject, as `--fault` specs (`status=503,nth=3`, `cut=reset,after=5`, `close=1011,after=2`,
   * `latency=500ms` …) or already parsed; see docs/cli.md "Faults". Each answer a fault changes is
   * reported with `ServedExchange.faults`, and `ReplaySummary.faults` says how often each was injected.
   * A spec that does not parse throws a UsageError (`parseFault` checks one beforehand).
   *
   * @example
   * // The third POST /agent gets a 503 (its retry gets the recorded answer); every stream breaks off after 4 events.
   * const replay = await startReplay({ recording: 'run.db', faults: ['status=503,nth=3,path=/agent', 'cut=reset,after=4'] });
   */
  faults?: readonly (string | FaultSpec)[];
  /**
   * For pages on another origin (default true, as `--cors on`): a browser's preflight is answered
   * (by a recorded one for the route, else allowing the origin, method and headers it asks for)
   * and never misses nor counts as unused, and an answer to a request with an `Origin` allows
   * that origin. False (`--cors off`) serves only what was recorded.
   */
  cors?: boolean;
  /**
   * Listen as a forward proxy (as `replay --forward`), the way `record --forward` made the recording:
   * each request is answered from the exchanges recorded for its origin (scheme, host and port), a
   * host the recording does not hold gets a 502, or with `onMiss: 'passthrough'` (and no `target`) is
   * forwarded to that host and recorded, as a miss on a recorded host is. Not with `listenTls`.
   */
  forward?: boolean;
  /** With `forward`: the local CA's folder (as --ca-dir), whose leaves answer TLS inside a CONNECT (to a recorded https:// host, or any with passthrough). */
  caDir?: string;
  /** With `forward`: `user:password`, the Basic credentials clients must send in Proxy-Authorization (as --proxy-auth); others get a 407. */
  proxyAuth?: string;
  /**
   * Once close() begins, how long open streams and connections (and forwarded misses) get to finish
   * before they are cut, in milliseconds (as --shutdown-grace; default 2000). A test suite whose
   * clients hold connections open sets it short, so each close does not wait that long.
   */
  shutdownGraceMs?: number;
}

export interface ReplaySummary {
  misses: ReplayMiss[];
  unused: ScriptExchange[];
  /** How many recorded exchanges the replay could serve: `unused` out of these went unasked for. */
  recorded: number;
  /** Whether the replay was started with `strict` (strictFailure says so). */
  strict: boolean;
  /** False when `strict` was asked for and something missed or went unused. */
  ok: boolean;
  /** Every `faults` spec, in the order given, with how many answers it changed (0: it matched nothing). */
  faults: FaultTally[];
  /** Where forwarded misses were recorded (with passthrough); `appended`: into the served recording itself. */
  missesOut?: { file: string; appended: boolean; totals: RecordingTotals };
}

export interface RunningReplay {
  /** `http://127.0.0.1:PORT` or `unix:/path`. */
  readonly url: string;
  /** `ws://127.0.0.1:PORT`, or `ws+unix:///path:` for a unix socket. */
  readonly wsUrl: string;
  /** The recording being served (absolute path). */
  readonly recording: string;
  /** Where passthrough misses are recorded, if passthrough is on: the served recording unless `missesOut` was given. */
  readonly missesOut: string | undefined;
  /** What this replay leaves out or does differently than asked (an empty recording, stdio exchanges it cannot serve), to be shown. */
  readonly warnings: string[];
  /** What a request that matches nothing gets, for the protocols the recording holds, as one phrase (the start line's). */
  readonly missAnswers: string;
  /** Requests and frames that matched nothing, so far. */
  misses(): ReplayMiss[];
  /** Recorded exchanges not served yet. */
  unused(): ScriptExchange[];
  /** Stops serving (open streams end), closes the misses recording, and sums up. */
  close(): Promise<ReplaySummary>;
}

/**
 * Starts `proxy replay` in-process: a recording served as a deterministic mock server. With
 * `onMiss: 'passthrough'`, misses go through `passMisses`, which whoever composes replay with
 * record hands in (record's startMissRecorder; the package's startReplay in src/index.ts does).
 */
export async function startReplay(options: ReplayOptions, passMisses?: StartMissPassthrough): Promise<RunningReplay> {
  return startReplayFor(options, REPLAY_HINTS, passMisses);
}

/** startReplay for what serves through it (the fixture), whose refusals name its own flags. */
export async function startReplayFor(options: ReplayOptions, hints: ServeHints, passMisses?: StartMissPassthrough): Promise<RunningReplay> {
  const timing = typeof options.timing === 'object' ? options.timing : parseTiming(options.timing);
  const onMiss = options.onMiss ?? 'error';
  checkMissOptions(onMiss, { ...options, forward: Boolean(options.forward) });
  if (onMiss === 'passthrough' && !passMisses) throw new UsageError("onMiss 'passthrough' needs a passthrough to forward misses through: use the package's startReplay, which forwards and records them");
  if (options.forward && options.listenTls) throw new UsageError('replay --forward listens as a plain HTTP proxy: TLS is spoken inside each CONNECT with the local CA (--ca-dir), not with --tls-cert');
  if (options.caDir !== undefined && !options.forward) throw new UsageError('--ca-dir is for replay --forward: add --forward, or drop it');
  if (options.proxyAuth !== undefined && !options.forward) throw new UsageError('--proxy-auth is for replay --forward: add --forward, or drop it');
  // Checked before anything is opened: a malformed one leaves nothing behind.
  const proxyAuth = options.proxyAuth === undefined ? undefined : new ProxyAuth(options.proxyAuth);
  const ignore = parseIgnoreOption(options.ignore ?? []);
  const maxRequestBytes = maxRequestBytesOf(options.maxRequestBytes);
  const listen = parseListen(options.listen);
  const shutdownGraceMs = shutdownGraceOf(options.shutdownGraceMs);
  const listenTls = options.listenTls ? loadListenTls(options.listenTls) : undefined;
  const script = await loadReplayScript(options.recording);
  const passedTo = onMiss !== 'passthrough' ? undefined : options.forward ? 'the origin it names' : options.target;
  const warnings = checkServable(script, options.recording, passedTo, hints);
  if (options.forward && script.exchanges.length > 0 && !script.exchanges.some((e) => originOfUrl(e.url) !== undefined)) {
    const answer = onMiss === 'passthrough' ? 'passes every request through to its origin' : 'answers every request with 502';
    warnings.push(`${script.file} holds no exchange recorded by record --forward (none has its host): replay --forward ${answer}`);
  }
  const cors = options.cors ?? true;
  // Never counted unused: preflights (a browser's cache decides), and a session's resumptions (a cut decides).
  const ledger = new ReplayLedger(script, (exchange) => (cors && isRecordedPreflight(exchange)) || isSessionResumption(exchange));
  const faults = new FaultPlan((options.faults ?? []).map((fault) => (typeof fault === 'string' ? parseFault(fault) : fault)));
  // New episodes land in the served recording unless --misses-out names another file. The script is
  // already in memory, so this replay never serves what it appends; the next one does.
  const missesOut = options.missesOut === undefined ? script.file : resolve(options.missesOut);
  const append = missesOut === script.file;
  // A new misses file is written live like `record`'s: a start that fails removes it, and one it
  // replaces (--overwrite) is only moved aside until the replay listens.
  if (onMiss === 'passthrough' && !append && !options.overwriteMisses) refuseExistingRecording(missesOut);
  const previous = onMiss === 'passthrough' && !append && options.overwriteMisses ? setAside(missesOut) : undefined;
  // Only what this replay serves is loaded: the recorder behind passthrough (loaded by passMisses
  // when called) and the protobuf encoder are large.
  await loadFrameCodecs(script);
  let passthrough: RunningPassthrough | undefined;
  try {
    passthrough = onMiss === 'passthrough' ? await passMisses!({ ...options.missRecording, target: options.target, out: missesOut, append, overwrite: options.overwriteMisses, upstreamTls: options.upstreamTls, shutdownGraceMs }) : undefined;
  } catch (error) {
    previous?.restore();
    throw error;
  }
  let server;
  try {
    const context = { script, timing, clock: options.clock ?? SYSTEM_CLOCK, onMiss, passthrough, reuse: Boolean(options.reuse), ignore, maxRequestBytes, cors, ledger, faults, correlations: new CorrelationMemory(), log: options.log ?? SILENT_LOG, shutdownGraceMs };
    server = options.forward ? await startForwardReplay(listen, context, options.caDir, proxyAuth) : await startReplayServer(listen, context, listenTls);
  } catch (error) {
    await passthrough?.close().catch(() => undefined);
    if (passthrough && !passthrough.appended) removeRecordingFiles(passthrough.out);
    previous?.restore();
    throw error;
  }
  previous?.drop();
  let closed: Promise<ReplaySummary> | undefined;
  return {
    url: server.url,
    wsUrl: server.wsUrl,
    recording: script.file,
    warnings,
    missAnswers: missAnswersSummary(script),
    missesOut: passthrough?.out,
    misses: () => ledger.misses(),
    unused: () => ledger.unused(),
    close() {
      // Forwarded misses are the replay server's open exchanges too: they end (or finish) with it.
      passthrough?.stop();
      closed ??= server.close().then(async () => {
        const totals = await passthrough?.close();
        const misses = ledger.misses();
        const unused = ledger.unused();
        return {
          misses,
          unused,
          recorded: ledger.servable(),
          faults: faults.tally(),
          strict: options.strict === true,
          ok: !options.strict || (misses.length === 0 && unused.length === 0),
          ...(passthrough && totals ? { missesOut: { file: passthrough.out, appended: passthrough.appended, totals } } : {}),
        };
      });
      return closed;
    },
  };
}

/** The forward replay's server, loaded (with the local CA) only for a replay that listens as a forward proxy. */
async function startForwardReplay(listen: ListenAddress, context: Omit<ReplayContext, 'track'>, caDir: string | undefined, auth: ProxyAuth | undefined) {
  const [{ startForwardReplayServer }, { LeafIssuer }, { openLocalCa }] = await Promise.all([import('./forward/forward-replay-server.js'), import('../net/ca/leaf-issuer.js'), import('../net/ca/local-ca.js')]);
  const leaves = caDir === undefined ? undefined : new LeafIssuer(await openLocalCa({ dir: caDir }));
  return startForwardReplayServer(listen, context, leaves, auth);
}
