/** A JSON-RPC 2.0 request id: the spec allows strings, numbers and (discouraged) null. */
export type JsonRpcId = string | number | null;

/**
 * What a JSON-RPC 2.0 message is, judged from its members alone (JSON-RPC 2.0 §4–§5):
 * a `method` with an `id` is a request, a `method` without one a notification, and a message
 * with `result`, `error` or only an `id` is a response. Anything else is `other`; the envelope
 * schema, not the correlation rules, reports what is wrong with it.
 */
export type JsonRpcShape =
  | { kind: 'request'; id: JsonRpcId; method: string }
  | { kind: 'notification'; method: string }
  | { kind: 'response'; id: JsonRpcId | undefined; hasResult: boolean; hasError: boolean }
  | { kind: 'other' };

export function classifyJsonRpc(value: unknown): JsonRpcShape {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { kind: 'other' };
  const record = value as Record<string, unknown>;
  const hasId = 'id' in record;
  const id = isJsonRpcId(record.id) ? record.id : undefined;
  if (typeof record.method === 'string') {
    if (!hasId) return { kind: 'notification', method: record.method };
    // An id of the wrong type (object, array, boolean) is reported by the envelope schema;
    // the message is still a request and is correlated by its printed form.
    return { kind: 'request', id: id === undefined ? JSON.stringify(record.id) : id, method: record.method };
  }
  if ('method' in record) return { kind: 'other' };
  const hasResult = 'result' in record;
  const hasError = 'error' in record;
  if (hasResult || hasError || hasId) return { kind: 'response', id, hasResult, hasError };
  return { kind: 'other' };
}

export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** A map key that keeps `1` and `"1"` apart, as JSON-RPC does. */
export function idKey(id: JsonRpcId): string {
  return typeof id === 'string' ? `s:${id}` : `v:${String(id)}`;
}

/** The id as it appears on the wire, for messages: `3`, `"abc"`, `null`. */
export function formatId(id: JsonRpcId): string {
  return JSON.stringify(id);
}
