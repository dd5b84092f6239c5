import { headerValue, type HeaderMap } from '../../core/header-value.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import type { RecordingScope } from '../recording-scope.js';
import { LEGACY_SESSION_PARAM, MCP_SESSION_HEADER } from './http-recognition.js';
import { McpChecker } from './mcp-checker.js';
import type { HandedFindings, ProtocolChecker } from '../protocol.js';

/** What finds an exchange's session: its method, path, query (the legacy `sessionId`) and request headers. */
export interface SessionRoute {
  method?: string;
  path?: string;
  query?: URLSearchParams;
  requestHeaders?: HeaderMap;
}

/** One MCP session over HTTP: its checker (lifecycle, ids, capabilities, tools) and what its transport rules track. */
export interface McpHttpSession {
  readonly checker: McpChecker;
  /** The older HTTP+SSE transport's (answers on its GET stream, POSTs answered `Accepted`). */
  readonly legacy: boolean;
  /** Which stream delivered each server message, by `request:<id>` or `response:<id>`: none is delivered on two. */
  readonly delivered: Map<string, object>;
  /** The exchange (its checker) that judged the session's last message so far: where the session's end is reported. */
  lastExchange?: ProtocolChecker;
  /** Its exchanges (their checkers) not ended yet, whose ends its own waits for: those that named it or judged a message of it, and the one that ended it. */
  readonly open: Set<ProtocolChecker>;
  /** Its client ended it: a DELETE the server accepted, or a new `initialize` on its endpoint, whose server issues no ids. */
  ended?: boolean;
  /** Its end was reported, and it was forgotten. */
  reported?: boolean;
  /** Its server issues no session id: an answer came without one, or its client went on without one. */
  idless?: boolean;
  /** What finds it in the table: the session ids issued, the legacy `sessionId`, the path it began on. */
  readonly ids: string[];
  legacyId?: string;
  path?: string;
}

/** At most this many sessions are kept while recording: past it, the least recently active one is forgotten. */
export const MAX_RECORDED_SESSIONS = 1000;

/**
 * The MCP sessions of one recording's HTTP exchanges. Over Streamable HTTP a session spans many
 * exchanges (the POST of initialize, each later POST, the GET stream, DELETE), so its state (the
 * lifecycle, ids and open requests, capabilities, the tool catalog) lives here, one McpChecker per
 * session, and each exchange's checker judges with its session's. A session is found by:
 * - `Mcp-Session-Id`, issued on the response carrying the InitializeResult and sent on every later
 *   request (an SSE answer's events carry no headers: an id first seen on the client's next request
 *   names the session its path's initialize began);
 * - the older HTTP+SSE transport's `sessionId` query parameter, named by its GET stream's `endpoint`
 *   event and carried by each POST to that URL;
 * - otherwise the path: a server that issues no session id has one session per endpoint, which each
 *   `initialize` starts anew (ending the one before). A 2026-07-28 request (no sessions) stands alone.
 *
 * A session that ended is forgotten once its end was reported (settle). While recording (a live
 * scope) the table is bounded: past `limit` sessions the least recently active is forgotten, its
 * later messages judged as those of a session never seen. The order is that of the messages judged,
 * so the same traffic forgets the same sessions.
 */
export class McpHttpSessions {
  private readonly byId = new Map<string, McpHttpSession>();
  private readonly byLegacyId = new Map<string, McpHttpSession>();
  private readonly byPath = new Map<string, McpHttpSession>();
  /** The session last named on each path: a server there issues ids, and a request without one belongs to it. */
  private readonly namedOnPath = new Map<string, McpHttpSession>();
  /** The paths whose server issued a session id. */
  private readonly issuingPaths = new Set<string>();
  /** Session ids the server answered 404 to, oldest first. */
  private readonly ended = new Set<string>();
  /** The sessions in the table, least recently active first (a message judged moves its session to the end). */
  private readonly recency = new Set<McpHttpSession>();

  constructor(
    private readonly registry: SchemaRegistry,
    /** How many sessions (and 404-ended ids) are kept; unbounded when judging a finished recording whole. */
    private readonly limit = Infinity,
  ) {}

  /** The sessions of a recording: one registry per recording scope. */
  static of(scope: RecordingScope, registry: SchemaRegistry): McpHttpSessions {
    return scope.entry('mcp-http-sessions', () => new McpHttpSessions(registry, scope.live ? MAX_RECORDED_SESSIONS : Infinity));
  }

  /** How many sessions the table holds. */
  get size(): number {
    return this.recency.size;
  }

  /** A session of its own (a modern request), in no table. */
  fresh(legacy = false): McpHttpSession {
    return { checker: new McpChecker(this.registry, false), legacy, delivered: new Map(), open: new Set(), ids: [] };
  }

  /** The session a request's exchange belongs to, by its session header, its legacy session parameter, or its path. */
  find(route: SessionRoute): McpHttpSession | undefined {
    const id = sessionIdOf(route.requestHeaders);
    if (id !== undefined) return this.byId.get(id) ?? this.adopt(id, route.path ?? '');
    const legacy = legacySessionOf(route);
    if (legacy !== undefined) return this.legacy(legacy);
    return this.byPath.get(route.path ?? '');
  }

