import { offeredProtocols } from '../../net/ws-limits.js';
import type { ReplayMiss } from '../replay-context.js';
import { reportedRequest } from '../miss-report.js';
import { maskQuery, redactedQueryNames } from '../../match/redacted-values.js';
import { segmentDistance } from '../../match/path-similarity.js';
import type { ScriptExchange } from '../replay-script.js';

/** A WebSocket upgrade as it arrived at the replay. */
export interface LiveUpgrade {
  path: string;
  /** Query string without `?`; '' when there is none. */
  query: string;
  /** The subprotocols the client offered, in its order. */
  offered: string[];
}

export type UpgradeMatch =
  /** `redacted`: how many of the upgrade's query parameters matched a redacted recorded value. */
  | { kind: 'hit'; exchange: ScriptExchange; reused: boolean; redacted: number }
  | { kind: 'miss'; miss: Omit<ReplayMiss, 'transport' | 'action'> };

interface Candidate {
  exchange: ScriptExchange;
  /** The recorded query, with the parameters redacted on its path masked. */
  query: string;
  /** What the recorded client offered (from its Sec-WebSocket-Protocol header). */
  offered: string[];
  claimed: boolean;
}

/**
 * Matches live upgrades to recorded WebSocket connections (accepted and refused) by path, query and
 * subprotocol. Connections with the same route are handed out in recorded order, each once; with
 * `reuse`, a route whose connections are used up serves its last one again.
 *
 * The subprotocol fits when the live client offers the one the recording negotiated. A connection
 * that negotiated none (a refusal such as a 426, or a server without subprotocols) fits an offer of
 * exactly the same subprotocols, since that offer is what decided its fate.
 *
 * A query parameter the recording redacted on a path (`access_token=%3Credacted%3E`) matches any live
 * value: it is masked in every upgrade to that path, recorded or live.
 */
export class WsUpgradeMatcher {
  private readonly routes = new Map<string, Candidate[]>();
  private readonly all: Candidate[] = [];
  /** path → names of the query parameters recorded redacted there. */
  private readonly redactedParams = new Map<string, Set<string>>();

  constructor(
    exchanges: readonly ScriptExchange[],
    private readonly reuse: boolean,
  ) {
    for (const exchange of exchanges) {
      const names = redactedQueryNames(exchange.query ?? '');
      if (names.length === 0) continue;
      let set = this.redactedParams.get(exchange.path ?? '/');
      if (!set) this.redactedParams.set(exchange.path ?? '/', (set = new Set()));
      for (const name of names) set.add(name);
    }
    for (const exchange of exchanges) {
      const query = this.maskedQuery(exchange.path ?? '/', exchange.query ?? '').query;
      const candidate = { exchange, query, offered: recordedOffer(exchange), claimed: false };
      this.all.push(candidate);
      const key = routeKey(exchange.path ?? '/', query);
      const route = this.routes.get(key);
      if (route) route.push(candidate);
      else this.routes.set(key, [candidate]);
    }
  }

  /**
   * Claims the next recorded connection for the upgrade, or explains the miss. Synchronous, so
   * concurrent upgrades claim in arrival order. `claim: false` only looks: the connection stays for
   * the next upgrade (one refused by an injected status).
   */
  match(live: LiveUpgrade, { claim = true }: { claim?: boolean } = {}): UpgradeMatch {
    const query = this.maskedQuery(live.path, live.query);
    const fitting = (this.routes.get(routeKey(live.path, query.query)) ?? []).filter((c) => fits(c, live.offered));
    const next = fitting.find((c) => !c.claimed);
    if (next) {
      if (claim) next.claimed = true;
      return { kind: 'hit', exchange: next.exchange, reused: false, redacted: query.masked };
    }
    const last = fitting.at(-1);
    if (last && this.reuse) return { kind: 'hit', exchange: last.exchange, reused: true, redacted: query.masked };
    if (last) return { kind: 'miss', miss: { reason: 'exhausted', request: describe(live), nearest: nearestOf(last.exchange), differences: [] } };
    return { kind: 'miss', miss: this.explain(live) };
  }

  /** The query with the parameters redacted on this path masked; the input when there are none. */
  private maskedQuery(path: string, query: string): { query: string; masked: number } {
    const names = this.redactedParams.get(path);
    return names ? maskQuery(query, names) : { query, masked: 0 };
  }

  /** The recorded connection most like the upgrade, and what differs. */
  private explain(live: LiveUpgrade): Omit<ReplayMiss, 'transport' | 'action'> {
    let best: { candidate: Candidate; differences: string[]; score: number } | undefined;
    for (const candidate of this.all) {
      const differences: string[] = [];
      if ((candidate.exchange.path ?? '/') !== live.path) differences.push('path');
      if (candidate.query !== this.maskedQuery(candidate.exchange.path ?? '/', live.query).query) differences.push('query');
      if (!fits(candidate, live.offered)) differences.push('subprotocol');
      // The path says most (the fewer segments differ, the nearer), then the query, then the subprotocol.
      const path = candidate.exchange.path ?? '/';
      const score = (path === live.path ? 0 : 100 + 10 * segmentDistance(path, live.path)) + (differences.includes('query') ? 5 : 0) + (differences.includes('subprotocol') ? 1 : 0);
      if (!best || score < best.score) best = { candidate, differences, score };
    }
    return {
      reason: 'no-match',
      request: describe(live),
      ...(best ? { nearest: nearestOf(best.candidate.exchange), differences: best.differences } : { differences: [] }),
    };
  }
}

function fits(candidate: Candidate, offered: readonly string[]): boolean {
  const chosen = candidate.exchange.subprotocol;
  if (chosen) return offered.includes(chosen);
  return offered.length === candidate.offered.length && offered.every((p) => candidate.offered.includes(p));
}

function recordedOffer(exchange: ScriptExchange): string[] {
  for (const [name, value] of Object.entries(exchange.requestHeaders ?? {})) {
    if (name.toLowerCase() !== 'sec-websocket-protocol') continue;
    return offeredProtocols(Array.isArray(value) ? value.join(', ') : value);
  }
  return [];
}

function routeKey(path: string, query: string): string {
  return `${path}?${query}`;
}

function nearestOf(exchange: ScriptExchange): ReplayMiss['nearest'] {
  return { exchangeId: exchange.id, method: exchange.method, path: exchange.path };
}

function describe(live: LiveUpgrade): ReplayMiss['request'] {
  return reportedRequest({ method: 'GET', path: live.path, query: live.query, ...(live.offered.length > 0 ? { body: { subprotocols: live.offered } } : {}) });
}
