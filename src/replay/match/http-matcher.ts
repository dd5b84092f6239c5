import { replayHintsOf } from '../../protocols/catalog.js';
import type { ProtocolId } from '../../protocols/catalog.js';
import { jsonDifferences } from '../../match/normalize.js';
import type { ReplayMiss } from '../replay-context.js';
import { requestBodyOf, type ScriptExchange } from '../replay-script.js';
import { reportedRequest } from '../miss-report.js';
import { maskQuery, redactedQueryNames, RedactionMask } from '../../match/redacted-values.js';
import { BodyIdentifier, parseJsonBody, type BodyIdentity } from '../http/request-body.js';
import { bodyEcho } from '../http/request-limits.js';
import { segmentDistance } from '../../match/path-similarity.js';

/** A request as it arrived at the replay, body read in full. */
export interface LiveRequest {
  method: string;
  path: string;
  /** Query string without `?`; '' when there is none. */
  query: string;
  body: Buffer;
}

export type MatchResult =
  /** `redacted`: how many of the request's values matched a redacted recorded value (query parameters, body fields). */
  | { kind: 'hit'; exchange: ScriptExchange; reused: boolean; redacted: number }
  | { kind: 'miss'; miss: Omit<ReplayMiss, 'transport' | 'action'> };

/** The recorded answers for one key, handed out in order. */
interface AnswerQueue {
  exchanges: ScriptExchange[];
  next: number;
}

/** The recorded exchanges of one route and protocol: by body key, and where their bodies were redacted. */
interface BodyGroup {
  mask: RedactionMask;
  byBody: Map<string, AnswerQueue>;
}

interface Candidate {
  exchange: ScriptExchange;
  /** The route template of its path, when its protocol has route templates. */
  template: string | undefined;
  /** The recorded query, with the parameters redacted on its method and path masked. */
  query: string;
  group: BodyGroup;
  body: BodyIdentity;
}

/**
 * Matches live HTTP requests to recorded exchanges by method, path, query and normalized body.
 * Identical requests take the recorded answers in recorded order (FIFO per key); with `reuse`, a
 * key whose answers are used up keeps serving its last one. Matching is synchronous, so concurrent
 * requests claim answers strictly in the order they finished arriving.
 *
 * A value the recording redacted matches any live value: a query parameter redacted in any recorded
 * request of a method and path is masked (set to the marker) in every request to it, recorded or
 * live; body fields likewise per route and protocol.
 */
export class HttpMatcher {
  private readonly candidates: Candidate[] = [];
  /** `METHOD path` → names of the query parameters recorded redacted there. */
  private readonly redactedParams = new Map<string, Set<string>>();
  /** route (`METHOD path?masked query`) → protocol → its exchanges. */
  private readonly routes = new Map<string, Map<ProtocolId | undefined, BodyGroup>>();
  private readonly identifiers = new Map<ProtocolId | undefined, BodyIdentifier>();

  constructor(
    exchanges: readonly ScriptExchange[],
    private readonly ignore: readonly string[],
    private readonly reuse: boolean,
  ) {
    for (const exchange of exchanges) {
      const names = redactedQueryNames(exchange.query ?? '');
      if (names.length === 0) continue;
      const at = pathKey(exchange.method ?? 'GET', exchange.path ?? '/');
      let set = this.redactedParams.get(at);
      if (!set) this.redactedParams.set(at, (set = new Set()));
      for (const name of names) set.add(name);
    }
    // First every group's mask (from all its recorded bodies), then the keys, masked alike.
    const placed = exchanges.map((exchange) => {
      const method = exchange.method ?? 'GET';
      const path = exchange.path ?? '/';
      const query = this.maskedQuery(method, path, exchange.query ?? '').query;
      const route = routeKey(method, path, query);
      let byProtocol = this.routes.get(route);
      if (!byProtocol) this.routes.set(route, (byProtocol = new Map()));
      let group = byProtocol.get(exchange.protocol);
      if (!group) byProtocol.set(exchange.protocol, (group = { mask: new RedactionMask(), byBody: new Map() }));
      const raw = requestBodyOf(exchange)?.raw;
      this.identifier(exchange.protocol).addRedacted(group.mask, raw);
      return { exchange, query, group, raw };
    });
    for (const { exchange, query, group, raw } of placed) {
      const body = this.identifier(exchange.protocol).identify(raw, group.mask);
      this.candidates.push({ exchange, query, group, body, template: routeTemplateOf(exchange.protocol, exchange.method ?? 'GET', exchange.path ?? '/') });
      let queue = group.byBody.get(body.key);
      if (!queue) group.byBody.set(body.key, (queue = { exchanges: [], next: 0 }));
      queue.exchanges.push(exchange);
    }
  }

