import { updateSql } from './columns.js';
import { EXCHANGE_COLUMNS, EXCHANGE_END_FIELDS, EXCHANGE_START_FIELDS, EXCHANGE_UPDATE_FIELDS, type StoredExchange } from './schema.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate } from './store-types.js';

/**
 * What the writer makes of an exchange's start, updates and end, in the stored form of its columns
 * (store/schema.ts): which fields each one sets is the schema's EXCHANGE_*_FIELDS, so a new column
 * needs no change here.
 */

type Changes = Record<string, unknown>;

/** A whole exchanges row for `start`: the fields it does not give are null until an update or the end sets them. */
export function startedExchange(id: number, start: ExchangeStart): StoredExchange {
  const row: Changes = {};
  for (const field in EXCHANGE_COLUMNS) row[field] = null;
  row.id = id;
  row.startedMs = start.tOffsetMs;
  copy(row, EXCHANGE_START_FIELDS, start, false);
  return row as StoredExchange;
}

/** An update merged into a row not yet written: undefined fields keep their value. */
export function mergeUpdate(row: StoredExchange, update: ExchangeUpdate): void {
  copy(row as unknown as Changes, EXCHANGE_UPDATE_FIELDS, update, false);
}

/** An end merged into a row not yet written: it replaces every end field (undefined ones with null). */
export function mergeEnd(row: StoredExchange, end: ExchangeEnd): void {
  row.endedMs = end.tOffsetMs;
  copy(row as unknown as Changes, EXCHANGE_END_FIELDS, end, true);
}

/** The parameters of UPDATE_EXCHANGE_SQL: null keeps the stored value. */
export function updateParams(id: number, update: ExchangeUpdate): Changes {
  const params: Changes = { id };
  for (const field of EXCHANGE_UPDATE_FIELDS) params[field] = null;
  copy(params, EXCHANGE_UPDATE_FIELDS, update, false);
  return params;
}

/** The parameters of END_EXCHANGE_SQL. */
export function endParams(id: number, end: ExchangeEnd): Changes {
  const params: Changes = { id, endedMs: end.tOffsetMs };
  copy(params, EXCHANGE_END_FIELDS, end, true);
  return params;
}

/** Sets what an ExchangeUpdate gives; a null parameter keeps the stored value. */
export const UPDATE_EXCHANGE_SQL = updateSql('exchanges', EXCHANGE_COLUMNS, EXCHANGE_UPDATE_FIELDS, 'id', true);
/** Sets every field of an ExchangeEnd. */
export const END_EXCHANGE_SQL = updateSql('exchanges', EXCHANGE_COLUMNS, ['endedMs', ...EXCHANGE_END_FIELDS], 'id');

/** Copies `fields` from `given` into `row` in their stored form; an undefined one is skipped, or set to null with `undefinedIsNull`. */
function copy(row: Changes, fields: readonly string[], given: object, undefinedIsNull: boolean): void {
  for (const field of fields) {
    const value = (given as Changes)[field];
    if (value === undefined) {
      if (undefinedIsNull) row[field] = null;
    } else {
      row[field] = EXCHANGE_COLUMNS[field as keyof typeof EXCHANGE_COLUMNS].json ? JSON.stringify(value) : value;
    }
  }
}
