import { REPLAY_FACTS, type ProtocolId } from '../../protocols/catalog.js';
import type { SessionHints } from '../../protocols/protocol.js';
import { headerValue } from '../../core/header-value.js';
import { SseFields } from '../../framing/sse-fields.js';
import { requestBodyOf, serverMessagesOf, type ScriptExchange, type ScriptMessage } from '../replay-script.js';

/**
 * One recorded session of a protocol that spreads a conversation over many HTTP requests (MCP's
 * Streamable HTTP and HTTP+SSE): the exchange that opened it and every later one that named it.
 */
export interface RecordedSession {
  protocol: ProtocolId;
  hints: SessionHints;
  /** The session id the recorded server issued; '' when it issued none (a stateless server). */
  id: string;
  /** Where requests name it: the session header, or the query of the URL a legacy `endpoint` event gave. */
  via: 'header' | 'query';
  /** The exchange that opened it (`initialize`, or the legacy `GET /sse`). */
  opener: ScriptExchange;
  /** Its exchanges in recorded order, the opener first, each labelled with the session's protocol. */
  exchanges: ScriptExchange[];
}

/** A protocol's session hints, by id. */
const SESSION_HINTS: ReadonlyArray<{ protocol: ProtocolId; hints: SessionHints }> = REPLAY_FACTS.flatMap((facts) => (facts.replay?.sessions ? [{ protocol: facts.id, hints: facts.replay.sessions }] : []));

/** Whether any protocol has HTTP sessions (else a replay need not look for them). */
export function anySessionProtocol(): boolean {
  return SESSION_HINTS.length > 0;
}

/** The protocols whose sessions an exchange of `protocol` may belong to: its own, or any when it is unlabelled. */
function hintsFor(protocol: ProtocolId | undefined): ReadonlyArray<{ protocol: ProtocolId; hints: SessionHints }> {
  return protocol === undefined ? SESSION_HINTS : SESSION_HINTS.filter((entry) => entry.protocol === protocol);
}

/**
 * Splits HTTP exchanges into the recorded sessions they belong to and the rest. A session opens with
 * a request its protocol says opens one (its answer issues the id in the session header), or with a
 * GET answered by the `endpoint` event (the id in the posting URL's query); later exchanges join it
 * by naming that id. Where the server issued no id, the exchanges after an opener that name none
 * join the latest such session.
 */
export function planSessions(exchanges: readonly ScriptExchange[]): { sessions: RecordedSession[]; rest: ScriptExchange[] } {
  const sessions: RecordedSession[] = [];
  const rest: ScriptExchange[] = [];
  const byHeader = new Map<string, RecordedSession>();
  const byQuery = new Map<string, RecordedSession>();
  let unnamed: RecordedSession | undefined;
  for (const exchange of exchanges) {
    const session = place(exchange);
    if (session) session.exchanges.push(session.protocol === exchange.protocol ? exchange : { ...exchange, protocol: session.protocol });
    else rest.push(exchange);
  }
  return { sessions, rest };

  function place(exchange: ScriptExchange): RecordedSession | undefined {
    for (const { protocol, hints } of hintsFor(exchange.protocol)) {
      const named = headerValue(exchange.requestHeaders, hints.header);
      if (named !== undefined) return byHeader.get(named);
      const inQuery = queryValues(exchange.query).find((value) => byQuery.has(value));
      if (inQuery !== undefined) return byQuery.get(inQuery);
      const body = requestBodyOf(exchange)?.json;
      if (body !== undefined && hints.opens(body)) {
        const id = headerValue(exchange.responseHeaders, hints.header) ?? '';
        const session = open({ protocol, hints, id, via: 'header', opener: exchange, exchanges: [] });
        if (id !== '') byHeader.set(id, session);
        unnamed = id === '' ? session : undefined;
        return session;
      }
      const endpoint = hints.endpointEvent === undefined ? undefined : endpointSessionOf(exchange, hints.endpointEvent);
      if (endpoint !== undefined) {
        const session = open({ protocol, hints, id: endpoint, via: 'query', opener: exchange, exchanges: [] });
        byQuery.set(endpoint, session);
        return session;
      }
      if (unnamed && unnamed.protocol === protocol && body !== undefined) return unnamed;
    }
    return undefined;
  }

  function open(session: RecordedSession): RecordedSession {
    sessions.push(session);
    return session;
  }
}

/**
 * A recorded GET resuming a session's stream after `Last-Event-ID`. A client resumes only where a
 * stream was cut, which is a matter of timing (a server ending its stream as the client closes): a
 * replay serves it when asked, but never counts it unused.
 */
export function isSessionResumption(exchange: ScriptExchange): boolean {
  return exchange.method === 'GET' && headerValue(exchange.requestHeaders, 'last-event-id') !== undefined && hintsFor(exchange.protocol).length > 0;
}

/** The values of a query string's parameters. */
export function queryValues(query: string | null | undefined): string[] {
  if (!query) return [];
  return [...new URLSearchParams(query).values()];
}

/** The fields of a recorded SSE message (`event`, `data`, `id`), or undefined when it is not one. */
export function sseFieldsOf(message: ScriptMessage): { event?: string; data?: string; id?: string } | undefined {
  if (message.carrier !== 'event') return undefined;
  const fields = new SseFields();
  for (const line of message.raw.toString('utf8').split(/\r\n|\r|\n/)) if (line !== '') fields.read(Buffer.from(line));
  return fields.take();
}

/** The session a legacy stream's first event names: a value of the query of the URL its `endpoint` event gives. */
function endpointSessionOf(exchange: ScriptExchange, event: string): string | undefined {
  if (exchange.method !== 'GET') return undefined;
  const first = serverMessagesOf(exchange).find((m) => m.channel !== 'comment');
  const fields = first === undefined ? undefined : sseFieldsOf(first);
  if (fields?.event !== event || fields.data === undefined) return undefined;
  const queryAt = fields.data.indexOf('?');
  return queryAt < 0 ? undefined : queryValues(fields.data.slice(queryAt + 1))[0];
}
