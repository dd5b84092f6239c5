import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { lazyCrypto } from '../../core/lazy-crypto.js';
import { headerValue } from '../../core/header-value.js';
import { Substitution } from '../../match/correlation.js';
import type { CorrelationPair } from '../../match/token-substitution.js';
import { HttpMatcher, type LiveRequest } from '../match/http-matcher.js';
import type { MessageGate } from '../message-player.js';
import { requestBodyOf, serverMessagesOf, type ScriptExchange } from '../replay-script.js';
import { endedBy } from '../../core/exchange-ending.js';
import type { Clock } from '../clock.js';
import { parseJsonBody } from './request-body.js';
import { isSessionResumption, queryValues, sseFieldsOf, type RecordedSession } from './recorded-sessions.js';

/** The header a client resumes an event stream with. */
const LAST_EVENT_ID = 'last-event-id';

/**
 * The live ids a session's answers carry: the correlation pairs learnt from its requests, and the
 * recorded session id renamed to the live one wherever it appears (a header, the legacy `endpoint`
 * event's URL, a log line), not only as a whole JSON token.
 */
class SessionSubstitution extends Substitution {
  constructor(
    private readonly recordedId: string,
    private readonly liveId: string,
  ) {
    super(recordedId === '' ? [] : [{ field: 'session', key: undefined, recorded: recordedId, live: liveId }]);
  }

  override apply(raw: Buffer): Buffer {
    const replaced = super.apply(raw);
    return this.recordedId === '' || replaced.indexOf(this.recordedId) < 0 ? replaced : Buffer.from(replaced.toString('utf8').split(this.recordedId).join(this.liveId));
  }

  override applyText(text: string): string {
    const replaced = super.applyText(text);
    return this.recordedId === '' ? replaced : replaced.split(this.recordedId).join(this.liveId);
  }
}

/**
 * One live client's session, played from the start of a recorded one under an id of its own: its
 * requests are matched against that session's exchanges only (each answer once, in order), the ids
 * they carry are learnt for its answers alone, and a server message is held back until the client
 * messages the recording received before it (on any of the session's requests since its stream
 * opened: the answer to a sampling request, a POST of the legacy transport) have arrived.
 */
export class LiveSession {
  readonly id: string;
  readonly matcher: HttpMatcher;
  readonly substitution: SessionSubstitution;
  private readonly arrived = new Set<number>();
  private readonly wakers = new Set<() => void>();
  private readonly ending = new AbortController();
  /** When each recorded client message of the session arrived, and in which exchange. */
  private readonly arrivals: ReadonlyArray<{ exchangeId: number; atMs: number }>;
  /** Recorded resumptions (GET with Last-Event-ID), kept apart from the session's plain GETs. */
  private readonly resumptions: ScriptExchange[];
  private stream: ServerResponse | undefined;
  /** Answers of the session being played now (a stream held open counts until it ends). */
  private inPlay = 0;
  /** When a request of the session last came or an answer of it last ended, on the replay's clock. */
  private activeMs: number;

  constructor(
    readonly recorded: RecordedSession,
    ignore: readonly string[],
    reuse: boolean,
    private readonly clock: Clock,
  ) {
    this.activeMs = clock.now();
    this.id = recorded.id === '' ? '' : lazyCrypto().randomUUID();
    this.substitution = new SessionSubstitution(recorded.id, this.id);
    this.resumptions = recorded.exchanges.filter(isSessionResumption);
    this.matcher = new HttpMatcher(
      recorded.exchanges.filter((e) => !isSessionResumption(e)),
      ignore,
      reuse,
    );
    // What a server message waits for: the client's requests and responses (when their bodies had
    // arrived) and DELETE (when it started). Not a GET, which some clients never open, nor a
    // notification, which a client may or may not send.
    this.arrivals = recorded.exchanges.flatMap((e) => {
      const body = requestBodyOf(e);
      if (body !== undefined) return body.json !== undefined && recorded.hints.awaited(body.json) ? [{ exchangeId: e.id, atMs: body.tOffsetMs }] : [];
      return e.method === 'DELETE' ? [{ exchangeId: e.id, atMs: e.startedMs }] : [];
    });
  }

  /** A request of the session came. */
  touch(): void {
    this.activeMs = this.clock.now();
  }

  /** One of its answers is being played until `played` settles: the session is in use meanwhile. */
  async whilePlaying<T>(played: Promise<T>): Promise<T> {
    this.inPlay++;
    try {
      return await played;
    } finally {
      this.inPlay--;
      this.activeMs = this.clock.now();
    }
  }

  /** Its client has gone: nothing of it is being played, and nothing came for `idleMs`. */
  idleFor(idleMs: number): boolean {
    return this.inPlay === 0 && this.clock.now() - this.activeMs >= idleMs;
  }

  /** Nothing of it is being played now (no stream held open): it may be freed to keep the replay's sessions bounded. */
  get quiet(): boolean {
    return this.inPlay === 0;
  }

