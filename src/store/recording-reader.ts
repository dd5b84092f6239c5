import { exchangeFromRecord, type ExchangeRecord } from './exchange-record.js';
import type Database from 'better-sqlite3';
import { resolve } from 'node:path';
import type { Finding, Severity } from '../core/finding.js';
import { tooDeepToWalk } from '../core/json-depth.js';
import type { Verdict, VerdictStatus } from '../core/verdict.js';
import { FORMAT_VERSION, RECORDING_TABLES, checkFormat, migrate, missingColumns, tableNames } from './migrations.js';
import { openDatabase } from './open-database.js';
import { StoreError, jsonColumn, messageOf, readingRows } from './store-errors.js';
import type { ExchangeRow, MessageRow, RecordingInfo, StoreTotals } from './store-types.js';
import { prepareFindingList, type FindingFilter, type FindingListRow } from './finding-list.js';

export type { FindingFilter, FindingListRow } from './finding-list.js';
export type { ExchangeRow, MessageRow, RecordingInfo, StoreTotals } from './store-types.js';

interface RecordingRecord {
  tool_version: string;
  target: string | null;
  listen: string | null;
  mode: string;
  started_at: string;
  ended_at: string | null;
  schema_hashes: string;
}


interface MessageRecord {
  id: number;
  exchange_id: number;
  seq: number;
  sender: 'client' | 'server';
  carrier: 'body' | 'event' | 'frame' | 'line';
  channel: string | null;
  t_offset_ms: number;
  raw: Buffer;
  raw_truncated_from: number | null;
  json: string | null;
  status: VerdictStatus;
  schema_ref: string | null;
  reason: string | null;
  finding_count: number;
}

interface FindingRecord {
  message_id: number;
  rule: string;
  severity: Severity;
  pointer: string;
  message: string;
}

const EXCHANGE_SELECT = `
  SELECT e.*,
    (SELECT count(*) FROM messages m WHERE m.exchange_id = e.id) AS message_count,
    (SELECT count(*) FROM messages m WHERE m.exchange_id = e.id AND m.status = 'invalid') AS invalid_count,
    (SELECT count(*) FROM messages m WHERE m.exchange_id = e.id AND m.status = 'unchecked') AS unchecked_count
  FROM exchanges e`;

/**
 * Reads a recording, read-only. Safe while a recorder is still writing the file (WAL readers never
 * block the writer); each call sees the rows committed by then.
 *
 * A file at an older format version is upgraded in place first (the only write the reader makes);
 * a newer one is refused with E_STORE_VERSION.
 */
export class RecordingReader {
  /** The absolute path of the recording. */
  readonly file: string;
  private readonly db: Database.Database;
  private readonly stmts: {
    recording: Database.Statement;
    exchanges: Database.Statement;
    exchange: Database.Statement;
    messages: Database.Statement;
    findingsOfExchange: Database.Statement;
    findingsOfMessage: Database.Statement;
    invalid: Database.Statement;
    totals: Database.Statement;
  };
  private listFindings: ((filter: FindingFilter) => IterableIterator<FindingListRow>) | undefined;

  private constructor(file: string, db: Database.Database) {
    this.file = file;
    this.db = db;
    this.stmts = {
      recording: db.prepare('SELECT * FROM recording WHERE id = 1'),
      exchanges: db.prepare(`${EXCHANGE_SELECT} ORDER BY e.id`),
      exchange: db.prepare(`${EXCHANGE_SELECT} WHERE e.id = ?`),
      messages: db.prepare('SELECT * FROM messages WHERE exchange_id = ? ORDER BY seq'),
      findingsOfExchange: db.prepare('SELECT * FROM findings WHERE exchange_id = ? ORDER BY id'),
      findingsOfMessage: db.prepare('SELECT * FROM findings WHERE message_id = ? ORDER BY id'),
      invalid: db.prepare("SELECT * FROM messages WHERE status = 'invalid' ORDER BY id"),
      totals: db.prepare(`SELECT
        (SELECT count(*) FROM exchanges) AS exchanges,
        (SELECT count(*) FROM messages) AS messages,
        (SELECT count(*) FROM messages WHERE status = 'invalid') AS invalid,
        (SELECT count(*) FROM findings) AS findings`),
    };
  }

