import { isJsonObject } from '../../core/json.js';
import { ownLabel, placeLabel } from '../../core/message-label.js';

/** What a label can draw on besides the message itself: its schema and its exchange's request line. */
export interface LabelContext {
  sender: 'client' | 'server';
  schemaRef: string | null;
  method: string | null;
  path: string | null;
  status: number | null;
}

/**
 * The inspector's label for a message row: messageLabel's (the label `proxy diff` aligns by, with its
 * fallback to a body's request line or status), and for a JSON value that names itself by none of
 * its fields, display names that help a reader but must not change alignment: an AG-UI
 * RunAgentInput, or the schema a body was checked against. A JSON-RPC response carrying an error
 * is an `error response`.
 */
export function displayLabel(value: unknown, m: { channel: string | null; carrier: string }, context?: LabelContext): string {
  // messageLabel's two steps, its own name read once: a page labels every message it lists.
  const own = ownLabel(value);
  const label = own ?? placeLabel(value, context ? { channel: m.channel, carrier: m.carrier, sender: context.sender, http: context } : m);
  if (label === 'response' && isJsonObject(value) && 'error' in value) return 'error response';
  // Nameless by its own fields: messageLabel without the route would say only its JSON type, `object`.
  if (value !== null && typeof value === 'object' && (own ?? 'object') === 'object') {
    const r = value as Record<string, unknown>;
    if (!Array.isArray(value) && typeof r.threadId === 'string' && typeof r.runId === 'string' && Array.isArray(r.messages)) return 'RunAgentInput';
    const schema = context && schemaName(context.schemaRef);
    if (schema !== undefined) return schema;
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
