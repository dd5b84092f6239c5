import type Database from 'better-sqlite3';
import { EXCHANGE_SELECT_VALUES, exchangeRecordOfValues, type ExchangeRecord } from '../exchange-record.js';
import type { StoredFinding } from '../schema.js';
import { storedJsonSql } from '../stored-json.js';
import { rawBytesSql } from '../raw-blocks.js';

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

/** A message as the scan reads it: its meta text, the JSON text or (not JSON) the raw bytes, and its id when asked for. */
export type ScannedMessage = [meta: string, body: string | Buffer, id?: number];

/** A message as a diff loads it again (diff/load-side.ts): its meta text, the JSON text or the raw bytes, its seq and id. */
export type LoadedMessage = [meta: string, body: string | Buffer, seq: number, id: number];

/** An error finding as the scan compares it. */
export type ScannedFinding = Pick<StoredFinding, 'messageId' | 'rule' | 'severity' | 'pointer' | 'message'>;

export interface ScanQueries {
  /** Every exchange, in id order (no message counts; headers as JSON text). */
  exchanges(): ExchangeRecord[];
  /** The messages of an exchange in seq order; with `withIds`, each with its id (to attach findings). */
  messages(exchangeId: number, withIds: boolean): IterableIterator<ScannedMessage>;
  /** The error findings of an exchange (only those count in a diff), in id order. */
  errorFindings(exchangeId: number): ScannedFinding[];
  /** One exchange (as `exchanges` reads it). */
  exchange(id: number): ExchangeRecord | undefined;
  /** The messages of an exchange in seq order, for a diff's report (seq and id included), the first `skip` left out. */
  messagesToLoad(exchangeId: number, skip?: number): IterableIterator<LoadedMessage>;
}

export function prepareScanQueries(db: Database.Database): ScanQueries {
  // Exchanges as arrays, made records by exchangeRecordOfValues: a keyed row of ~30 columns costs far more (exchange-record.ts).
  const exchanges = db.prepare(`SELECT ${EXCHANGE_SELECT_VALUES} FROM exchanges e ORDER BY e.id`).raw(true);
  const exchange = db.prepare(`SELECT ${EXCHANGE_SELECT_VALUES} FROM exchanges e WHERE e.id = ?`).raw(true);
  const messagesToLoad = db.prepare(`SELECT ${META}, ifnull(${JSON_TEXT}, ${RAW}), seq, id FROM messages WHERE exchange_id = ? ORDER BY seq LIMIT -1 OFFSET ?`).raw(true);
  const messages = db.prepare(`SELECT ${META}, ifnull(${JSON_TEXT}, ${RAW}) FROM messages WHERE exchange_id = ? ORDER BY seq`).raw(true);
  const messagesWithIds = db.prepare(`SELECT ${META}, ifnull(${JSON_TEXT}, ${RAW}), id FROM messages WHERE exchange_id = ? ORDER BY seq`).raw(true);
  const findings = db.prepare(
    "SELECT message_id AS messageId, rule, severity, pointer, message FROM findings WHERE exchange_id = ? AND severity = 'error' ORDER BY id",
  );
  return {
    exchanges: () => (exchanges.all() as unknown[][]).map(exchangeRecordOfValues),
    messages: (exchangeId, withIds) => (withIds ? messagesWithIds : messages).iterate(exchangeId) as IterableIterator<ScannedMessage>,
    errorFindings: (exchangeId) => findings.all(exchangeId) as ScannedFinding[],
    exchange: (id) => {
      const values = exchange.get(id) as unknown[] | undefined;
      return values === undefined ? undefined : exchangeRecordOfValues(values);
    },
    messagesToLoad: (exchangeId, skip = 0) => messagesToLoad.iterate(exchangeId, skip) as IterableIterator<LoadedMessage>,
  };
}