  /** Opens a recording; E_STORE_OPEN if missing, E_STORE_NOT_RECORDING if it is not one, E_STORE_VERSION if newer. */
  static open(path: string): RecordingReader {
    const file = resolve(path);
    let db = openDatabase(file, { readonly: true });
    try {
      const version = checkFormat(db, file);
      if (version === 0) {
        throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (an SQLite database without tables)`);
      }
      if (version < FORMAT_VERSION) {
        db.close();
        const writable = openDatabase(file);
        try {
          migrate(writable, file);
        } finally {
          writable.close();
        }
        db = openDatabase(file, { readonly: true });
      }
      const tables = tableNames(db, file);
      const missing = RECORDING_TABLES.filter((t) => !tables.includes(t));
      if (missing.length > 0) {
        throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (missing tables: ${missing.join(', ')})`);
      }
      const absent = missingColumns(db);
      if (absent.length > 0) {
        const shown = absent.length > 3 ? `${absent.slice(0, 3).join(', ')} and ${absent.length - 3} more` : absent.join(', ');
        throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (missing columns: ${shown})`);
      }
      const reader = new RecordingReader(file, db);
      if (reader.stmts.recording.get() === undefined) {
        throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (no recording row)`);
      }
      return reader;
    } catch (error) {
      if (db.open) db.close();
      if (error instanceof StoreError) throw error;
      throw new StoreError('E_STORE_OPEN', file, `cannot read ${file}: ${messageOf(error)}`, { cause: error });
    }
  }

  recording(): RecordingInfo {
    const r = this.stmts.recording.get() as RecordingRecord;
    const schemaHashes = readingRows(this.file, () => jsonColumn(r.schema_hashes, 'schema_hashes')) as Record<string, string>;
    return {
      formatVersion: this.db.pragma('user_version', { simple: true }) as number,
      toolVersion: r.tool_version,
      ...(r.target === null ? {} : { target: r.target }),
      ...(r.listen === null ? {} : { listen: r.listen }),
      mode: r.mode,
      startedAt: r.started_at,
      ...(r.ended_at === null ? {} : { endedAt: r.ended_at }),
      schemaHashes,
    };
  }

  /** All exchanges, ordered by id. */
  exchanges(): ExchangeRow[] {
    return readingRows(this.file, () => (this.stmts.exchanges.all() as ExchangeRecord[]).map(exchangeFromRecord));
  }

  exchange(id: number): ExchangeRow | undefined {
    const r = this.stmts.exchange.get(id) as ExchangeRecord | undefined;
    return r === undefined ? undefined : readingRows(this.file, () => exchangeFromRecord(r));
  }

  /** The messages of one exchange, ordered by seq, with verdicts and findings. */
  messages(exchangeId: number): MessageRow[] {
    const records = this.stmts.messages.all(exchangeId) as MessageRecord[];
    const byMessage = new Map<number, Finding[]>();
    for (const f of this.stmts.findingsOfExchange.all(exchangeId) as FindingRecord[]) {
      let list = byMessage.get(f.message_id);
      if (list === undefined) byMessage.set(f.message_id, (list = []));
      list.push(finding(f));
    }
    return readingRows(this.file, () => records.map((m) => messageRow(m, byMessage.get(m.id) ?? [])));
  }

  /** Every invalid message of the recording, ordered by id. */
  invalidMessages(): MessageRow[] {
    return readingRows(this.file, () => (this.stmts.invalid.all() as MessageRecord[]).map((m) => messageRow(m, this.findingsOf(m))));
  }

  /** Every finding that passes `filter`, with its exchange and message, streamed row by row (one query). */
  findings(filter: FindingFilter = {}): IterableIterator<FindingListRow> {
    this.listFindings ??= prepareFindingList(this.db);
    return this.listFindings(filter);
  }

  totals(): StoreTotals {
    return this.stmts.totals.get() as StoreTotals;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private findingsOf(m: MessageRecord): Finding[] {
    if (m.finding_count === 0) return [];
    return (this.stmts.findingsOfMessage.all(m.id) as FindingRecord[]).map(finding);
  }
}


function messageRow(m: MessageRecord, findings: Finding[]): MessageRow {
  const verdict: Verdict = { status: m.status, findings };
  if (m.schema_ref !== null) verdict.schemaRef = m.schema_ref;
  if (m.reason !== null) verdict.reason = m.reason;
  // JSON nested too deep to walk is handed out as its text (deepJson); it is parsed all the same, so
  // that a damaged column is reported here like any other.
  const json = m.json === null ? undefined : jsonColumn(m.json, 'json', m.exchange_id, m.seq);
  const deep = m.json !== null && tooDeepToWalk(m.json);
  return {
    id: m.id,
    exchangeId: m.exchange_id,
    seq: m.seq,
    sender: m.sender,
    carrier: m.carrier,
    channel: m.channel,
    tOffsetMs: m.t_offset_ms,
    raw: m.raw,
    rawTruncatedFrom: m.raw_truncated_from,
    json: deep ? undefined : json,
    ...(deep ? { deepJson: m.json! } : {}),
    verdict,
  };
}

function finding(f: FindingRecord): Finding {
  return { rule: f.rule, severity: f.severity, pointer: f.pointer, message: f.message };
}
