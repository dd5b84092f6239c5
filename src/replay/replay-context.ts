import type { CorrelationMemory } from '../match/correlation.js';
import type { BodyEcho } from './http/request-limits.js';
import type { ReplayScript, ScriptExchange } from './replay-script.js';
import type { Clock } from './clock.js';
import type { Timing } from './timing.js';
import { endedBy } from '../core/exchange-ending.js';
import type { FaultPlan } from './fault/fault-plan.js';
import type { MissPassthrough } from './miss-passthrough.js';

/** What happens to a request or frame that matches nothing: an error answer, or forwarding to `--target`. */
export type MissPolicy = 'error' | 'passthrough';

/** One request, upgrade or WebSocket frame that matched no recorded one. */
export interface ReplayMiss {
  transport: 'http' | 'ws';
  /**
   * `no-match`: nothing recorded is like it. `exhausted`: it matched, but every recorded answer was
   * used (no --reuse). `too-large`: its body or frame was longer than `--max-request-body`, so it was
   * not read to the end nor compared.
   */
  reason: 'no-match' | 'exhausted' | 'too-large';
  /**
   * What came in. `body` is the parsed JSON, or the text, of a request body or frame, at most 4 KiB
   * of it (`bodyTruncated`); `bodyBytes` is its whole size.
   */
  request: { method: string; path: string; query: string } & BodyEcho;
  /** With `too-large`: the limit it went past, in bytes. */
  limit?: number;
  /** The recorded exchange most like it. */
  nearest?: { exchangeId: number; method: string | null; path: string | null };
  /** What differs from `nearest`: `method`, `path`, `query`, `body`, `subprotocol`, or JSON pointers into the body. */
  differences: string[];
  /** What the replay did about it. */
  action: MissPolicy;
  /** The `--fault` specs that selected this request (of them, only latency acts on a miss's answer); absent when none did. */
  faults?: string[];
}

/** One recorded exchange served to a client, or a `status` fault answered in its place. */
export interface ServedExchange {
  /**
   * The recorded exchange served. For a `status` fault (`faultStatus`): the exchange the request
   * would have got, which stays unused for the next request; null when it would have missed.
   */
  exchangeId: number | null;
  transport: ScriptExchange['transport'];
  method: string;
  path: string;
  status: number | undefined;
  /** Messages sent to the client. */
  messages: number;
  /** Correlation pairs substituted (live ids in place of recorded ones). */
  substitutions: number;
  /**
   * Live values that matched a value the recording redacted (a secret query parameter, JSON field or
   * Pi session env value), which matches any value.
   */
  redacted: number;
  /** True when this answer had been served before (--reuse). */
  reused: boolean;
  /**
   * Set when the recorded exchange was cut short by its client (`client`) or by the recorder's
   * shutdown (`shutdown`), not ended by the agent: what is served stops where the recording does.
   */
  recordingCutBy?: 'client' | 'shutdown';
  /** The `--fault` specs that changed this answer, as given; absent when none did. */
  faults?: string[];
  /** Set when a `status` fault answered instead of the recording: that status was sent, with a JSON error body. */
  faultStatus?: number;
}

/** `recordingCutBy` of a recorded exchange, as a spreadable field (absent when the agent ended it). */
export function recordingCut(errorCode: string | null): Pick<ServedExchange, 'recordingCutBy'> {
  const by = endedBy(errorCode);
  return by === 'client' || by === 'shutdown' ? { recordingCutBy: by } : {};
}

/** Where the replay reports what it does; the CLI prints it, tests may collect it. */
export interface ReplayLog {
  served(event: ServedExchange): void;
  miss(miss: ReplayMiss): void;
}

export const SILENT_LOG: ReplayLog = { served() {}, miss() {} };

/** Transports a replay can serve; other exchanges (stdio, ndjson) never count as unused. */
const SERVABLE = new Set<ScriptExchange['transport']>(['http', 'sse', 'proto', 'ws']);

/** Which recorded exchanges were used and which requests missed: what --strict judges at the end. */
export class ReplayLedger {
  private readonly used = new Set<number>();
  private readonly missed: ReplayMiss[] = [];

  /**
   * `unasked` picks the recorded exchanges a client may rightly never ask for again: a browser's
   * preflights, which it sends or not as its preflight cache says, and an HTTP session's resumptions
   * of a cut stream. They never count as unused.
   */
  constructor(
    private readonly script: ReplayScript,
    private readonly unasked: (exchange: ScriptExchange) => boolean = () => false,
  ) {}

  markUsed(exchangeId: number): void {
    this.used.add(exchangeId);
  }

  wasUsed(exchangeId: number): boolean {
    return this.used.has(exchangeId);
  }

  recordMiss(miss: ReplayMiss): void {
    this.missed.push(miss);
  }

  misses(): ReplayMiss[] {
    return [...this.missed];
  }

  /** How many recorded exchanges a replay can serve (the most that can go unused). */
  servable(): number {
    return this.script.exchanges.filter((e) => SERVABLE.has(e.transport) && !this.unasked(e)).length;
  }

  /** Recorded exchanges no client has been served yet. */
  unused(): ScriptExchange[] {
    return this.script.exchanges.filter((e) => SERVABLE.has(e.transport) && !this.used.has(e.id) && !this.unasked(e));
  }
}

/**
 * Everything a request handler of the replay server needs: shared by the HTTP responder and the
 * WebSocket player, one per running replay.
 */
export interface ReplayContext {
  script: ReplayScript;
  timing: Timing;
  /** What the pacing runs on: the system clock, or a test's. */
  clock: Clock;
  onMiss: MissPolicy;
  /** Present exactly when onMiss is 'passthrough': where misses are forwarded and recorded. */
  passthrough?: MissPassthrough;
  /** Serve a key's last recorded answer again once its answers are used up. */
  reuse: boolean;
  /** `--ignore` field specs (JSON pointers or key names), on top of each protocol's volatile fields. */
  ignore: readonly string[];
  /** Longest request body or client frame held to match it (`--max-request-body`). */
  maxRequestBytes: number;
  /**
   * `--cors on`: preflights are answered (a recorded one for the route, else the replay's own) and
   * never miss, and every answer to a request with an Origin allows that origin (http/cors.ts).
   */
  cors: boolean;
  ledger: ReplayLedger;
  /** The `--fault` specs: ask it with `choose()` which faults an answer gets, once per request or upgrade. */
  faults: FaultPlan;
  /** Correlation pairs learnt so far: build each exchange's Substitution with `substitutionFor`. */
  correlations: CorrelationMemory;
  log: ReplayLog;
  /**
   * A forward replay's: the origin (`http://host:port`) whose exchanges this context serves, which
   * the path of each miss it reports starts with, since a forward recording has many hosts.
   */
  origin?: string;
  /**
   * Registers a live stream or connection; `closer` ends it when the replay shuts down. Returns the
   * function to call once it has ended on its own.
   */
  track(closer: () => void): () => void;
  /** How long open streams and connections get to finish at shutdown before they are cut (`shutdownGraceMs`). */
  shutdownGraceMs: number;
}

/** Reports a miss: the ledger keeps it (for --strict and `misses()`), the log prints it. */
export function reportMiss(context: ReplayContext, miss: ReplayMiss): void {
  const reported = context.origin === undefined ? miss : { ...miss, request: { ...miss.request, path: context.origin + miss.request.path } };
  context.ledger.recordMiss(reported);
  context.log.miss(reported);
}