  /** The session a request's session id names, if known: found without naming any (no side effect). */
  named(route: SessionRoute): McpHttpSession | undefined {
    const id = sessionIdOf(route.requestHeaders);
    return id === undefined ? undefined : this.byId.get(id);
  }

  /**
   * A new session begun by an `initialize` without a session id: the path's until the server names
   * it. The path's session before it is forgotten; when its server issues no ids, the new
   * initialize ended it (`ended`, whose end its exchange waits for).
   */
  begin(route: SessionRoute): { session: McpHttpSession; ended?: McpHttpSession } {
    const session = this.fresh();
    if (sessionIdOf(route.requestHeaders) !== undefined || legacySessionOf(route) !== undefined) return { session: this.remember(session) };
    const path = route.path ?? '';
    const before = this.byPath.get(path);
    session.path = path;
    this.byPath.set(path, session);
    this.remember(session);
    if (before === undefined) return { session };
    // One whose id is not known yet (an SSE answer) may still be named by its client: not known to have ended.
    this.forget(before);
    if (!before.idless || before.ended) return { session };
    before.ended = true;
    return { session, ended: before };
  }

  /** The session id a server issued (or a client sent for a session not seen begin): later exchanges with it share `session`. */
  name(id: string, session: McpHttpSession, path: string): void {
    if (this.byId.has(id) || session.reported) return;
    this.byId.set(id, session);
    session.ids.push(id);
    session.idless = false;
    this.namedOnPath.set(path, session);
    this.issuingPaths.add(path);
    if (session.path !== undefined && this.byPath.get(session.path) === session) this.byPath.delete(session.path);
    this.remember(session);
  }

  /** The session a request without a session id joins on a path whose server issues them (its last named). */
  namedOn(path: string): McpHttpSession | undefined {
    return this.namedOnPath.get(path);
  }

  /** The server on this path issued a session id: every request after initialize carries it. */
  issuesIds(path: string): boolean {
    return this.issuingPaths.has(path);
  }

  /** A message of the session was judged: it is the most recently active. */
  touch(session: McpHttpSession): void {
    if (!this.recency.has(session)) return;
    this.recency.delete(session);
    this.recency.add(session);
  }

  /** The server answered 404 to a request of this session id: it is gone, and its client must initialize anew. */
  end(id: string): void {
    this.ended.delete(id);
    this.ended.add(id);
    if (this.ended.size > this.limit) this.ended.delete(this.ended.values().next().value!);
  }

  hasEnded(id: string): boolean {
    return this.ended.has(id);
  }

  /** The legacy transport's session by the `sessionId` its endpoint event names, made on first mention (its stream or a POST, whichever is judged first). */
  legacy(id: string): McpHttpSession {
    let session = this.byLegacyId.get(id);
    if (session === undefined) {
      session = this.fresh(true);
      session.legacyId = id;
      this.byLegacyId.set(id, session);
      this.remember(session);
    }
    return session;
  }

  /**
   * The end of a session that ended, once every exchange of it ended too (and the one that ended
   * it): no message can change it then, whenever each exchange's end is seen, so record (as the
   * exchanges end) and validate (after every message) report the same. Its server's requests never
   * answered and notifications/initialized never sent go on its last message, in the exchange that
   * carried it (the exchange that ended it has none). Reported once; the session is forgotten.
   */
  settle(session: McpHttpSession): HandedFindings[] {
    if (!session.ended || session.reported || session.open.size > 0) return [];
    session.reported = true;
    this.forget(session);
    const findings = session.checker.sessionEnded();
    return session.lastExchange && findings.length > 0 ? [{ to: session.lastExchange, findings }] : [];
  }

  /** In the table, as the most recently active; past the limit, the least recently active is forgotten. */
  private remember(session: McpHttpSession): McpHttpSession {
    this.recency.delete(session);
    this.recency.add(session);
    if (this.recency.size > this.limit) this.forget(this.recency.values().next().value!);
    return session;
  }

  /** Out of the table: an exchange that judged it goes on with it; a new one naming it finds none. */
  private forget(session: McpHttpSession): void {
    this.recency.delete(session);
    for (const id of session.ids) if (this.byId.get(id) === session) this.byId.delete(id);
    if (session.legacyId !== undefined && this.byLegacyId.get(session.legacyId) === session) this.byLegacyId.delete(session.legacyId);
    if (session.path !== undefined && this.byPath.get(session.path) === session) this.byPath.delete(session.path);
    for (const [path, named] of this.namedOnPath) if (named === session) this.namedOnPath.delete(path);
  }

  /**
   * An id not seen issued, on the path of a session begun without one: that session's id. An SSE
   * answer's events carry no response headers, so the InitializeResult's `Mcp-Session-Id` is often
   * learnt from the client's next request, which must send it.
   */
  private adopt(id: string, path: string): McpHttpSession | undefined {
    const pending = this.byPath.get(path);
    if (pending === undefined) return undefined;
    this.name(id, pending, path);
    return pending;
  }
}

export function sessionIdOf(headers: HeaderMap | undefined): string | undefined {
  const value = headerValue(headers, MCP_SESSION_HEADER)?.trim();
  return value === '' ? undefined : value;
}

/** The older transport's session parameter of a POST's URL. */
export function legacySessionOf(route: SessionRoute): string | undefined {
  return route.query?.get(LEGACY_SESSION_PARAM) || undefined;
}
