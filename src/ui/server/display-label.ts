import { messageLabel } from '../../core/message-label.js';

/** What a label can draw on besides the message itself: its schema and its exchange's request line. */
export interface LabelContext {
  sender: 'client' | 'server';
  schemaRef: string | null;
  method: string | null;
  path: string | null;
  status: number | null;
}

/**
 * The inspector's label for a message row: the label `proxy diff` aligns by, with names that help a
 * reader but must not change alignment: an AG-UI RunAgentInput, a JSON-RPC response that carries an
 * error, and for a JSON body that has no type of its own (a REST request or response) the schema
 * it was checked against, else its request line (`POST /v1/session`) or status (`response 202`).
 */
export function displayLabel(value: unknown, m: { channel: string | null; carrier: string }, context?: LabelContext): string {
  const label = messageLabel(value, m);
  if (value === null || typeof value !== 'object') return label;
  const r = value as Record<string, unknown>;
  if (label === 'response' && 'error' in r) return 'error response';
  if (label !== 'object') return label;
  if (!Array.isArray(value) && typeof r.threadId === 'string' && typeof r.runId === 'string' && Array.isArray(r.messages)) return 'RunAgentInput';
  if (context === undefined) return label;
  const schema = schemaName(context.schemaRef);
  if (schema !== undefined) return schema;
  if (m.carrier === 'body') {
    if (context.sender === 'client' && (context.method !== null || context.path !== null)) return `${context.method ?? ''} ${context.path ?? ''}`.trim();
    if (context.sender === 'server' && context.status !== null) return `response ${context.status}`;
  }
  return label;
}

/** `…schema.json#/$defs/sessionCreateRequest` or `…#sessionCreateRequest` → `sessionCreateRequest`. */
function schemaName(ref: string | null): string | undefined {
  if (ref === null) return undefined;
  const fragment = ref.slice(ref.indexOf('#') + 1);
  if (ref.indexOf('#') === -1 || fragment === '') return undefined;
  const name = decodeURIComponent(fragment.slice(fragment.lastIndexOf('/') + 1));
  return name === '' ? undefined : name;
}
