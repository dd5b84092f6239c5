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
 * The one short label of a message, the same in `record`'s live lines, `show`, `findings`, `validate`,
 * the inspector and `proxy diff` (which pairs messages by it): the event `type`, else a frame's `kind`
 * (with the event, response or command type inside: `event:agent_start`), a JSON-RPC method, an
 * `operation` or `event` name; a JSON-RPC response is `response`. A REST body with none of these is
 * named by its request line (`POST /v1/session`) or status (`response 202`) when the caller knows
 * them; anything else by the value's type, or the message's channel or carrier when there is no JSON
 * at all. Changing it changes how two recordings align.
 */
export function messageLabel(value: unknown, m: LabelPlace): string {
  if (isJsonObject(value)) {
    const r = value;
    if (typeof r.type === 'string') return r.type;
    if (typeof r.kind === 'string') {
      const inner = (r.event ?? r.response ?? r.command) as Record<string, unknown> | undefined;
      if (inner && typeof inner === 'object' && typeof inner.type === 'string') return `${r.kind}:${inner.type}`;
      return r.kind;
    }
    for (const key of ['method', 'operation', 'event']) if (typeof r[key] === 'string') return r[key] as string;
    if (r.jsonrpc === '2.0') return 'id' in r ? 'response' : 'json-rpc';
  }
  const route = m.http && m.carrier === 'body' ? httpLabel(m.sender, m.http) : undefined;
  if (route !== undefined) return route;
  if (value !== undefined) return typeof value;
  return m.channel ?? m.carrier;
}

/** A REST body's name from its exchange: the request line for the request, the status for the response. */
export function httpLabel(sender: 'client' | 'server' | undefined, http: HttpLine): string | undefined {
  if (sender === 'server' && http.status != null) return `response ${http.status}`;
  const line = `${http.method ?? ''} ${http.path ?? ''}`.trim();
  return line === '' ? undefined : line;
}
