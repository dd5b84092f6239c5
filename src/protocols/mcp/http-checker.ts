import { error, type Finding } from '../../core/finding.js';
import { headerValue, type HeaderMap } from '../../core/header-value.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { HttpContext, InboundMessage } from '../../core/message.js';
import { unchecked, verdictFrom, withFindings, type Verdict } from '../../core/verdict.js';
import { classifyJsonRpc, idKey } from '../json-rpc/json-rpc-message.js';
import type { HandedFindings, ProtocolChecker, StreamEnd } from '../protocol.js';
import { endpointSessionOf, eventData, MCP_METHOD_HEADER, MCP_VERSION_HEADER } from './http-recognition.js';
import { legacySessionOf, sessionIdOf, type McpHttpSession, type McpHttpSessions, type SessionRoute } from './http-sessions.js';
import { decodeMirroredHeader } from './header-encoding.js';
import { ListenStream } from './listen-stream.js';
import { MCP_RULES as RULES } from './mcp-rules.js';
import { paramClientOf, type ParamHeaders } from './param-headers.js';
import { MCP_META_VERSION, MCP_MODERN_VERSIONS } from './schemas.js';

/** The first version whose clients must send `MCP-Protocol-Version` on every request after initialize. */
const VERSION_HEADER_SINCE = '2025-06-18';

/**
 * The checker of one MCP exchange over HTTP (a POST and its answer, a GET stream, a DELETE): it
 * judges each message with the state of the session the exchange belongs to (http-sessions.ts),
 * found from its request, and holds the transport's rules: the session and version headers, what
 * a standalone GET stream and a 202 answer may carry, no message on two streams, and 2026-07-28's
 * headers equal to the body, its mirrored tool arguments (`Mcp-Param-*`) among them. At its end it
 * reports the requests its POST sent that its stream never answered; a session's end is reported
 * when it and its exchanges ended (endElsewhere).
 */
export class McpHttpChecker implements ProtocolChecker {
  private session?: McpHttpSession;
  /** The client's requests this exchange POSTed, by idKey: its stream owes their answers. */
  private readonly posted = new Set<string>();
  /** The POST carried notifications and responses only: its answer is 202 with no body. */
  private acceptedOnly = false;
  /** A stream primed with an event id (resumable: an answer may come on a resumed stream instead). */
  private primed = false;
  /** The server refused the request at the HTTP level (4xx, 5xx): its requests are not owed answers here. */
  private refused = false;
  /** A GET stream the older transport opened (its endpoint event came first): it carries the answers. */
  private legacyStream = false;
  /** The sessions whose end waits for this exchange's (McpHttpSession.open). */
  private readonly awaitedBy = new Set<McpHttpSession>();
  /** 2026-07-28: the subscription this POST's `subscriptions/listen` opened, whose stream it judges. */
  private listen?: ListenStream;
  /** 2026-07-28: the `tools/list` this POST sent (its id key) and its client, whose result's annotations the client's calls are held to. */
  private listing?: { id: string; client: string | undefined };

  constructor(
    private readonly sessions: McpHttpSessions,
    /** The exchange's request, for its events, which carry none (a GET stream's `Mcp-Session-Id`). */
    private readonly route: SessionRoute,
    /** 2026-07-28: the recording's tool listings, for `Mcp-Param-*` headers (absent: not checked). */
    private readonly paramHeaders?: ParamHeaders,
  ) {
    // An exchange that names a session (a GET stream, a DELETE) may carry its messages later than another's end: the session's end waits for it.
    const named = sessions.named(route);
    if (named) this.awaits(named);
  }

  judge(message: InboundMessage): Verdict {
    const { value, sender } = message;
    const http: SessionRoute = message.http ?? this.route;
    if (sender === 'server' && message.http?.status !== undefined && message.http.status >= 400) return this.refusal(message, message.http);
    const session = this.sessionFor(message, http);
    // A JSON answer names the session it issued (an SSE answer's events carry no headers: see http-sessions.ts).
    const issued = sender === 'server' ? sessionIdOf(message.http?.responseHeaders) : undefined;
    if (issued !== undefined) this.sessions.name(issued, session, this.route.path ?? '');
    else if (sender === 'server' && message.http?.responseHeaders !== undefined && session.path !== undefined && session.ids.length === 0) session.idless = true;
    // Over HTTP a recording may start while a client is connected: a session first seen at another message than initialize was joined midway.
    if (session.checker.untouched && !(sender === 'client' && opensSession(value))) session.checker.joinedMidway();
    // Where the session's end goes: its last message other than a server's notification, which may reach the recorder after the DELETE ended (server-everything's periodic logs).
    if (sender === 'client' || !onlyNotifications(value)) session.lastExchange = this;
    const before = sender === 'client' ? this.clientRules(session, value, http) : this.serverRules(session, value, message);
    if (before.skip) return verdictFrom(before.findings);
    // Judged as of its request's headers (a missing MCP-Protocol-Version on HTTP means 2025-03-26).
    const judged = message.http === undefined && this.route.path !== undefined ? { ...message, http: { method: this.route.method ?? 'GET', path: this.route.path, requestHeaders: this.route.requestHeaders } } : message;
    const verdict = session.checker.judge(judged);
    return before.findings.length === 0 ? verdict : withFindings(verdict, before.findings);
  }