  /**
   * Claims the next recorded answer for the request, or explains the miss. With `claim` false it
   * only says which answer that would be (a status fault answers in its place and leaves it for the next request).
   */
  match(request: LiveRequest, claim = true): MatchResult {
    const query = this.maskedQuery(request.method, request.path, request.query);
    const byProtocol = this.routes.get(routeKey(request.method, request.path, query.query));
    // A route's exchanges may come from different protocols; each normalizes the body its own way.
    for (const [protocol, group] of byProtocol ?? []) {
      const body = this.identifier(protocol).identify(request.body, group.mask);
      const queue = group.byBody.get(body.key);
      if (!queue) continue;
      const redacted = query.masked + body.masked;
      if (queue.next < queue.exchanges.length) return { kind: 'hit', exchange: queue.exchanges[claim ? queue.next++ : queue.next], reused: false, redacted };
      const last = queue.exchanges[queue.exchanges.length - 1];
      if (this.reuse) return { kind: 'hit', exchange: last, reused: true, redacted };
      return { kind: 'miss', miss: { reason: 'exhausted', request: describeRequest(request), nearest: nearestOf(last), differences: [] } };
    }
    return { kind: 'miss', miss: this.explain(request) };
  }

  /** The query with the parameters redacted on this method and path masked; the input when there are none. */
  private maskedQuery(method: string, path: string, query: string): { query: string; masked: number } {
    const names = this.redactedParams.get(pathKey(method, path));
    return names ? maskQuery(query, names) : { query, masked: 0 };
  }

  /** The recorded exchange most like the request, and what differs. */
  private explain(request: LiveRequest): Omit<ReplayMiss, 'transport' | 'action'> {
    let best: { exchange: ScriptExchange; differences: string[]; score: number } | undefined;
    const live = new Map<BodyGroup, BodyIdentity>();
    const liveBody = (protocol: ProtocolId | undefined, group: BodyGroup) => {
      let identity = live.get(group);
      if (!identity) live.set(group, (identity = this.identifier(protocol).identify(request.body, group.mask)));
      return identity;
    };
    const liveTemplates = new Map<ProtocolId | undefined, string | undefined>();
    const liveTemplate = (protocol: ProtocolId | undefined) => {
      if (!liveTemplates.has(protocol)) liveTemplates.set(protocol, routeTemplateOf(protocol, request.method, request.path));
      return liveTemplates.get(protocol);
    };
    for (const { exchange, query, group, body, template } of this.candidates) {
      const differences: string[] = [];
      const method = exchange.method ?? 'GET';
      const path = exchange.path ?? '/';
      if (method !== request.method) differences.push('method');
      if (path !== request.path) differences.push('path');
      // Masked with the recorded request's method and path: only its redacted parameters match any value.
      const queryDiffers = query !== this.maskedQuery(method, path, request.query).query;
      if (queryDiffers) differences.push('query');
      const fields = bodyDifferences(body, liveBody(exchange.protocol, group));
      differences.push(...fields);
      // Method and path say most about which exchange was meant: the same route (template) first, then
      // the path with the fewest differing segments; then the query; the body's fields the least.
      const sameRoute = template !== undefined && template === liveTemplate(exchange.protocol);
      const pathScore = path === request.path ? 0 : (sameRoute ? 0 : 100) + 10 * segmentDistance(path, request.path);
      const score = (method !== request.method ? 1000 : 0) + pathScore + (queryDiffers ? 5 : 0) + Math.min(fields.length, 4);
      if (!best || score < best.score) best = { exchange, differences, score };
    }
    return {
      reason: 'no-match',
      request: describeRequest(request),
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

/** The route template of a path under a protocol's routes (`/v1/session/{sessionRef}`), if it has them. */
function routeTemplateOf(protocol: ProtocolId | undefined, method: string, path: string): string | undefined {
  return protocol === undefined ? undefined : replayHintsOf(protocol)?.routeTemplate?.(method, path);
}

function routeKey(method: string, path: string, query: string): string {
  return `${method.toUpperCase()} ${path}?${query}`;
}

function pathKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

function nearestOf(exchange: ScriptExchange): ReplayMiss['nearest'] {
  return { exchangeId: exchange.id, method: exchange.method, path: exchange.path };
}

/** What came in, for the miss report: the body (as JSON when it is short JSON) cut to a few KiB, and its size; secrets redacted. */
export function describeRequest(request: LiveRequest): ReplayMiss['request'] {
  return reportedRequest({ method: request.method, path: request.path, query: request.query, ...bodyEcho(request.body, parseJsonBody) });
}
