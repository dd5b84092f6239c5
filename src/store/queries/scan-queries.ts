import type Database from 'better-sqlite3';
import { EXCHANGE_SELECT_VALUES, exchangeRecordOfValues, type ExchangeRecord } from '../exchange-record.js';
import type { StoredFinding } from '../schema.js';
import { storedJsonSql } from '../stored-json.js';
import { rawBytesSql } from '../raw-blocks.js';
import { ROWS_PAGE, RowsByExchange } from './rows-by-exchange.js';

/**
 * The reads of `proxy diff`'s first pass (diff/scan-side.ts), which streams a whole recording and
 * keeps only a hash per exchange, so it reads as few columns as it can.
 */

/** `sender carrier status[ channel]`: a few distinct values, parsed once each by the caller. */
/** The JSON text, wherever the row stores it (store/stored-json.ts). */
const JSON_TEXT = storedJsonSql();
/** The bytes, in the row or its block (store/raw-blocks.ts). */
const RAW = rawBytesSql();

const META = `sender || ' ' || carrier || ' ' || status || ifnull(' ' || channel, '')`;

/** A message as the scan reads it: its exchange and seq, its meta text, the JSON text or (not JSON) the raw bytes, and its id. */
export type MessageInOrder = [exchangeId: number, seq: number, meta: string, body: string | Buffer, id: number];

type FindingInOrder = [exchangeId: number, id: number, messageId: number, rule: string, severity: 'error', pointer: string, message: string];

/** A message as a diff loads it again (diff/load-side.ts): its meta text, the JSON text or the raw bytes, its seq and id. */
export type LoadedMessage = [meta: string, body: string | Buffer, seq: number, id: number];

/** An error finding as the scan compares it. */
export type ScannedFinding = Pick<StoredFinding, 'messageId' | 'rule' | 'severity' | 'pointer' | 'message'>;

export interface ScanQueries {
  /** Every exchange, in id order (no message counts; headers as JSON text), read a page at a time: a recording of many exchanges is not held whole. */
  exchanges(): IterableIterator<ExchangeRecord>;
  /** The messages of every exchange, taken exchange by exchange in ascending id order, each in seq order (rows-by-exchange.ts). */
  messagesInOrder(): RowsByExchange<MessageInOrder>;
  /** The error findings of an exchange (only those count in a diff), in id order. */
  errorFindings(exchangeId: number): ScannedFinding[];
  /** errorFindings of every exchange, asked for in ascending id order, read a page at a time (rows-by-exchange.ts). */
  errorFindingsInOrder(): (exchangeId: number) => ScannedFinding[];
  /** One exchange (as `exchanges` reads it). */
  exchange(id: number): ExchangeRecord | undefined;
  /** The messages of an exchange in seq order, for a diff's report (seq and id included), the first `skip` left out. */
  messagesToLoad(exchangeId: number, skip?: number): IterableIterator<LoadedMessage>;
}

export function prepareScanQueries(db: Database.Database): ScanQueries {
  // Exchanges as arrays, made records by exchangeRecordOfValues: a keyed row of ~30 columns costs far more (exchange-record.ts).
  const exchangesPage = db.prepare(`SELECT ${EXCHANGE_SELECT_VALUES} FROM exchanges e WHERE e.id > ? ORDER BY e.id LIMIT ${ROWS_PAGE}`).raw(true);
  const exchange = db.prepare(`SELECT ${EXCHANGE_SELECT_VALUES} FROM exchanges e WHERE e.id = ?`).raw(true);
  const messagesToLoad = db.prepare(`SELECT ${META}, ifnull(${JSON_TEXT}, ${RAW}), seq, id FROM messages WHERE exchange_id = ? ORDER BY seq LIMIT -1 OFFSET ?`).raw(true);
  // Pages in (exchange, seq) order after a place, on the index messages_by_exchange (rows-by-exchange.ts). Every page
  // query's LIMIT is a number, not a parameter: binding one makes SQLite prepare the statement again at each page.
  const messagesPage = db
    .prepare(`SELECT exchange_id, seq, ${META}, ifnull(${JSON_TEXT}, ${RAW}), id FROM messages WHERE (exchange_id, seq) > (?, ?) ORDER BY exchange_id, seq LIMIT ${ROWS_PAGE}`)
    .raw(true);
  const findings = db.prepare(
    "SELECT message_id AS messageId, rule, severity, pointer, message FROM findings WHERE exchange_id = ? AND severity = 'error' ORDER BY id",
  );
  const findingsPage = db
    .prepare(
      `SELECT exchange_id, id, message_id, rule, severity, pointer, message FROM findings WHERE severity = 'error' AND (exchange_id, id) > (?, ?) ORDER BY exchange_id, id LIMIT ${ROWS_PAGE}`,
    )
    .raw(true);
  return {
    exchanges: function* () {
      for (let after = 0; ; ) {
        const page = (exchangesPage.all(after) as unknown[][]).map(exchangeRecordOfValues);
        yield* page;
        if (page.length < ROWS_PAGE) return;
        after = page[page.length - 1].id;
      }
    },
    messagesInOrder: () => new RowsByExchange<MessageInOrder>(messagesPage),
    errorFindings: (exchangeId) => findings.all(exchangeId) as ScannedFinding[],
    errorFindingsInOrder: () => {
      const rows = new RowsByExchange<FindingInOrder>(findingsPage);
      return (exchangeId) => rows.all(exchangeId).map(([, , messageId, rule, severity, pointer, message]) => ({ messageId, rule, severity, pointer, message }));
    },
    exchange: (id) => {
      const values = exchange.get(id) as unknown[] | undefined;
      return values === undefined ? undefined : exchangeRecordOfValues(values);
    },
    messagesToLoad: (exchangeId, skip = 0) => messagesToLoad.iterate(exchangeId, skip) as IterableIterator<LoadedMessage>,
  };
}