  /**
   * Text that is not JSON: the older transport's `endpoint` event (the URL the client POSTs to,
   * whose `sessionId` names the session), an event priming a stream with its id, and the
   * `Accepted` the older transport's server answers each POST with.
   */
  judgeText(message: InboundMessage): Verdict | undefined {
    if (message.sender !== 'server') return undefined;
    const text = eventData(message.text ?? '');
    if (message.carrier === 'event') {
      if (text === '') {
        this.primed = true;
        return unchecked('an event with no data (a stream primed with its event id), not a JSON-RPC message');
      }
      const legacy = endpointSessionOf(text);
      if (legacy === undefined) return undefined;
      this.legacyStream = true;
      this.session ??= this.sessions.legacy(legacy);
      return verdictFrom([]);
    }
    const status = message.http?.status;
    if (message.carrier === 'body' && status === 202) {
      const legacy = this.session?.legacy ?? legacySessionOf(message.http ?? this.route) !== undefined;
      const why = 'the answer to a POSTed message, not a JSON-RPC message';
      if (legacy || !this.acceptedOnly) return unchecked(why);
      return unchecked(why, [error(RULES.httpAcceptedWithBody, '', 'a POST of notifications or responses is answered 202 Accepted with no body; this one has a body')]);
    }
    return undefined;
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    if (!this.session || this.refused) return [];
    // The older transport's GET stream carries every answer of its session: when it ends, so does the session.
    if (this.legacyStream) return this.session.checker.end(how);
    if (this.session.legacy || this.posted.size === 0 || this.primed) return [];
    // A listen stream the server closes without its result is the abrupt close its schema allows.
    if (this.listen) return [];
    return this.session.checker.unanswered('client', this.posted, how);
  }

  /**
   * A session's end, reported once it ended and every exchange of it ended (McpHttpSessions.settle):
   * a DELETE the server accepted (2xx) ends its session, and so does a new `initialize` on an
   * endpoint whose server issues no session ids. A session never ended reports nothing of its end:
   * its client may have stopped without ending it (the SDK's close() does not send DELETE), or be
   * running still when the recording ends.
   */
  endElsewhere(end: StreamEnd): HandedFindings[] {
    const deleted = this.deletedSession(end);
    if (deleted) deleted.ended = true;
    const handed: HandedFindings[] = [];
    for (const session of deleted ? [...this.awaitedBy, deleted] : this.awaitedBy) {
      session.open.delete(this);
      handed.push(...this.sessions.settle(session));
    }
    this.awaitedBy.clear();
    return handed;
  }

  private awaits(session: McpHttpSession): void {
    session.open.add(this);
    this.awaitedBy.add(session);
  }

  /** The session this exchange's DELETE ended: the server accepted it (2xx). */
  private deletedSession(end: StreamEnd): McpHttpSession | undefined {
    const { status } = end;
    if (this.route.method !== 'DELETE' || end.how !== 'complete' || status === undefined || status < 200 || status >= 300) return undefined;
    if (sessionIdOf(this.route.requestHeaders) === undefined) return undefined;
    const session = this.sessions.find(this.route);
    return session && !session.legacy ? session : undefined;
  }

  /** The session of the exchange, found at its first message; each message judged makes it the most recently active. */
  private sessionFor(message: InboundMessage, http: SessionRoute): McpHttpSession {
    if (this.session === undefined) {
      this.session = this.sessionOf(message, http);
      this.awaits(this.session);
    }
    this.sessions.touch(this.session);
    return this.session;
  }

