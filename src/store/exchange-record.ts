import { fieldsOf, jsonFieldsOf, rowFromValues, selectList, selectValues } from './columns.js';
import { EXCHANGE_COLUMNS, type ExchangeFields, type StoredExchange } from './schema.js';
import { jsonColumn } from './store-errors.js';
import type { ExchangeRow } from './store-types.js';

/** An `exchanges` row as the exchange queries return it (keyed by field), with the counts a query may add. */
export type ExchangeRecord = StoredExchange & { messageCount?: number; invalidCount?: number; uncheckedCount?: number };

/** Every column of `exchanges e`, keyed by field name. */
export const EXCHANGE_SELECT_LIST = selectList(EXCHANGE_COLUMNS, 'e');

/**
 * Every column of `exchanges e` as values, for a statement read with `.raw(true)` and made rows by
 * exchangeOfValues (with the three counts after them) or exchangeFieldsOfValues: better-sqlite3's
 * keyed rows of this many columns cost ~30 µs each, 4 s for `show` of 130,000 exchanges.
 */
export const EXCHANGE_SELECT_VALUES = selectValues(EXCHANGE_COLUMNS, 'e');
const storedExchangeOf = rowFromValues(EXCHANGE_COLUMNS);
const exchangeRecordOf = rowFromValues(EXCHANGE_COLUMNS, ['messageCount', 'invalidCount', 'uncheckedCount']);

/** exchangeFromRecord of the values of `SELECT ${EXCHANGE_SELECT_VALUES}, <messageCount, invalidCount, uncheckedCount>`. */
export function exchangeOfValues(values: readonly unknown[]): ExchangeRow {
  return exchangeFromRecord(exchangeRecordOf(values) as ExchangeRecord);
}

/** The record (JSON columns as their text) of the values of `SELECT ${EXCHANGE_SELECT_VALUES}`. */
export function exchangeRecordOfValues(values: readonly unknown[]): StoredExchange {
  return storedExchangeOf(values);
}

/** exchangeFieldsFromRecord of the values of `SELECT ${EXCHANGE_SELECT_VALUES}`. */
export function exchangeFieldsOfValues(values: readonly unknown[]): ExchangeFields {
  return exchangeFieldsFromRecord(storedExchangeOf(values));
}

/**
 * An exchange's message counts as one JSON array, [messages, invalid, unchecked], for a SELECT over
 * `exchanges e` read by exchangeOfCountedValues: one look-up of its messages (by the index on
 * exchange_id) reads each one's status once, where three subqueries read it three times (a status
 * lies past the raw bytes in the row). A GROUP BY of all messages joined to the exchanges costs as
 * much on a large file, but SQLite built a table and an index for the join on each run, which on a
 * small recording cost more than the rest of the query, and was paid by every open for `show`.
 */
export const MESSAGE_COUNTS_ARRAY = `(SELECT json_array(count(*), count(*) FILTER (WHERE m.status = 'invalid'), count(*) FILTER (WHERE m.status = 'unchecked'))
  FROM messages m WHERE m.exchange_id = e.id)`;

/** exchangeOfValues of the values of `SELECT ${EXCHANGE_SELECT_VALUES}, ${MESSAGE_COUNTS_ARRAY}` (which it changes). */
export function exchangeOfCountedValues(values: unknown[]): ExchangeRow {
  values.push(...(JSON.parse(values.pop() as string) as [number, number, number]));
  return exchangeOfValues(values);
}

const JSON_FIELDS = jsonFieldsOf(EXCHANGE_COLUMNS);
const FIELDS = fieldsOf(EXCHANGE_COLUMNS);

/**
 * The exchange as readers hand it out: JSON columns parsed (a damaged one is E_STORE_DAMAGED, with its
 * column and exchange named), counts 0 when the query did not compute them. The record is turned
 * into the row in place: no copy per exchange.
 */
export function exchangeFromRecord(r: ExchangeRecord): ExchangeRow {
  exchangeFieldsFromRecord(r);
  r.messageCount ??= 0;
  r.invalidCount ??= 0;
  r.uncheckedCount ??= 0;
  return r as unknown as ExchangeRow;
}

/** exchangeFromRecord of a record read without counts, which the row then does not have (ExchangeFields). */
export function exchangeFieldsFromRecord(r: StoredExchange): ExchangeFields {
  const row = r as unknown as Record<string, unknown>;
  for (const field of JSON_FIELDS) {
    const text = r[field] as string | null;
    if (text !== null) row[field] = jsonColumn(text, EXCHANGE_COLUMNS[field].name, r.id);
  }
  return r as unknown as ExchangeFields;
}

/** The exchange's columns alone, in column order (what an NDJSON exchange line holds). */
export function copyExchangeColumns<T extends Record<string, unknown>>(row: ExchangeFields, into: T): T & ExchangeFields {
  const out = into as Record<string, unknown>;
  for (const field of FIELDS) out[field] = row[field];
  return out as T & ExchangeFields;
}
