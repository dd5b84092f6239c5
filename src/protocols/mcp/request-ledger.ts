import { error, type Finding } from '../../core/finding.js';
import type { Sender } from '../../core/message.js';
import { formatId, idKey, type JsonRpcId } from '../json-rpc/index.js';
import { MCP_RULES as RULES } from './mcp-rules.js';

const OTHER: Record<Sender, Sender> = { client: 'server', server: 'client' };

/**
 * Ids, cancellations and finished progress tokens remembered per side: past this many, the oldest are
 * forgotten (a session of millions of requests must not hold them all), so reuse of a very old id or
 * token goes unreported. Requests in flight are always kept.
 */
export const LEDGER_MEMORY = 100_000;

/** Sets `key` (as the newest), forgetting past LEDGER_MEMORY the oldest entry `forgettable` allows. */
function remember<K, V>(entries: Map<K, V>, key: K, value: V, forgettable: (value: V) => boolean = () => true): void {
  entries.delete(key);
  entries.set(key, value);
  if (entries.size <= LEDGER_MEMORY) return;
  for (const [oldKey, oldValue] of entries) {
    if (!forgettable(oldValue)) continue;
    entries.delete(oldKey);
    return;
  }
}

/** A progress token's requests and the progress reported for it so far. */
interface TokenState {
  method: string;
  /** Its requests not answered yet: more than one only when a request reused an active token (reported). */
  open: number;
  /** Reused while active: progress cannot be told apart by request, so its order is not judged. */
  shared: boolean;
  last?: number;
}

/**
 * What MCP asks of requests beyond JSON-RPC's correlation, for one session: ids never null and never
 * reused by their sender; cancellation naming a request its sender issued (never `initialize`);
 * progress tokens unique among a sender's active requests, progress only for an active request of
 * the other side, increasing, and none after the response.
 */
export class RequestLedger {
  /** Every id each side used for a request in this session, with its method. */
  private readonly used: Record<Sender, Map<string, string>> = { client: new Map(), server: new Map() };
  /** Requests not answered yet, by sender and id: their progress token's key, if any. */
  private readonly open: Record<Sender, Map<string, string | undefined>> = { client: new Map(), server: new Map() };
  /** Requests their sender cancelled, by sender and id: a receiver need not answer them. */
  private readonly cancelledIds: Record<Sender, Map<string, true>> = { client: new Map(), server: new Map() };
  /** Progress tokens by the side whose requests carry them. */
  private readonly tokens: Record<Sender, Map<string, TokenState>> = { client: new Map(), server: new Map() };

  request(sender: Sender, id: JsonRpcId, method: string, token: unknown): Finding[] {
    const findings: Finding[] = [];
    const key = idKey(id);
    if (id === null) findings.push(error(RULES.nullRequestId, '/id', `request '${method}' has id null; MCP request ids must be a string or an integer`));
    const earlier = this.used[sender].get(key);
    // One still in flight is JSON-RPC's duplicate (jsonrpc-duplicate-request-id); MCP forbids reuse even after the answer.
    if (earlier !== undefined && !this.open[sender].has(key)) {
      findings.push(error(RULES.requestIdReused, '/id', `request id ${formatId(id)} ('${method}') was already used by the ${sender} in this session (for '${earlier}'); MCP ids are never reused within a session`));
    }
    remember(this.used[sender], key, method);
    const tokenKey = progressTokenKey(token);
    if (tokenKey !== undefined) {
      const active = this.tokens[sender].get(tokenKey);
      if (active && active.open > 0) {
        findings.push(error(RULES.progressTokenReused, '/params/_meta/progressToken', `progress token ${tokenKey} is already used by an active '${active.method}' request of the ${sender}; tokens must be unique across active requests`));
        active.open++;
        active.shared = true;
      } else {
        remember(this.tokens[sender], tokenKey, { method, open: 1, shared: false }, (state) => state.open === 0);
      }
    }
    this.open[sender].set(key, tokenKey);
    return findings;
  }

  /** A response from `responder` answered the other side's request `id`. */
  answered(responder: Sender, id: JsonRpcId): void {
    const requester = OTHER[responder];
    const key = idKey(id);
    if (!this.open[requester].has(key)) return;
    const tokenKey = this.open[requester].get(key);
    this.open[requester].delete(key);
    const state = tokenKey === undefined ? undefined : this.tokens[requester].get(tokenKey);
    if (state && state.open > 0 && --state.open === 0) state.shared = false;
  }

  /** The method of the request `sender` sent with this id in this session, if any. */
  methodOf(sender: Sender, id: unknown): string | undefined {
    return typeof id === 'string' || typeof id === 'number' ? this.used[sender].get(idKey(id)) : undefined;
  }

  /** Whether `sender` cancelled its request `id`. */
  wasCancelled(sender: Sender, id: JsonRpcId): boolean {
    return this.cancelledIds[sender].has(idKey(id));
  }

  cancelled(sender: Sender, requestId: unknown): Finding[] {
    const method = this.methodOf(sender, requestId);
    if (method !== undefined) remember(this.cancelledIds[sender], idKey(requestId as JsonRpcId), true);
    if (method === 'initialize') return [error(RULES.cancelInitialize, '/params/requestId', 'the initialize request must not be cancelled')];
    // A request already answered is no finding: the cancellation and the response may cross.
    if (method !== undefined) return [];
    return [error(RULES.cancelUnknownRequest, '/params/requestId', `notifications/cancelled names request ${JSON.stringify(requestId) ?? 'undefined'}, which the ${sender} never sent in this session; a cancellation names a request issued in the same direction`)];
  }

  progress(sender: Sender, token: unknown, progress: unknown): Finding[] {
    const tokenKey = progressTokenKey(token);
    if (tokenKey === undefined) return [];
    const state = this.tokens[OTHER[sender]].get(tokenKey);
    if (state === undefined) {
      return [error(RULES.progressUnknownToken, '/params/progressToken', `progress for token ${tokenKey}, which no request of the ${OTHER[sender]} carries`)];
    }
    if (state.open === 0) return [error(RULES.progressAfterResponse, '/params/progressToken', `progress for token ${tokenKey} after its '${state.method}' request was answered`)];
    if (typeof progress !== 'number') return [];
    const last = state.last;
    state.last = progress;
    if (last !== undefined && !state.shared && !(progress > last)) {
      return [error(RULES.progressNotIncreasing, '/params/progress', `progress ${progress} for token ${tokenKey} is not greater than the previous ${last}; progress must increase with each notification`)];
    }
    return [];
  }
}

/** A progress token (a string or an integer) as a key that keeps `1` and `"1"` apart. */
function progressTokenKey(token: unknown): string | undefined {
  return typeof token === 'string' || typeof token === 'number' ? JSON.stringify(token) : undefined;
}
