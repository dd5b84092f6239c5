import type Database from 'better-sqlite3';
import { pickColumns, rowFromValues, selectList } from '../columns.js';
import { EXCHANGE_SELECT_VALUES, exchangeFromRecord, type ExchangeRecord } from '../exchange-record.js';
import { EXCHANGE_COLUMNS, MESSAGE_COLUMNS, type StoredFinding, type StoredMessage } from '../schema.js';
import type { ExchangeRow } from '../store-types.js';
import { ownNameSql, readOnce } from './label-sql.js';
import { storedJsonSql } from '../stored-json.js';
import { rawBytesSql, rawSizeSql } from '../raw-blocks.js';
import { schemaRefSql } from '../schema-refs.js';
import { lazyStatements } from '../lazy-statements.js';

/**
 * Messages longer than this are labelled with json_extract instead of being parsed, unless SQLite
 * cannot read them (it refuses JSON nested deeper than 1000 levels): those few are parsed after all.
 */
const PARSE_LIMIT = 64 * 1024;

/** Which exchanges the inspector's timeline lists. */
export interface ExchangeFilter {
  protocol?: string;
  transport?: string;
  invalidOnly?: boolean;
  /** Case-insensitive text: method, path, url, protocol, transport, status, or any message's JSON. */
  q?: string;
}

/** An exchange with the counts the timeline shows and the offset of its last message (an open one's end so far). */
export type TimelineExchange = ExchangeRecord & { messageCount: number; invalidCount: number; lastMs: number | null };

/** A message row of a page: no raw bytes, and the JSON only when it is small (else `bigLabel`). */
export type MessageSummaryRecord = Pick<StoredMessage, 'seq' | 'sender' | 'carrier' | 'channel' | 'tOffsetMs' | 'status' | 'findingCount' | 'schemaRef'> & {
  /** The size of its bytes. */
  size: number;
  /** The stored JSON when it is at most PARSE_LIMIT long. */
  json: string | null;
  /** A longer one's own name read by SQLite (as messageLabel finds it), `object` when it has none, '' when SQLite cannot read it. */
  bigLabel: string | null;
};

/** A message as the state and run views walk it. */
export type WalkedRecord = Pick<StoredMessage, 'seq' | 'sender' | 'carrier' | 'channel' | 'tOffsetMs' | 'status' | 'json'>;

/**
 * Read as arrays (`.raw(true)`) and made rows by timelineExchangeOf: better-sqlite3's keyed rows of
 * this many columns cost several times as much (exchange-record.ts).
 */
const TIMELINE_COLUMNS = `${EXCHANGE_SELECT_VALUES},
  (SELECT count(*) FROM messages m WHERE m.exchange_id = e.id),
  (SELECT count(*) FROM messages m WHERE m.exchange_id = e.id AND m.status = 'invalid'),
  (SELECT max(t_offset_ms) FROM messages m WHERE m.exchange_id = e.id)`;
const timelineExchangeOf = rowFromValues(EXCHANGE_COLUMNS, ['messageCount', 'invalidCount', 'lastMs']) as (values: readonly unknown[]) => TimelineExchange;

/** The JSON text, wherever the row stores it (store/stored-json.ts). */
const JSON_TEXT = storedJsonSql();

/**
 * A row's JSON text when it is at most PARSE_LIMIT long, else 1 (a long one: BIG_LABEL names it), NULL
 * when it has none. One column read once (readOnce): a compacted row's text is a slice of its block that
 * a JavaScript function hands SQLite at each mention, and naming it three times cost a third of a page.
 */
const SMALL_JSON = readOnce(JSON_TEXT, (json) => `CASE WHEN length(${json}) <= ${PARSE_LIMIT} THEN ${json} WHEN ${json} IS NOT NULL THEN 1 END`);

const SUMMARY_COLUMNS = `${selectList(pickColumns(MESSAGE_COLUMNS, ['seq', 'sender', 'carrier', 'channel', 'tOffsetMs', 'status', 'findingCount', 'schemaRef']), undefined, { schemaRef: schemaRefSql() })},
  ${rawSizeSql()} AS size,
  ${SMALL_JSON} AS json`;

/**
 * A long message's label, read apart from its page: the label's SQL took SQLite longer to prepare than
 * a small recording's whole page to read (~0.7 ms when it was ~10 KB), and few recordings have a long message.
 */
const BIG_LABEL = readOnce(JSON_TEXT, (json) => `CASE WHEN json_valid(${json}) THEN coalesce(${ownNameSql(json)}, 'object') ELSE '' END`);

