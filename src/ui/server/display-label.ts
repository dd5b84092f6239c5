import { messageLabel } from '../../core/message-label.js';

/**
 * The inspector's label for a message row: the label `proxy diff` aligns by, with two names that
 * help a reader but must not change alignment: an AG-UI RunAgentInput (a plain object to diff), and a
 * JSON-RPC response that carries an error.
 */
export function displayLabel(value: unknown, m: { channel: string | null; carrier: string }): string {
  const label = messageLabel(value, m);
  // Both names are for JSON objects only (null and arrays are labelled 'object' too).
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return label;
  const r = value as Record<string, unknown>;
  if (label === 'object' && typeof r.threadId === 'string' && typeof r.runId === 'string' && Array.isArray(r.messages)) return 'RunAgentInput';
  if (label === 'response' && 'error' in r) return 'error response';
  return label;
}
