import { headerValue, type HeaderMap } from '../../core/header-value.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import type { RecordingScope } from '../recording-scope.js';
import { LEGACY_SESSION_PARAM, MCP_SESSION_HEADER } from './http-recognition.js';
import { McpChecker } from './mcp-checker.js';
import type { ProtocolChecker } from '../protocol.js';

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
  /** Its client ended it (a DELETE the server accepted): its end was reported. */
  deleted?: boolean;
}

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
 *   `initialize` starts anew. A 2026-07-28 request (no sessions) stands alone.
 */
export class McpHttpSessions {
  private readonly byId = new Map<string, McpHttpSession>();
  private readonly byLegacyId = new Map<string, McpHttpSession>();
  private readonly byPath = new Map<string, McpHttpSession>();
  /** The session last named on each path: a server there issues ids, and a request without one belongs to it. */
  private readonly namedOnPath = new Map<string, McpHttpSession>();
  /** Session ids the server answered 404 to. */
  private readonly ended = new Set<string>();

  constructor(private readonly registry: SchemaRegistry) {}

  /** The sessions of a recording: one registry per recording scope. */
  static of(scope: RecordingScope, registry: SchemaRegistry): McpHttpSessions {
    return scope.entry('mcp-http-sessions', () => new McpHttpSessions(registry));
  }

  /** A session of its own (a modern request). */
  fresh(legacy = false): McpHttpSession {
    return { checker: new McpChecker(this.registry, false), legacy, delivered: new Map() };
  }

  /** The session a request's exchange belongs to, by its session header, its legacy session parameter, or its path. */
  find(route: SessionRoute): McpHttpSession | undefined {
    const id = sessionIdOf(route.requestHeaders);
    if (id !== undefined) return this.byId.get(id) ?? this.adopt(id, route.path ?? '');
    const legacy = legacySessionOf(route);
    if (legacy !== undefined) return this.legacy(legacy);
    return this.byPath.get(route.path ?? '');
  }

  /** A new session begun by an `initialize` without a session id: the path's until the server names it. */
  begin(route: SessionRoute): McpHttpSession {
    const session = this.fresh();
    if (sessionIdOf(route.requestHeaders) === undefined && legacySessionOf(route) === undefined) this.byPath.set(route.path ?? '', session);
    return session;
  }

  /** The session id a server issued (or a client sent for a session not seen begin): later exchanges with it share `session`. */
  name(id: string, session: McpHttpSession, path: string): void {
    if (this.byId.has(id)) return;
    this.byId.set(id, session);
    this.namedOnPath.set(path, session);
    for (const [at, other] of this.byPath) if (other === session) this.byPath.delete(at);
  }

  /** The session a request without a session id joins on a path whose server issues them (its last named). */
  namedOn(path: string): McpHttpSession | undefined {
    return this.namedOnPath.get(path);
  }

  /** The server answered 404 to a request of this session id: it is gone, and its client must initialize anew. */
  end(id: string): void {
    this.ended.add(id);
  }

  hasEnded(id: string): boolean {
    return this.ended.has(id);
  }

  /** The legacy transport's session by the `sessionId` its endpoint event names, made on first mention (its stream or a POST, whichever is judged first). */
  legacy(id: string): McpHttpSession {
    let session = this.byLegacyId.get(id);
    if (session === undefined) {
      session = this.fresh(true);
      this.byLegacyId.set(id, session);
    }
    return session;
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
