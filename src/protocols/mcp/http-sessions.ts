import { headerValue, type HeaderMap } from '../../core/header-value.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import type { RecordingScope } from '../recording-scope.js';
import { LEGACY_SESSION_PARAM, MCP_SESSION_HEADER } from './http-recognition.js';
import { McpChecker } from './mcp-checker.js';

/**
 * The MCP sessions of one recording's HTTP exchanges. Over Streamable HTTP a session spans many
 * exchanges (the POST of initialize, each later POST, the GET stream, DELETE), so its state (the
 * lifecycle, ids and open requests, capabilities, the tool catalog) lives here, one McpChecker per
 * session, and each exchange's checker judges with its session's. A session is found by:
 * - `Mcp-Session-Id`, issued on the response carrying the InitializeResult and sent on every later
 *   request;
 * - the older HTTP+SSE transport's `sessionId` query parameter, named by its GET stream's `endpoint`
 *   event and carried by each POST to that URL;
 * - otherwise the path: a server that issues no session id has one session per endpoint, which each
 *   `initialize` starts anew. A 2026-07-28 request (no sessions) stands alone.
 */
/** What finds an exchange's session: its path, its query (the legacy `sessionId`) and its request headers. */
export interface SessionRoute {
  path?: string;
  query?: URLSearchParams;
  requestHeaders?: HeaderMap;
}

export class McpHttpSessions {
  private readonly byId = new Map<string, McpChecker>();
  private readonly byLegacyId = new Map<string, McpChecker>();
  private readonly byPath = new Map<string, McpChecker>();

  constructor(private readonly registry: SchemaRegistry) {}

  /** The sessions of a recording: one registry per recording scope. */
  static of(scope: RecordingScope, registry: SchemaRegistry): McpHttpSessions {
    return scope.entry('mcp-http-sessions', () => new McpHttpSessions(registry));
  }

  /** A session of its own (a modern request, a legacy stream before its endpoint is known). */
  fresh(): McpChecker {
    return new McpChecker(this.registry, false);
  }

  /** The session a request's exchange belongs to, by its session header, its legacy session parameter, or its path. */
  find(http: SessionRoute): McpChecker | undefined {
    const id = sessionIdOf(http.requestHeaders);
    if (id !== undefined) return this.byId.get(id) ?? this.adopt(id, http.path ?? '');
    const legacy = http.query?.get(LEGACY_SESSION_PARAM);
    if (legacy) return this.legacy(legacy);
    return this.byPath.get(http.path ?? '');
  }

  /** A new session begun by an `initialize` without a session id: the path's until the server names it. */
  begin(http: SessionRoute): McpChecker {
    const session = this.fresh();
    if (sessionIdOf(http.requestHeaders) === undefined && !http.query?.get(LEGACY_SESSION_PARAM)) this.byPath.set(http.path ?? '', session);
    return session;
  }

  /** The session id a server issued (or a client sent for a session not seen begin): later exchanges with it share `session`. */
  name(id: string, session: McpChecker): void {
    if (this.byId.has(id)) return;
    this.byId.set(id, session);
    for (const [path, other] of this.byPath) if (other === session) this.byPath.delete(path);
  }

  /**
   * An id not seen issued, on the path of a session begun without one: that session's id. An SSE
   * answer's events carry no response headers, so the InitializeResult's `Mcp-Session-Id` is often
   * learnt from the client's next request, which must send it.
   */
  private adopt(id: string, path: string): McpChecker | undefined {
    const pending = this.byPath.get(path);
    if (pending === undefined) return undefined;
    this.name(id, pending);
    return pending;
  }

  /** The legacy transport's session by the `sessionId` its endpoint event names, made on first mention (its stream or a POST, whichever is judged first). */
  legacy(id: string): McpChecker {
    let session = this.byLegacyId.get(id);
    if (session === undefined) {
      session = this.fresh();
      this.byLegacyId.set(id, session);
    }
    return session;
  }
}

export function sessionIdOf(headers: HeaderMap | undefined): string | undefined {
  const value = headerValue(headers, MCP_SESSION_HEADER)?.trim();
  return value === '' ? undefined : value;
}