  private sessionOf(message: InboundMessage, http: SessionRoute): McpHttpSession {
    const { value } = message;
    if (message.sender === 'client' && isModern(value, http.requestHeaders)) return this.sessions.fresh();
    const id = sessionIdOf(http.requestHeaders);
    if (message.sender === 'client' && opensSession(value)) {
      // A second initialize on a known session is that session's finding (mcp-initialize-repeated).
      const known = id !== undefined || legacySessionOf(http) !== undefined ? this.sessions.find(http) : undefined;
      if (known) return known;
      const { session, ended } = this.sessions.begin(http);
      // It ended the endpoint's session before it: that one's end waits for this exchange's too.
      if (ended) this.awaits(ended);
      return session;
    }
    const found = this.sessions.find(http);
    // A later exchange of a session begun without an id that carries none: its server issues none.
    if (found && id === undefined && found.path !== undefined && found.ids.length === 0 && !found.legacy) found.idless = true;
    const joined = found ?? (id === undefined ? this.sessions.namedOn(http.path ?? '') : undefined);
    if (joined) return joined;
    const { session } = this.sessions.begin(http);
    if (id !== undefined) this.sessions.name(id, session, http.path ?? '');
    return session;
  }

  /** The rules of a client's POSTed body: its headers, given the session's state before it. */
  private clientRules(session: McpHttpSession, value: unknown, http: SessionRoute): { findings: Finding[]; skip?: boolean } {
    const members = Array.isArray(value) ? value : [value];
    const shapes = members.map(classifyJsonRpc);
    for (const shape of shapes) if (shape.kind === 'request' && shape.id !== null) this.posted.add(idKey(shape.id));
    this.acceptedOnly = shapes.length > 0 && shapes.every((s) => s.kind === 'notification' || s.kind === 'response');
    if (session.legacy) return { findings: [] };
    const first = isJsonObject(members[0]) ? members[0] : undefined;
    if (first && isModern(value, http.requestHeaders)) {
      this.listen ??= ListenStream.openedBy(first);
      return { findings: [...modernHeaderFindings(first, http.requestHeaders), ...this.paramRules(first, http)] };
    }
    const findings: Finding[] = [];
    const id = sessionIdOf(http.requestHeaders);
    const initialize = opensSession(value);
    if (id !== undefined && this.sessions.hasEnded(id)) {
      findings.push(error(RULES.httpSessionEnded, '', `the server answered 404 to session ${id}: the client must initialize a new session, not keep using this one`));
    } else if (id === undefined && !initialize && this.sessions.issuesIds(http.path ?? '')) {
      findings.push(error(RULES.httpSessionIdMissing, '', `the server on ${http.path ?? '/'} issues session ids: every request after initialize carries Mcp-Session-Id, and this one has none`));
    }
    const negotiated = session.checker.negotiatedVersion;
    if (!initialize && negotiated !== undefined && negotiated >= VERSION_HEADER_SINCE) {
      const header = headerValue(http.requestHeaders, MCP_VERSION_HEADER)?.trim();
      if (header === undefined) findings.push(error(RULES.httpVersionHeaderMissing, '', `the session negotiated MCP ${negotiated}: every request after initialize carries MCP-Protocol-Version, and this one has none`));
      else if (header !== negotiated) findings.push(error(RULES.httpVersionHeaderMismatch, '', `MCP-Protocol-Version is ${header}, but the session negotiated ${negotiated}`));
    }
    return { findings };
  }

  /**
   * 2026-07-28's mirrored tool arguments: a tools/call's `Mcp-Param-*` headers against the listing
   * its client saw; a tools/list is remembered, so that its result is.
   */
  private paramRules(request: JsonObject, http: SessionRoute): Finding[] {
    if (!this.paramHeaders || !isJsonObject(request.params) || request.id === undefined || request.id === null) return [];
    const client = paramClientOf(request.params._meta, headerValue(http.requestHeaders, 'host'), http.path);
    if (request.method === 'tools/list' && (typeof request.id === 'string' || typeof request.id === 'number')) this.listing = { id: idKey(request.id), client };
    return request.method === 'tools/call' ? this.paramHeaders.call(client, request.params, http.requestHeaders) : [];
  }

  /** The rules of a server message: where it may travel. A message already delivered on another stream is judged no further. */
  private serverRules(session: McpHttpSession, value: unknown, message: InboundMessage): { findings: Finding[]; skip?: boolean } {
    const findings: Finding[] = this.listen ? this.listen.judge(value) : [];
    if (this.listing && this.paramHeaders) findings.push(...this.listed(this.listing, value, this.paramHeaders));
    if (message.carrier === 'body' && this.acceptedOnly && !session.legacy) {
      findings.push(error(RULES.httpAcceptedWithBody, '', 'a POST of notifications or responses is answered 202 Accepted with no body; this one has a body'));
    }
    const resuming = headerValue(this.route.requestHeaders, 'last-event-id') !== undefined;
    const members = Array.isArray(value) ? value : [value];
    for (const member of members) {
      const shape = classifyJsonRpc(member);
      const key = shape.kind === 'request' ? `request:${idKey(shape.id)}` : shape.kind === 'response' && shape.id !== undefined ? `response:${idKey(shape.id)}` : undefined;
      if (shape.kind === 'response' && this.route.method === 'GET' && !this.legacyStream && !session.legacy && !resuming) {
        findings.push(error(RULES.httpResponseOnGetStream, '/id', `a response (id ${JSON.stringify(shape.id)}) on the standalone GET stream, which carries server requests and notifications only unless it resumes a stream (Last-Event-ID)`));
      }
      if (key === undefined || resuming) continue;
      const stream = session.delivered.get(key);
      if (stream === undefined) session.delivered.set(key, this);
      else if (stream !== this) {
        findings.push(error(RULES.httpMessageOnTwoStreams, '/id', `the server's ${shape.kind} with id ${JSON.stringify((member as JsonObject).id)} came already on another stream of this session; no message is delivered on two`));
        return { findings, skip: true };
      }
    }
    return { findings };
  }

