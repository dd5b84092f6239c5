import type { MessageRow } from './store-types.js';

/**
 * The message's JSON, also when it nests too deep to be handed out parsed (MessageRow.deepJson):
 * for whoever only writes it on or reads its top (a label, `show --json`, an export), never walks it.
 */
export function messageValue(m: Pick<MessageRow, 'json' | 'deepJson'>): unknown {
  if (m.deepJson === undefined) return m.json;
  const kept = parsedDeep.get(m);
  if (kept === undefined) return JSON.parse(m.deepJson);
  // Handed out once, as a parse of its own would be: whoever takes it may keep or change it.
  parsedDeep.delete(m);
  return kept.value;
}

/**
 * The value a deep message's text was parsed into when its row was read (the reader parses every
 * stored text, to report a damaged one): the first messageValue of the row takes it instead of
 * parsing the text again, which for 100,000 levels costs tens of milliseconds and as much garbage.
 */
const parsedDeep = new WeakMap<object, { value: unknown }>();

/** Keeps `value`, the parse of `row.deepJson`, for the row's first messageValue; returns the row. */
export function keepDeepValue<T extends Pick<MessageRow, 'deepJson'>>(row: T, value: unknown): T {
  parsedDeep.set(row, { value });
  return row;
}
