import type { MessageRow } from './store-types.js';

/**
 * The message's JSON, also when it nests too deep to be handed out parsed (MessageRow.deepJson):
 * for whoever only writes it on or reads its top (a label, `show --json`, an export), never walks it.
 */
export function messageValue(m: Pick<MessageRow, 'json' | 'deepJson'>): unknown {
  return m.deepJson !== undefined ? JSON.parse(m.deepJson) : m.json;
}
