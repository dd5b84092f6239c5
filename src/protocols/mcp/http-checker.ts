import type { Finding } from '../../core/finding.js';
import { headerValue, type HeaderMap } from '../../core/header-value.js';
import { isJsonObject } from '../../core/json.js';
import type { InboundMessage } from '../../core/message.js';
import { unchecked, verdictFrom, type Verdict } from '../../core/verdict.js';
import type { ProtocolChecker } from '../protocol.js';
import { endpointSessionOf, eventData, LEGACY_SESSION_PARAM, MCP_VERSION_HEADER } from './http-recognition.js';
import { sessionIdOf, type McpHttpSessions, type SessionRoute } from './http-sessions.js';
import type { McpChecker } from './mcp-checker.js';
import { MCP_META_VERSION, MCP_MODERN_VERSIONS } from './schemas.js';

/**
 * The checker of one MCP exchange over HTTP (a POST and its answer, a GET stream, a DELETE): it
 * judges each message with the state of the session the exchange belongs to (http-sessions.ts),
 * found from its first message's request, and names that session when the answer issues its id.
 */
export class McpHttpChecker implements ProtocolChecker {
  private session?: McpChecker;

  constructor(
    private readonly sessions: McpHttpSessions,
    /** The exchange's request, for its events, which carry none (a GET stream's `Mcp-Session-Id`). */
    private readonly route: SessionRoute,
  ) {}

  judge(message: InboundMessage): Verdict {
    const session = (this.session ??= this.sessionOf(message));
    const issued = message.sender === 'server' ? sessionIdOf(message.http?.responseHeaders) : undefined;
    if (issued !== undefined) this.sessions.name(issued, session);
    return session.judge(message);
  }

  /**
   * Text that is not JSON: the older transport's `endpoint` event (the URL the client POSTs to,
   * whose `sessionId` names the session), and the `Accepted` its server answers each POST with.
   */
  judgeText(message: InboundMessage): Verdict | undefined {
    const text = eventData(message.text ?? '');
    if (message.sender !== 'server') return undefined;
    if (message.carrier === 'event') {
      // Streamable HTTP primes a resumable stream with an event id and empty data.
      if (text === '') return unchecked('an event with no data (a stream primed with its event id), not a JSON-RPC message');
      const legacy = endpointSessionOf(text);
      if (legacy === undefined) return undefined;
      this.session ??= this.sessions.legacy(legacy);
      return verdictFrom([]);
    }
    if (message.carrier === 'body' && message.http?.status === 202) return unchecked('the answer to a POSTed message, not a JSON-RPC message');
    return undefined;
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    void how;
    return [];
  }

  private sessionOf(message: InboundMessage): McpChecker {
    const { value } = message;
    const http: SessionRoute = message.http ?? this.route;
    if (message.sender === 'client' && isModern(value, http.requestHeaders)) return this.sessions.fresh();
    if (message.sender === 'client' && opensSession(value)) {
      const known = this.sessions.find(http);
      // A second initialize on a known session is that session's finding (mcp-initialize-repeated).
      return known !== undefined && (sessionIdOf(http.requestHeaders) !== undefined || http.query?.get(LEGACY_SESSION_PARAM)) ? known : this.sessions.begin(http);
    }
    const found = this.sessions.find(http);
    if (found) return found;
    const session = this.sessions.begin(http);
    const id = sessionIdOf(http.requestHeaders);
    if (id !== undefined) this.sessions.name(id, session);
    return session;
  }
}

/** An initialize request, alone or in a batch. */
function opensSession(value: unknown): boolean {
  const members = Array.isArray(value) ? value : [value];
  return members.some((m) => isJsonObject(m) && m.method === 'initialize' && 'id' in m);
}

/** A 2026-07-28 request: its `_meta` or its `MCP-Protocol-Version` names a version without sessions. */
function isModern(value: unknown, headers: HeaderMap | undefined): boolean {
  const header = headerValue(headers, MCP_VERSION_HEADER);
  if (header !== undefined && MCP_MODERN_VERSIONS.has(header.trim())) return true;
  const first = Array.isArray(value) ? value[0] : value;
  const meta = isJsonObject(first) && isJsonObject(first.params) && isJsonObject(first.params._meta) ? first.params._meta[MCP_META_VERSION] : undefined;
  return typeof meta === 'string' && MCP_MODERN_VERSIONS.has(meta);
}
