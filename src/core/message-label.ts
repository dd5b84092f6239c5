import { isJsonObject } from './json.js';

/**
 * The short label `proxy diff` pairs messages by, and the inspector builds its labels on: the event
 * type, a frame's kind (with the event type inside), a JSON-RPC method, or for anything else the
 * value's type, or the message's channel or carrier when there is no JSON at all. Changing it changes
 * how two recordings align.
 */
export function messageLabel(value: unknown, m: { channel: string | null; carrier: string }): string {
  if (isJsonObject(value)) {
    const r = value;
    if (typeof r.kind === 'string') {
      const inner = (r.event ?? r.response ?? r.command) as Record<string, unknown> | undefined;
      if (inner && typeof inner === 'object' && typeof inner.type === 'string') return `${r.kind}:${inner.type}`;
      return r.kind;
    }
    for (const key of ['type', 'method', 'operation', 'event']) if (typeof r[key] === 'string') return r[key] as string;
    if (r.jsonrpc === '2.0') return 'id' in r ? 'response' : 'json-rpc';
    return 'object';
  }
  if (value !== undefined) return typeof value;
  return m.channel ?? m.carrier;
}
