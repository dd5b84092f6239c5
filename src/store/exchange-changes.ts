import { blankRowFactory, fieldCopier, updateSql } from './columns.js';
import { EXCHANGE_COLUMNS, EXCHANGE_END_FIELDS, EXCHANGE_START_FIELDS, EXCHANGE_UPDATE_FIELDS, type StoredExchange } from './schema.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate } from './store-types.js';

/**
 * What the writer makes of an exchange's start, updates and end, in the stored form of its columns
 * (store/schema.ts): which fields each one sets is the schema's EXCHANGE_*_FIELDS, so a new column
 * needs no change here.
 */

const blankExchange = blankRowFactory(EXCHANGE_COLUMNS);
const copyStart = fieldCopier(EXCHANGE_COLUMNS, EXCHANGE_START_FIELDS, false);
const copyUpdate = fieldCopier(EXCHANGE_COLUMNS, EXCHANGE_UPDATE_FIELDS, false);
const copyUpdateParams = fieldCopier(EXCHANGE_COLUMNS, EXCHANGE_UPDATE_FIELDS, true);
const copyEnd = fieldCopier(EXCHANGE_COLUMNS, EXCHANGE_END_FIELDS, true);

/** A whole exchanges row for `start`: the fields it does not give are null until an update or the end sets them. */
export function startedExchange(id: number, start: ExchangeStart): StoredExchange {
  const row = blankExchange();
  row.id = id;
  row.startedMs = start.tOffsetMs;
  copyStart(row, start);
  return row;
}

/** An update merged into a row not yet written: undefined fields keep their value. */
export function mergeUpdate(row: StoredExchange, update: ExchangeUpdate): void {
  copyUpdate(row, update);
}

/** An end merged into a row not yet written: it replaces every end field (undefined ones with null). */
export function mergeEnd(row: StoredExchange, end: ExchangeEnd): void {
  row.endedMs = end.tOffsetMs;
  copyEnd(row, end);
}

/** The parameters of UPDATE_EXCHANGE_SQL: an undefined field is null, which keeps the stored value. */
export function updateParams(id: number, update: ExchangeUpdate): Partial<StoredExchange> {
  const params: Partial<StoredExchange> = { id };
  copyUpdateParams(params, update);
  return params;
}

/** The parameters of END_EXCHANGE_SQL. */
export function endParams(id: number, end: ExchangeEnd): Partial<StoredExchange> {
  const params: Partial<StoredExchange> = { id, endedMs: end.tOffsetMs };
  copyEnd(params, end);
  return params;
}

/** Sets what an ExchangeUpdate gives; a null parameter keeps the stored value. */
export const UPDATE_EXCHANGE_SQL = updateSql('exchanges', EXCHANGE_COLUMNS, EXCHANGE_UPDATE_FIELDS, 'id', true);
/** Sets every field of an ExchangeEnd. */
export const END_EXCHANGE_SQL = updateSql('exchanges', EXCHANGE_COLUMNS, ['endedMs', ...EXCHANGE_END_FIELDS], 'id');
