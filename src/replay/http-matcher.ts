import type { ProtocolId } from '../protocols/protocol.js';
import { jsonDifferences } from './normalize.js';
import type { ReplayMiss } from './replay-context.js';
import { requestBodyOf, type ScriptExchange } from './replay-script.js';
import { BodyIdentifier, parseJsonBody, type BodyIdentity } from './request-body.js';
import { bodyEcho } from './request-limits.js';

/** A request as it arrived at the replay, body read in full. */
export interface LiveRequest {
  method: string;
  path: string;
  /** Query string without `?`; '' when there is none. */
  query: string;
  body: Buffer;
}

export type MatchResult =
  | { kind: 'hit'; exchange: ScriptExchange; reused: boolean }
  | { kind: 'miss'; miss: Omit<ReplayMiss, 'transport' | 'action'> };

/** The recorded answers for one key, handed out in order. */
interface AnswerQueue {
  exchanges: ScriptExchange[];
  next: number;
}

interface Candidate {
  exchange: ScriptExchange;
  body: BodyIdentity;
}

/**
 * Matches live HTTP requests to recorded exchanges by method, path, query and normalized body.
 * Identical requests take the recorded answers in recorded order (FIFO per key); with `reuse`, a
 * key whose answers are used up keeps serving its last one. Matching is synchronous, so concurrent
 * requests claim answers strictly in the order they finished arriving.
 */
export class HttpMatcher {
  private readonly candidates: Candidate[] = [];
  /** route (`METHOD path?query`) → protocol → body key → answers. */
  private readonly routes = new Map<string, Map<ProtocolId | undefined, Map<string, AnswerQueue>>>();
  private readonly identifiers = new Map<ProtocolId | undefined, BodyIdentifier>();

  constructor(
    exchanges: readonly ScriptExchange[],
    private readonly ignore: readonly string[],
    private readonly reuse: boolean,
  ) {
    for (const exchange of exchanges) {
      const body = this.identifier(exchange.protocol).recorded(requestBodyOf(exchange)?.raw);
      this.candidates.push({ exchange, body });
      const route = routeKey(exchange.method ?? 'GET', exchange.path ?? '/', exchange.query ?? '');
      let byProtocol = this.routes.get(route);
      if (!byProtocol) this.routes.set(route, (byProtocol = new Map()));
      let byBody = byProtocol.get(exchange.protocol);
      if (!byBody) byProtocol.set(exchange.protocol, (byBody = new Map()));
      let queue = byBody.get(body.key);
      if (!queue) byBody.set(body.key, (queue = { exchanges: [], next: 0 }));
      queue.exchanges.push(exchange);
    }
  }

  /** Claims the next recorded answer for the request, or explains the miss. */
  match(request: LiveRequest): MatchResult {
    const byProtocol = this.routes.get(routeKey(request.method, request.path, request.query));
    // A route's exchanges may come from different protocols; each normalizes the body its own way.
    for (const [protocol, byBody] of byProtocol ?? []) {
      const queue = byBody.get(this.identifier(protocol).live(request.body).key);
      if (!queue) continue;
      if (queue.next < queue.exchanges.length) return { kind: 'hit', exchange: queue.exchanges[queue.next++], reused: false };
      const last = queue.exchanges[queue.exchanges.length - 1];
      if (this.reuse) return { kind: 'hit', exchange: last, reused: true };
      return { kind: 'miss', miss: { reason: 'exhausted', request: describe(request), nearest: nearestOf(last), differences: [] } };
    }
    return { kind: 'miss', miss: this.explain(request) };
  }

  /** The recorded exchange most like the request, and what differs. */
  private explain(request: LiveRequest): Omit<ReplayMiss, 'transport' | 'action'> {
    let best: { exchange: ScriptExchange; differences: string[]; score: number } | undefined;
    const live = new Map<ProtocolId | undefined, BodyIdentity>();
    const liveBody = (protocol: ProtocolId | undefined) => {
      let identity = live.get(protocol);
      if (!identity) live.set(protocol, (identity = this.identifier(protocol).live(request.body)));
      return identity;
    };
    for (const { exchange, body } of this.candidates) {
      const differences: string[] = [];
      if ((exchange.method ?? 'GET') !== request.method) differences.push('method');
      if ((exchange.path ?? '/') !== request.path) differences.push('path');
      if ((exchange.query ?? '') !== request.query) differences.push('query');
      differences.push(...bodyDifferences(body, liveBody(exchange.protocol)));
      // Method and path say most about which exchange was meant; the body's fields the least.
      const score = differences.reduce((sum, d) => sum + (d === 'method' || d === 'path' ? 100 : d === 'query' ? 10 : 1), 0);
      if (!best || score < best.score) best = { exchange, differences, score };
    }
    return {
      reason: 'no-match',
      request: describe(request),
      ...(best ? { nearest: nearestOf(best.exchange), differences: best.differences } : { differences: [] }),
    };
  }

  private identifier(protocol: ProtocolId | undefined): BodyIdentifier {
    let identifier = this.identifiers.get(protocol);
    if (!identifier) this.identifiers.set(protocol, (identifier = new BodyIdentifier(protocol, this.ignore)));
    return identifier;
  }
}

function bodyDifferences(recorded: BodyIdentity, live: BodyIdentity): string[] {
  if (recorded.key === live.key) return [];
  if (recorded.normalized !== undefined && live.normalized !== undefined) return jsonDifferences(recorded.normalized, live.normalized);
  return ['body'];
}

function routeKey(method: string, path: string, query: string): string {
  return `${method.toUpperCase()} ${path}?${query}`;
}

function nearestOf(exchange: ScriptExchange): ReplayMiss['nearest'] {
  return { exchangeId: exchange.id, method: exchange.method, path: exchange.path };
}

/** What came in, for the miss report: the body (as JSON when it is short JSON) cut to a few KiB, and its size. */
function describe(request: LiveRequest): ReplayMiss['request'] {
  return { method: request.method, path: request.path, query: request.query, ...bodyEcho(request.body, parseJsonBody) };
}