  /** When it was last active, on the replay's clock. */
  get lastActiveMs(): number {
    return this.activeMs;
  }

  /** Aborts when the session ends (DELETE, or the legacy stream closing): streams it held open end then. */
  get ended(): AbortSignal {
    return this.ending.signal;
  }

  /** The live request as the recording would have it: the recorded session id in its query. */
  recordedRequest(request: LiveRequest): LiveRequest {
    if (this.recorded.via !== 'query' || this.id === '') return request;
    return { ...request, query: request.query.split(encodeURIComponent(this.id)).join(encodeURIComponent(this.recorded.id)) };
  }

  /** Takes the live request matched to `exchange`: its ids are learnt for every answer of the session, and what waited for it goes on. */
  arrive(exchange: ScriptExchange, pairs: readonly CorrelationPair[]): void {
    this.substitution.add(pairs);
    this.arrived.add(exchange.id);
    for (const wake of [...this.wakers]) wake();
  }

  /**
   * Holds each server message of `exchange` until the client messages the recording received between
   * the exchange's start and that message have arrived live.
   */
  gateFor(exchange: ScriptExchange): MessageGate {
    const awaited = (atMs: number) => this.arrivals.filter((a) => a.exchangeId !== exchange.id && a.atMs > exchange.startedMs && a.atMs < atMs);
    const ready = (atMs: number) => awaited(atMs).every((a) => this.arrived.has(a.exchangeId));
    return {
      ready,
      wait: async (atMs, signal) => {
        while (!ready(atMs) && !signal.aborted && !this.ending.signal.aborted) await this.nextArrival(signal);
        return Math.max(...awaited(atMs).map((a) => a.atMs));
      },
    };
  }

  /** Whether a stream the recording left open (its client or the recorder cut it) stays open until the client, the session or the replay ends it. */
  holdsOpen(exchange: ScriptExchange): boolean {
    const by = endedBy(exchange.errorCode);
    return by === 'client' || by === 'shutdown';
  }

  /**
   * A GET resuming a stream after `Last-Event-ID`: a recorded resumption with that id when there is
   * one (it is served from its start), else the rest of the recorded stream whose event had it.
   */
  resume(headers: IncomingHttpHeaders): { exchange: ScriptExchange; from: number } | undefined {
    const lastEventId = headerValue(headers, LAST_EVENT_ID);
    if (lastEventId === undefined) return undefined;
    const recorded = this.resumptions.find((e) => headerValue(e.requestHeaders, LAST_EVENT_ID) === lastEventId && !this.arrived.has(e.id));
    if (recorded) return { exchange: recorded, from: 0 };
    for (const exchange of this.recorded.exchanges) {
      const at = serverMessagesOf(exchange).findIndex((m) => sseFieldsOf(m)?.id === lastEventId);
      if (at >= 0) return { exchange, from: at + 1 };
    }
    return undefined;
  }

  /**
   * The stream a legacy session answers on (the opener's GET), once it is being played: a miss's
   * answer is pushed there, as the server pushes every answer.
   */
  attachStream(res: ServerResponse): void {
    this.stream = res;
  }

  /** Sends a message on the session's stream as its protocol frames one (`event: message`); false when there is none open. */
  push(value: unknown): boolean {
    const res = this.stream;
    if (!res || res.destroyed || res.writableEnded || this.recorded.hints.messageEvent === undefined) return false;
    res.write(`event: ${this.recorded.hints.messageEvent}\ndata: ${JSON.stringify(value)}\n\n`);
    return true;
  }

  /** Ends the session: its held streams end, and its id is no longer served. */
  end(): void {
    this.ending.abort();
    for (const wake of [...this.wakers]) wake();
  }

  private nextArrival(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.wakers.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.wakers.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }
}

/** A request routed to a live session; `opening` when it is the one that would open it. */
export interface SessionRoute {
  session: LiveSession;
  /** The request as the recorded session would have it (its session id in the query). */
  request: LiveRequest;
  opening: boolean;
}

/** How long a session whose client has gone is kept: no request of it came, and nothing of it was played, for this long. */
export const SESSION_IDLE_MS = 10 * 60_000;
/** At most this many live sessions (and as many ended ones): past it, the least recently active quiet one is freed. */
export const MAX_LIVE_SESSIONS = 1000;

export interface LiveSessionLimits {
  /** The replay's clock, which idleness is measured on. */
  clock: Clock;
  idleMs?: number;
  maxSessions?: number;
}

/**
 * The live sessions of a replay: each request that opens a session starts a new one from the start
 * of a recorded one (the next one not started yet with the same opening route, then from the
 * first again), and each later request goes to the session it names. So one replay serves any
 * number of clients, one after another or side by side.
 *
 * A session is freed once its client has gone: nothing of it is being played (no stream held open)
 * and no request named it for `idleMs`, or it is the least recently active quiet one past
 * `maxSessions`. Freed, its id is served no more: a request naming it is answered as one naming a
 * session never issued (MCP: 404, and the client starts anew). A session ended by DELETE is kept
 * (it serves what the recording holds after the end) and freed the same way.
 */
