import { messageLabel } from '../../core/message-label.js';

/**
 * The inspector's label for a message row: the label `proxy diff` aligns by, with two names that
 * help a reader but must not change alignment: an AG-UI RunAgentInput (a plain object to diff), and a
 * JSON-RPC response that carries an error.
 */
export function displayLabel(value: unknown, m: { channel: string | null; carrier: string }): string {
  const label = messageLabel(value, m);
  if (label === 'object') {
    const r = value as Record<string, unknown>;
    if (typeof r.threadId === 'string' && typeof r.runId === 'string' && Array.isArray(r.messages)) return 'RunAgentInput';
  }
  if (label === 'response' && 'error' in (value as Record<string, unknown>)) return 'error response';
  return label;
}
