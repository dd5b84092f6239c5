/**
 * A short label for a message row: event type, frame kind (with the event type inside), JSON-RPC
 * method … (the same rule `proxy diff` uses to align messages).
 */
export function messageLabel(value: unknown, m: { channel: string | null; carrier: string }): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const r = value as Record<string, unknown>;
    if (typeof r.kind === 'string') {
      const inner = (r.event ?? r.response ?? r.command) as Record<string, unknown> | undefined;
      if (inner && typeof inner === 'object' && typeof inner.type === 'string') return `${r.kind}:${inner.type}`;
      return r.kind;
    }
    for (const key of ['type', 'method', 'operation', 'event']) if (typeof r[key] === 'string') return r[key] as string;
    if (typeof r.threadId === 'string' && typeof r.runId === 'string' && Array.isArray(r.messages)) return 'RunAgentInput';
    if (r.jsonrpc === '2.0') return 'id' in r ? ('error' in r ? 'error response' : 'response') : 'json-rpc';
    return 'object';
  }
  if (value !== undefined) return typeof value;
  return m.channel ?? m.carrier;
}