export class LiveSessions {
  /** Live sessions, least recently active first (a request moves its session to the end). */
  private readonly live = new Map<string, LiveSession>();
  /** Sessions ended by DELETE, by id. */
  private readonly ended = new Map<string, LiveSession>();
  private readonly started = new Map<string, number>();
  /** The latest session whose recorded server issued no id: requests naming none go there. */
  private unnamed: LiveSession | undefined;
  private readonly clock: Clock;
  private readonly idleMs: number;
  private readonly maxSessions: number;

  /** One recorded session per session header: where a request naming a session is looked for. */
  private readonly byHeader: readonly RecordedSession[];

  constructor(
    private readonly recorded: readonly RecordedSession[],
    private readonly ignore: readonly string[],
    private readonly reuse: boolean,
    limits: LiveSessionLimits,
  ) {
    this.clock = limits.clock;
    this.idleMs = limits.idleMs ?? SESSION_IDLE_MS;
    this.maxSessions = limits.maxSessions ?? MAX_LIVE_SESSIONS;
    const headers = new Map<string, RecordedSession>();
    for (const session of recorded) if (!headers.has(session.hints.header)) headers.set(session.hints.header, session);
    this.byHeader = [...headers.values()];
  }

  /** Live sessions, and ended ones still kept: what the replay holds. */
  get size(): number {
    return this.live.size + this.ended.size;
  }

  /**
   * The session a request belongs to or opens; `unknown` when it names a session in the header that
   * is not live (never opened here, ended, or freed), with the hints of the protocol that answers
   * that; or undefined when it is none's.
   */
  route(headers: IncomingHttpHeaders, request: LiveRequest): SessionRoute | { unknown: RecordedSession } | undefined {
    this.freeIdle();
    for (const recorded of this.byHeader) {
      const named = headerValue(headers, recorded.hints.header);
      if (named === undefined) continue;
      // An ended session still serves what its recording holds after the end (the server's 404s).
      const session = this.active(`header:${named}`) ?? this.ended.get(named);
      session?.touch();
      return session ? { session, request, opening: false } : { unknown: recorded };
    }
    for (const value of queryValues(request.query)) {
      const session = this.active(`query:${value}`);
      if (session) return { session, request: session.recordedRequest(request), opening: false };
    }
    const opened = this.open(request);
    if (opened) return { session: opened, request: opened.recordedRequest(request), opening: true };
    this.unnamed?.touch();
    return this.unnamed ? { session: this.unnamed, request, opening: false } : undefined;
  }

  /** Serves the session from now on (its opening request was matched). */
  register(session: LiveSession): void {
    if (session.id === '') this.unnamed = session;
    else this.live.set(`${session.recorded.via}:${session.id}`, session);
    this.bound(this.live);
  }

  /** Ends a session (DELETE): what it held open ends, and its id is served no more. */
  end(session: LiveSession): void {
    session.end();
    this.live.delete(`${session.recorded.via}:${session.id}`);
    if (session.id !== '' && session.recorded.via === 'header') {
      this.ended.set(session.id, session);
      this.bound(this.ended);
    }
    if (this.unnamed === session) this.unnamed = undefined;
  }

  /** The live session under `key`, marked active now (moved to the end of the map's order). */
  private active(key: string): LiveSession | undefined {
    const session = this.live.get(key);
    if (session === undefined) return undefined;
    session.touch();
    this.live.delete(key);
    this.live.set(key, session);
    return session;
  }

  /** Frees the sessions whose client has gone (nothing played, no request for idleMs). */
  private freeIdle(): void {
    for (const [key, session] of this.live) if (session.idleFor(this.idleMs)) this.free(this.live, key, session);
    for (const [id, session] of this.ended) if (session.idleFor(this.idleMs)) this.ended.delete(id);
    if (this.unnamed?.idleFor(this.idleMs)) {
      this.unnamed.end();
      this.unnamed = undefined;
    }
  }

  /** Past maxSessions: the least recently active quiet sessions of `sessions` are freed. */
  private bound(sessions: Map<string, LiveSession>): void {
    for (const [key, session] of sessions) {
      if (sessions.size <= this.maxSessions) return;
      if (session.quiet) this.free(sessions, key, session);
    }
  }

  private free(sessions: Map<string, LiveSession>, key: string, session: LiveSession): void {
    sessions.delete(key);
    session.end();
  }

  private open(request: LiveRequest): LiveSession | undefined {
    const body = request.body.length === 0 ? undefined : parseJsonBody(request.body);
    const candidates = this.recorded.filter((s) => s.opener.method === request.method && s.opener.path === request.path && (s.via === 'query' || (body !== undefined && s.hints.opens(body))));
    if (candidates.length === 0) return undefined;
    const route = `${request.method} ${request.path}`;
    const count = this.started.get(route) ?? 0;
    this.started.set(route, count + 1);
    return new LiveSession(candidates[count % candidates.length], this.ignore, this.reuse, this.clock);
  }
}