  /** The result of the tools/list this POST sent, among the server's messages: its tools' annotations. */
  private listed(listing: { id: string; client: string | undefined }, value: unknown, paramHeaders: ParamHeaders): Finding[] {
    for (const member of Array.isArray(value) ? value : [value]) {
      const shape = classifyJsonRpc(member);
      if (shape.kind !== 'response' || shape.id === undefined || shape.id === null || idKey(shape.id) !== listing.id || !isJsonObject(member)) continue;
      this.listing = undefined;
      return shape.hasResult && !shape.hasError ? paramHeaders.listed(listing.client, member.result) : [];
    }
    return [];
  }

  /** A server's answer of status 4xx or 5xx: a JSON-RPC error of no request's id is the transport's refusal, outside the session. */
  private refusal(message: InboundMessage, http: HttpContext): Verdict {
    this.refused = true;
    const id = sessionIdOf(this.route.requestHeaders);
    if (http.status === 404 && id !== undefined && this.route.method !== 'DELETE') this.sessions.end(id);
    const value = message.value;
    const answersOne = isJsonObject(value) && value.id !== null && value.id !== undefined;
    if (answersOne && this.session) return this.session.checker.judge(message);
    return unchecked(`the server refused the request with HTTP ${http.status}: its answer is the transport's, not a message of the session`);
  }
}

/** A notification, or a batch of notifications only. */
function onlyNotifications(value: unknown): boolean {
  const members = Array.isArray(value) ? value : [value];
  return members.length > 0 && members.every((m) => classifyJsonRpc(m).kind === 'notification');
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
  return modernVersionOf(Array.isArray(value) ? value[0] : value) !== undefined;
}

function modernVersionOf(value: unknown): string | undefined {
  const meta = isJsonObject(value) && isJsonObject(value.params) && isJsonObject(value.params._meta) ? value.params._meta[MCP_META_VERSION] : undefined;
  return typeof meta === 'string' && MCP_MODERN_VERSIONS.has(meta) ? meta : undefined;
}

/** Where a 2026-07-28 request names what it calls besides its method: the `Mcp-Name` header's body value. */
const NAMED_BY: Readonly<Record<string, string>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** 2026-07-28: the headers a request repeats from its body must be there and equal it (the server's HeaderMismatch). */
function modernHeaderFindings(value: JsonObject, headers: HeaderMap | undefined): Finding[] {
  const findings: Finding[] = [];
  const mismatch = (header: string, sent: string | undefined, body: string, pointer: string, encoded = false) => {
    if (sent === body) return;
    // Mcp-Name may carry a name that is not plain ASCII in the =?base64?…?= form: compared decoded.
    const decoded = encoded && sent !== undefined ? decodeMirroredHeader(sent) : undefined;
    if (decoded?.ok && decoded.value === body) return;
    const what = sent === undefined ? `has no ${header} header` : `has ${header} '${sent}'${decoded && !decoded.ok ? `, which cannot be read: ${decoded.reason}` : ''}`;
    findings.push(error(RULES.httpHeaderMismatch, pointer, `the request ${what}; its body says '${body}'`));
  };
  const version = modernVersionOf(value);
  if (version !== undefined) mismatch('MCP-Protocol-Version', headerValue(headers, MCP_VERSION_HEADER)?.trim(), version, `/params/_meta/${MCP_META_VERSION.replace(/\//g, '~1')}`);
  if (typeof value.method !== 'string' || !('id' in value)) return findings;
  mismatch('Mcp-Method', headerValue(headers, MCP_METHOD_HEADER)?.trim(), value.method, '/method');
  const field = NAMED_BY[value.method];
  const named = field !== undefined && isJsonObject(value.params) ? value.params[field] : undefined;
  if (typeof named === 'string') mismatch('Mcp-Name', headerValue(headers, 'mcp-name')?.trim(), named, `/params/${field}`, true);
  return findings;
}
