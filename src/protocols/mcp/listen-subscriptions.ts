import { error, type Finding } from '../../core/finding.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { Sender } from '../../core/message.js';
import { idKey, type JsonRpcId } from '../json-rpc/json-rpc-message.js';
import { LISTEN_ONLY, ListenStream, SUBSCRIPTION_ID } from './listen-stream.js';
import { MCP_RULES as RULES } from './mcp-rules.js';

/** Listen requests remembered per session; past this, the oldest are forgotten. */
const MAX_REMEMBERED = 10_000;

/**
 * The `subscriptions/listen` subscriptions of one 2026-07-28 stdio session. Over stdio every
 * subscription shares the one channel: each notification of a subscription names it by
 * `_meta["io.modelcontextprotocol/subscriptionId"]` (the listen request's id), and is judged by that
 * subscription's ListenStream (acknowledged first, only what it asked for). A subscription ends by
 * the client's `notifications/cancelled`, by the server's (its teardown, the one cancellation a
 * server may send), or by its result. A message for a subscription once ended is not judged: it may
 * have crossed the cancellation. A listen still open when the session ends is no unanswered request:
 * it lives until the transport closes.
 */
export class ListenSubscriptions {
  private readonly open = new Map<string, ListenStream>();
  /** Every listen request's id key this session: open, then ended. */
  private readonly listens = new Set<string>();

  /** A client request: a listen opens its subscription. */
  request(value: unknown): void {
    const stream = ListenStream.openedBy(value);
    if (stream === undefined || !isJsonObject(value)) return;
    const key = idKey(value.id as JsonRpcId);
    this.open.set(key, stream);
    remember(this.listens, key);
  }

  /** A server notification: judged by the subscription it names; one that only a listen stream carries, without a name, is a finding. */
  notification(method: string, value: JsonObject): Finding[] {
    const params = isJsonObject(value.params) ? value.params : undefined;
    const named = isJsonObject(params?._meta) ? params._meta[SUBSCRIPTION_ID] : undefined;
    if (typeof named === 'string' || typeof named === 'number') {
      const stream = this.open.get(idKey(named));
      if (stream !== undefined) return stream.judge(value);
      if (this.listens.has(idKey(named))) return [];
      return [error(RULES.listenSubscriptionId, '/params/_meta', `'${method}' names subscription ${JSON.stringify(named)}, which no subscriptions/listen of the client opened; a subscription's id is its listen request's`)];
    }
    if (!LISTEN_ONLY.has(method)) return [];
    if (this.open.size === 0) {
      return [error(RULES.listenNotRequested, '/method', `'${method}' came, but the client has no subscriptions/listen open; in MCP 2026-07-28 a server sends it only on a subscription that asked for it`)];
    }
    const what = named === undefined ? 'has none' : `has ${JSON.stringify(named)}`;
    return [error(RULES.listenSubscriptionId, '/params/_meta', `'${method}' is delivered only on a subscriptions/listen stream, and over stdio carries its subscription's id in _meta["${SUBSCRIPTION_ID}"]; this one ${what}`)];
  }

  /** The server's response to the client's request `id`: a listen's result ends its subscription. */
  response(id: JsonRpcId, value: unknown): Finding[] {
    const stream = this.open.get(idKey(id));
    if (stream === undefined) return [];
    this.open.delete(idKey(id));
    return stream.judge(value);
  }

  /** `notifications/cancelled` naming `requestId`: whether it names a listen of the client (which ends it). */
  cancelled(requestId: unknown): boolean {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return false;
    const key = idKey(requestId);
    if (!this.listens.has(key)) return false;
    this.open.delete(key);
    return true;
  }

  /** Whether the client's request `id` was a listen (a request that is not answered while its subscription lives). */
  isListen(sender: Sender, id: JsonRpcId): boolean {
    return sender === 'client' && id !== null && this.listens.has(idKey(id));
  }
}

function remember(keys: Set<string>, key: string): void {
  keys.delete(key);
  keys.add(key);
  if (keys.size > MAX_REMEMBERED) keys.delete(keys.values().next().value!);
}
