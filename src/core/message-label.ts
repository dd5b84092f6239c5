import { isJsonObject } from './json.js';

/** An exchange's request line and status, as far as known (a stored exchange has nulls). */
export interface HttpLine {
  method?: string | null;
  path?: string | null;
  status?: number | null;
}

/** Where a message sits, as far as its label needs: its channel or carrier, and for a REST body its route. */
export interface LabelPlace {
  channel?: string | null;
  carrier: string;
  sender?: 'client' | 'server';
  /** A REST body's request line and status: names a body with no type of its own. */
  http?: HttpLine;
}

/**
 * The fields that name a message, in the order messageLabel tries them. The SQL that labels stored
 * messages (store/queries/label-sql.ts) is built from this too, so the two cannot drift apart.
 */
export const LABEL_FIELDS = {
  /** The message's own type: `RUN_STARTED`. */
  type: 'type',
  /** Else a frame's kind, with the type of the first of `carried` it holds: `event:agent_start`. */
  kind: 'kind',
  carried: ['event', 'response', 'command'],
  /** Else a JSON-RPC method, an operation or an event name. */
  names: ['method', 'operation', 'event'],
  /** Else a JSON-RPC message: `response` when it has an id, `envelopeLabel` when not. */
  jsonRpc: 'jsonrpc',
  jsonRpcVersion: '2.0',
  id: 'id',
  /**
   * The display label of a JSON-RPC message with neither method nor id: the name of its envelope,
   * whichever protocol's stream it is in (ACP's, plain JSON-RPC's, MCP's). A label, not a protocol
   * id: no module is looked up by it, and it would stay if the JSON-RPC protocol were renamed, as
   * diffs store it and pair messages by it (test/protocols/protocol-names.test.ts admits it here).
   */
  envelopeLabel: 'json-rpc',
} as const;

/**
 * The one short label of a message, the same in `record`'s live lines, `show`, `findings`, `validate`,
 * the inspector and `proxy diff` (which pairs messages by it): the event `type`, else a frame's `kind`
 * (with the event, response or command type inside: `event:agent_start`), a JSON-RPC method, an
 * `operation` or `event` name; a JSON-RPC response is `response`. A REST body with none of these is
 * named by its request line (`POST /v1/session`) or status (`response 202`) when the caller knows
 * them; anything else by the value's type, or the message's channel or carrier when there is no JSON
 * at all. Changing it changes how two recordings align.
 */
export function messageLabel(value: unknown, m: LabelPlace): string {
  return ownLabel(value) ?? placeLabel(value, m);
}

/** messageLabel of a value that names itself by none of LABEL_FIELDS (ownLabel is undefined): its route, its type, or its place. */
export function placeLabel(value: unknown, m: LabelPlace): string {
  const route = m.http && m.carrier === 'body' ? httpLabel(m.sender, m.http) : undefined;
  if (route !== undefined) return route;
  if (value !== undefined) return typeof value;
  return m.channel ?? m.carrier;
}

/** The name a JSON object gives itself (LABEL_FIELDS), or undefined: what messageLabel says first. */
export function ownLabel(value: unknown): string | undefined {
  if (!isJsonObject(value)) return undefined;
  const F = LABEL_FIELDS;
  const type = value[F.type];
  if (typeof type === 'string') return type;
  const kind = value[F.kind];
  if (typeof kind === 'string') {
    const key = F.carried.find((k) => value[k] !== undefined && value[k] !== null);
    const inner = key === undefined ? undefined : value[key];
    return isJsonObject(inner) && typeof inner[F.type] === 'string' ? `${kind}:${inner[F.type] as string}` : kind;
  }
  for (const key of F.names) if (typeof value[key] === 'string') return value[key] as string;
  if (value[F.jsonRpc] === F.jsonRpcVersion) return F.id in value ? 'response' : F.envelopeLabel;
  return undefined;
}

/** A REST body's name from its exchange: the request line for the request, the status for the response. */
export function httpLabel(sender: 'client' | 'server' | undefined, http: HttpLine): string | undefined {
  if (sender === 'server' && http.status != null) return `response ${http.status}`;
  const line = `${http.method ?? ''} ${http.path ?? ''}`.trim();
  return line === '' ? undefined : line;
}