/** A summary row as SQLite reads it: `json` is 1 for a long message (SMALL_JSON), and `bigLabel` is not read yet. */
type SummaryRow = Omit<MessageSummaryRecord, 'bigLabel' | 'json'> & { json: string | 1 | null; bigLabel?: string | null };

const WALK_COLUMNS = `${selectList(pickColumns(MESSAGE_COLUMNS, ['seq', 'sender', 'carrier', 'channel', 'tOffsetMs', 'status']))}, ${JSON_TEXT} AS json`;
/** Every column, with the JSON text in `json` wherever the row stores it. */
const MESSAGE_COLUMNS_SQL = selectList(MESSAGE_COLUMNS, undefined, { raw: rawBytesSql(), json: JSON_TEXT, schemaRef: schemaRefSql() });

/** The timeline's query: the exchanges that pass every condition of `where`, in the order they started. */
function timelineSql(where: readonly string[]): string {
  return `SELECT ${TIMELINE_COLUMNS} FROM exchanges e ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY e.started_ms, e.id`;
}

/**
 * The inspector's statements, each prepared on its first use (store/lazy-statements.ts): a view reads a
 * few of them, and preparing all of them was most of the cost of opening a small recording.
 */
const inspectorStatements = lazyStatements({
  timeline: (db) => db.prepare(timelineSql([])).raw(true),
  exchange: (db) => db.prepare(`SELECT ${TIMELINE_COLUMNS} FROM exchanges e WHERE e.id = ?`).raw(true),
  requestLine: (db) => db.prepare('SELECT method, path, status FROM exchanges WHERE id = ?'),
  count: (db) => db.prepare('SELECT count(*) AS n FROM messages WHERE exchange_id = ?').pluck(),
  countInvalid: (db) => db.prepare("SELECT count(*) AS n FROM messages WHERE exchange_id = ? AND status = 'invalid'").pluck(),
  page: (db) => db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE exchange_id = ? ORDER BY seq LIMIT ? OFFSET ?`),
  pageInvalid: (db) => db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE exchange_id = ? AND status = 'invalid' ORDER BY seq LIMIT ? OFFSET ?`),
  bigLabel: (db) => db.prepare(`SELECT ${BIG_LABEL} FROM messages WHERE exchange_id = ? AND seq = ?`).pluck(),
  message: (db) => db.prepare(`SELECT ${MESSAGE_COLUMNS_SQL} FROM messages WHERE exchange_id = ? AND seq = ?`),
  summaryAt: (db) => db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE exchange_id = ? AND seq = ?`),
  json: (db) => db.prepare(`SELECT ${JSON_TEXT} FROM messages WHERE exchange_id = ? AND seq = ?`).pluck(),
  findings: (db) => db.prepare('SELECT rule, severity, pointer, message FROM findings WHERE message_id = ? ORDER BY id'),
  walk: (db) => db.prepare(`SELECT ${WALK_COLUMNS} FROM messages WHERE exchange_id = ? AND seq <= ? ORDER BY seq`),
  values: (db) => db.prepare('SELECT DISTINCT protocol, transport FROM exchanges'),
  marks: (db) =>
    db.prepare('SELECT (SELECT max(id) FROM exchanges) AS e, (SELECT max(id) FROM messages) AS m, (SELECT count(*) FROM exchanges WHERE ended_ms IS NOT NULL) AS ended'),
});

/**
 * The inspector's reads: paged, filtered queries over a recording, on the read-only connection it
 * is given. Rows come back keyed by the schema's field names.
 */
export class InspectorQueries {
  private readonly stmts;
  /** The filtered timelines' statements, by their SQL, each prepared on its first use (a filter's text is a parameter, not part of it). */
  private readonly filteredTimelines = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {
    this.stmts = inspectorStatements(db);
  }

  /** The exchanges that pass `filter`, in the order they started; headers stay JSON text. */
  timeline(filter: ExchangeFilter = {}): TimelineExchange[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.protocol) {
      where.push('e.protocol = ?');
      params.push(filter.protocol);
    }
    if (filter.transport) {
      where.push('e.transport = ?');
      params.push(filter.transport);
    }
    if (filter.invalidOnly) where.push("EXISTS (SELECT 1 FROM messages m WHERE m.exchange_id = e.id AND m.status = 'invalid')");
    const q = filter.q?.trim().toLowerCase();
    if (q) {
      where.push(`(instr(lower(coalesce(e.method,'') || ' ' || coalesce(e.path,'') || ' ' || coalesce(e.url,'') || ' ' || coalesce(e.protocol,'') || ' '
        || e.transport || ' ' || coalesce(e.status,'') || ' #' || e.id), ?) > 0
        OR EXISTS (SELECT 1 FROM messages m WHERE m.exchange_id = e.id AND instr(lower(${storedJsonSql('m')}), ?) > 0))`);
      params.push(q, q);
    }
    return (this.timelineStatement(where).all(...params) as unknown[][]).map(timelineExchangeOf);
  }

  private timelineStatement(where: readonly string[]): Database.Statement {
    if (where.length === 0) return this.stmts.timeline;
    const sql = timelineSql(where);
    let statement = this.filteredTimelines.get(sql);
    if (statement === undefined) this.filteredTimelines.set(sql, (statement = this.db.prepare(sql).raw(true)));
    return statement;
  }

  /** One exchange with its headers parsed, or undefined. */
  exchange(id: number): (ExchangeRow & { lastMs: number | null }) | undefined {
    const values = this.stmts.exchange.get(id) as unknown[] | undefined;
    return values === undefined ? undefined : (exchangeFromRecord(timelineExchangeOf(values)) as ExchangeRow & { lastMs: number | null });
  }

  /** The exchange's method, path and status (what names the JSON bodies that have no type of their own). */
  requestLine(exchangeId: number): { method: string | null; path: string | null; status: number | null } | undefined {
    return this.stmts.requestLine.get(exchangeId) as { method: string | null; path: string | null; status: number | null } | undefined;
  }

  /** How many messages the exchange has (only the invalid ones with `invalidOnly`). */
  messageCount(exchangeId: number, invalidOnly: boolean): number {
    return (invalidOnly ? this.stmts.countInvalid : this.stmts.count).get(exchangeId) as number;
  }

  page(exchangeId: number, limit: number, offset: number, invalidOnly: boolean): MessageSummaryRecord[] {
    const rows = (invalidOnly ? this.stmts.pageInvalid : this.stmts.page).all(exchangeId, limit, offset) as SummaryRow[];
    for (const row of rows) this.labelIfBig(exchangeId, row);
    return rows as MessageSummaryRecord[];
  }

  summaryAt(exchangeId: number, seq: number): MessageSummaryRecord | undefined {
    const row = this.stmts.summaryAt.get(exchangeId, seq) as SummaryRow | undefined;
    if (row !== undefined) this.labelIfBig(exchangeId, row);
    return row as MessageSummaryRecord | undefined;
  }

  /** Fills in `bigLabel`: SQLite's label of a long message (BIG_LABEL), whose `json` is then null; null for the others. */
  private labelIfBig(exchangeId: number, row: SummaryRow): void {
    if (row.json === 1) {
      row.json = null;
      row.bigLabel = this.stmts.bigLabel.get(exchangeId, row.seq) as string;
    } else row.bigLabel = null;
  }

  message(exchangeId: number, seq: number): (StoredMessage & { raw: Buffer }) | undefined {
    return this.stmts.message.get(exchangeId, seq) as (StoredMessage & { raw: Buffer }) | undefined;
  }

  /** The stored JSON text of one message, whatever its length. */
  json(exchangeId: number, seq: number): string | null {
    return (this.stmts.json.get(exchangeId, seq) as string | null | undefined) ?? null;
  }

  findings(messageId: number): Array<Omit<StoredFinding, 'id' | 'messageId' | 'exchangeId'>> {
    return this.stmts.findings.all(messageId) as Array<Omit<StoredFinding, 'id' | 'messageId' | 'exchangeId'>>;
  }

  /** The messages of an exchange up to and including `upToSeq`, streamed. */
  walk(exchangeId: number, upToSeq: number): IterableIterator<WalkedRecord> {
    return this.stmts.walk.iterate(exchangeId, upToSeq) as IterableIterator<WalkedRecord>;
  }

  /** Every protocol and transport the recording has. */
  values(): Array<{ protocol: string | null; transport: string }> {
    return this.stmts.values.all() as Array<{ protocol: string | null; transport: string }>;
  }

  /** A cheap fingerprint of what has been written so far (for live polling). */
  marks(): string {
    const r = this.stmts.marks.get() as { e: number | null; m: number | null; ended: number };
    return `${r.e ?? 0}/${r.m ?? 0}/${r.ended}`;
  }
}
