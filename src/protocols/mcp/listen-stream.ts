import { error, type Finding } from '../../core/finding.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { classifyJsonRpc, idKey, type JsonRpcId } from '../json-rpc/json-rpc-message.js';
import { MCP_RULES as RULES } from './mcp-rules.js';

/** 2026-07-28: the request that opens a subscription stream, and the server's acknowledgment, its first message. */
export const LISTEN_METHOD = 'subscriptions/listen';
export const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';
/** The `_meta` key naming the subscription (the listen request's id) on each message of its stream. */
export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** The notification types a listen request opts in to, by the SubscriptionFilter field that asks for each. */
const OPTED_IN_BY: Readonly<Record<string, string>> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};
const RESOURCE_UPDATED = 'notifications/resources/updated';
/** The notifications a 2026-07-28 server delivers only on a listen stream: the acknowledgment and the types a filter opts in to. */
export const LISTEN_ONLY: ReadonlySet<string> = new Set([ACKNOWLEDGED, ...Object.keys(OPTED_IN_BY), RESOURCE_UPDATED]);

/**
 * The stream answering one `subscriptions/listen` POST (2026-07-28), judged by what its schema
 * says: the server acknowledges the subscription before anything else of it (a notification, or
 * the result that ends it), puts the subscription's id in the `_meta` of every notification it
 * delivers there, and sends only the notification types the client opted in to. Over HTTP each
 * listen has a stream of its own, so every message on it belongs to the subscription.
 */
export class ListenStream {
  private acknowledged = false;

  private constructor(
    private readonly id: JsonRpcId,
    private readonly filter: JsonObject,
  ) {}

  /** The listen stream a POSTed request opens, if it is `subscriptions/listen`. */
  static openedBy(value: unknown): ListenStream | undefined {
    const shape = classifyJsonRpc(value);
    if (shape.kind !== 'request' || shape.method !== LISTEN_METHOD || shape.id === null || !isJsonObject(value)) return undefined;
    const params = isJsonObject(value.params) ? value.params : undefined;
    return new ListenStream(shape.id, isJsonObject(params?.notifications) ? params.notifications : {});
  }

  /** A server message on the stream. An error response (the listen refused) is not the subscription's. */
  judge(value: unknown): Finding[] {
    const shape = classifyJsonRpc(value);
    if (!isJsonObject(value)) return [];
    if (shape.kind === 'response') {
      if (shape.hasError || this.acknowledged) return [];
      return [error(RULES.listenNotAcknowledgedFirst, '', `the result that ends subscription ${JSON.stringify(this.id)} came before notifications/subscriptions/acknowledged; the server acknowledges a subscription before anything else of it`)];
    }
    if (shape.kind !== 'notification') return [];
    const findings: Finding[] = [];
    const params = isJsonObject(value.params) ? value.params : undefined;
    const named = isJsonObject(params?._meta) ? params._meta[SUBSCRIPTION_ID] : undefined;
    if (named === undefined || (typeof named !== 'string' && typeof named !== 'number') || idKey(named) !== idKey(this.id)) {
      const what = named === undefined ? 'has none' : `has ${JSON.stringify(named)}`;
      findings.push(error(RULES.listenSubscriptionId, `/params/_meta`, `a notification on the stream of subscription ${JSON.stringify(this.id)} carries its id in _meta["${SUBSCRIPTION_ID}"]; this one ${what}`));
    }
    if (shape.method === ACKNOWLEDGED) {
      this.acknowledged = true;
      return findings;
    }
    if (!this.acknowledged) {
      findings.push(error(RULES.listenNotAcknowledgedFirst, '/method', `'${shape.method}' came on subscription ${JSON.stringify(this.id)} before notifications/subscriptions/acknowledged; the server sends nothing on a subscription before acknowledging it`));
    }
    const asked = this.asked(shape.method, params);
    if (asked !== undefined) findings.push(error(RULES.listenNotRequested, '/method', `'${shape.method}' came on a listen stream whose client did not ask for it (${asked}); a server sends only the notification types the client opted in to`));
    return findings;
  }

  /** Why a notification was not asked for, or undefined when it was (or is not a type the filter governs). */
  private asked(method: string, params: JsonObject | undefined): string | undefined {
    const field = OPTED_IN_BY[method];
    if (field !== undefined) return this.filter[field] === true ? undefined : `no ${field}: true`;
    if (method !== RESOURCE_UPDATED) return undefined;
    const subscribed = Array.isArray(this.filter.resourceSubscriptions) ? this.filter.resourceSubscriptions : [];
    const uri = params?.uri;
    return typeof uri === 'string' && subscribed.includes(uri) ? undefined : `${JSON.stringify(uri)} is not in its resourceSubscriptions`;
  }
}
