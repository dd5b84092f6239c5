import { EXCHANGE_SELECT_VALUES, MESSAGE_COUNTS_ARRAY, exchangeFieldsOfValues, exchangeOfCountedValues } from './exchange-record.js';
import { rowFromValues, selectList, selectValues } from './columns.js';
import { FINDING_COLUMNS, MESSAGE_COLUMNS, RECORDING_COLUMNS, type ExchangeFields, type StoredFinding, type StoredMessage, type StoredRecording } from './schema.js';
import type Database from 'better-sqlite3';
import { resolve } from 'node:path';
import type { Finding } from '../core/finding.js';
import { isCompactJson, isCompactJsonIn } from '../core/compact-json-text.js';
import { keepDeepValue } from './message-value.js';
import { MAX_JSON_DEPTH, tooDeepToWalk } from '../core/json-depth.js';
import { RepeatedJson } from '../core/repeated-json.js';
import type { Verdict } from '../core/verdict.js';
import { openRecordingToRead } from './recording-lifecycle.js';
import { StoreError, jsonColumn, readingRows } from './store-errors.js';
import type { ExchangeRow, FindingFilter, FindingListRow, MessageRow, MessageTextRow, MessageToJudge, RecordingInfo, StoreTotals } from './store-types.js';
import { prepareFindingList } from './finding-list.js';
import { storedJsonSql, storedJsonText } from './stored-json.js';
import { rawBytesSql } from './raw-blocks.js';
import { BlockJsonTexts, JSON_END_SQL, JSON_TEXT_OR_START_SQL } from './block-json-texts.js';
import { lazyStatements } from './lazy-statements.js';
import { keepReaderConnection } from './reader-connection.js';
import { SchemaRefNames } from './schema-refs.js';
import { MessageRoutes, ROUTE_SQL, routeOfColumns, type MessageRoute } from './message-route.js';
import { ROUTE_CODES, ROUTE_CODE_SQL, RouteCodes } from './route-code.js';
import { PLAIN_KIND_SQL, PlainKinds } from './plain-message-kind.js';
import { CODES_WITH_EXCHANGE_FINDINGS } from '../core/exchange-findings.js';

const EXCHANGE_FINDING_CODES = JSON.stringify(CODES_WITH_EXCHANGE_FINDINGS);

export type { ExchangeRow, FindingFilter, FindingListRow, MessageRow, MessageTextRow, MessageToJudge, RecordingInfo, StoreTotals } from './store-types.js';

const EXCHANGE_SELECT = `SELECT ${EXCHANGE_SELECT_VALUES}, ${MESSAGE_COUNTS_ARRAY} FROM exchanges e`;
/** Read as arrays (`.raw(true)`) and made rows by storedMessageOf: half the cost of rows keyed by better-sqlite3. */
const MESSAGE_SELECT = `SELECT ${selectValues(MESSAGE_COLUMNS, undefined, { raw: rawBytesSql() })} FROM messages`;
/** A message's bytes, in its row or its block (store/raw-blocks.ts). */
const RAW = rawBytesSql();
const storedMessageOf = rowFromValues(MESSAGE_COLUMNS);
const FINDING_SELECT = `SELECT ${selectList(FINDING_COLUMNS)} FROM findings`;
/**
 * A message as `export` reads it (MessageTextRow): a message whose raw bytes hold its JSON text at
 * json_at is read as raw's text (a string costs less than a Buffer, and is its JSON text's too), its
 * bytes only when it is not (then the text follows it, as storedMessageOf reads it).
 */
const AT_JSON_AT = 'json IS NULL AND json_at IS NOT NULL';
const TEXT_SELECT = `SELECT ${selectValues(MESSAGE_COLUMNS, undefined, { raw: `CASE WHEN ${AT_JSON_AT} THEN NULL ELSE ${RAW} END` })},
  CASE WHEN ${AT_JSON_AT} THEN CAST(${RAW} AS TEXT) END FROM messages`;
const RAW_TEXT = Object.keys(MESSAGE_COLUMNS).length;
/**
 * What `export` reads of every message first: the columns its line needs of a plain message (its JSON
 * text at json_at in raw; no finding, reason, cut or ref of its own), and raw's text only for such a
 * one; any other is read again whole, as TEXT_SELECT reads it. Half the columns of TEXT_SELECT, and no
 * row object made of them: reading rows was a third of export's time.
 */
const PLAIN = 'json IS NULL AND json_at IS NOT NULL AND raw_truncated_from IS NULL AND schema_ref IS NULL AND reason IS NULL AND finding_count = 0';
const EXPORT_SELECT = `SELECT id, exchange_id, seq, ${PLAIN_KIND_SQL}, t_offset_ms,
  CASE WHEN ${PLAIN} THEN CAST(${RAW} AS TEXT) END FROM messages`;
type ExportValues = [
  id: number,
  exchangeId: number,
  seq: number,
  /** Its sender, carrier, channel, status, schema ref id and json_at as one number (store/plain-message-kind.ts); null: read the row whole. */
  kind: number | null,
  tOffsetMs: number,
  rawText: string | null,
];
/**
 * What judging a message again reads (MessageToJudge), as an array: its JSON text taken in SQL. Its
 * stored verdict and raw bytes only matter when it is not JSON (rare), and are read then, by id
 * (NOT_JSON_SELECT): a Buffer per row and its decoding were a third of reading, each column more a tenth.
 */
const TO_JUDGE_COLUMNS = `id, seq, ${ROUTE_SQL}, finding_count, ${storedJsonSql()}`;
const NOT_JSON_SELECT = `SELECT status, schema_ref, schema_ref_id, reason, ${RAW} FROM messages WHERE id = ?`;
const TO_JUDGE_SELECT = `SELECT ${TO_JUDGE_COLUMNS} FROM messages`;
/**
 * The same read across exchanges, in id order, in fewer values (better-sqlite3 puts each in one at a
 * time: below Node 22 through V8's generic property store, ~65 ns a value): its route and whether it
 * has findings as one integer (ROUTE_CODE_SQL, and FINDINGS_BIT when `finding_count` is not 0; NULL:
 * read them by id, ROUTE_AND_COUNT_SELECT), its JSON text not taken in SQL but where it is: the text as
 * stored or where it starts in its block (block-json-texts.ts), the block, where it ends, then the exchange.
 */
const FINDINGS_BIT = ROUTE_CODES;
const TO_JUDGE_ANY_SELECT = `SELECT id, seq, ${ROUTE_CODE_SQL} + CASE WHEN finding_count = 0 THEN 0 ELSE ${FINDINGS_BIT} END, raw_block, ${JSON_TEXT_OR_START_SQL}, ${JSON_END_SQL}, exchange_id FROM messages`;
/** What TO_JUDGE_ANY_SELECT's route code stands for, as TO_JUDGE_SELECT reads it, for a message whose code is NULL. */
const ROUTE_AND_COUNT_SELECT = `SELECT ${ROUTE_SQL}, finding_count FROM messages WHERE id = ?`;
/**
 * The values of the columns that hold a few (a sender, a carrier, a channel, a status), as one string
 * each: better-sqlite3 makes a new string per row, and `validate`'s report keeps a message's sender.
 */
const FEW_VALUES = new Map(['client', 'server', 'body', 'event', 'frame', 'line', 'text', 'binary', 'close', 'ping', 'pong', 'stdout', 'stderr', 'valid', 'invalid', 'unchecked'].map((s) => [s, s]));
function oneString<T extends string>(stored: T): T {
  return (FEW_VALUES.get(stored) as T | undefined) ?? stored;
}
type ToJudgeValues = [
  id: number,
  seq: number,
  /** Its sender, carrier and channel (store/message-route.ts); null: read them apart (routeById). */
  route: string | null,
  findingCount: number,
  jsonText: string | null,
];
/** TO_JUDGE_ANY_SELECT's values: ToJudgeValues' first two, the route code, then where the JSON text is, then the exchange. */
type ToJudgeAnyValues = [id: number, seq: number, routeCode: number | null, block: number | null, jsonTextOrStart: string | number | null, jsonEnd: number | null, exchangeId: number];
type NotJsonValues = [status: Verdict['status'], schemaRef: string | null, schemaRefId: number | null, reason: string | null, raw: Buffer];

/** The reader's statements, each prepared on its first use (store/lazy-statements.ts). */
const readerStatements = lazyStatements({
  recording: (db) => db.prepare(`SELECT ${selectList(RECORDING_COLUMNS)} FROM recording WHERE id = 1`),
  exchanges: (db) => db.prepare(`${EXCHANGE_SELECT} ORDER BY e.id`).raw(true),
  exchange: (db) => db.prepare(`${EXCHANGE_SELECT} WHERE e.id = ?`).raw(true),
  exchangeColumns: (db) => db.prepare(`SELECT ${EXCHANGE_SELECT_VALUES} FROM exchanges e ORDER BY e.id`).raw(true),
  messages: (db) => db.prepare(`${MESSAGE_SELECT} WHERE exchange_id = ? ORDER BY seq`).raw(true),
  messagesAfter: (db) => db.prepare(`${MESSAGE_SELECT} WHERE id > ? ORDER BY id LIMIT ?`).raw(true),
  messagesOfAfter: (db) => db.prepare(`${MESSAGE_SELECT} WHERE exchange_id = ? AND seq > ? ORDER BY seq LIMIT ? OFFSET ?`).raw(true),
  exportAfter: (db) => db.prepare(`${EXPORT_SELECT} WHERE id > ? ORDER BY id LIMIT ?`).raw(true),
  textById: (db) => db.prepare(`${TEXT_SELECT} WHERE id = ?`).raw(true),
  messageById: (db) => db.prepare(`${MESSAGE_SELECT} WHERE id = ?`).raw(true),
  raw: (db) => db.prepare(`SELECT ${RAW} FROM messages WHERE id = ?`).pluck(),
  toJudgeAfter: (db) => db.prepare(`${TO_JUDGE_SELECT} WHERE exchange_id = ? AND seq > ? ORDER BY seq LIMIT ?`).raw(true),
  toJudgeInOrderAfter: (db) => db.prepare(`${TO_JUDGE_ANY_SELECT} WHERE id > ? ORDER BY id LIMIT ?`).raw(true),
  firstRequestToJudge: (db) => db.prepare(`${TO_JUDGE_SELECT} WHERE exchange_id = ? AND sender = 'client' AND (json IS NOT NULL OR json_at IS NOT NULL) ORDER BY seq LIMIT 1`).raw(true),
  notJson: (db) => db.prepare(NOT_JSON_SELECT).raw(true),
  routeById: (db) => db.prepare('SELECT sender, carrier, channel FROM messages WHERE id = ?').raw(true),
  routeAndCountById: (db) => db.prepare(ROUTE_AND_COUNT_SELECT).raw(true),
  hasMessages: (db) => db.prepare('SELECT EXISTS (SELECT 1 FROM messages WHERE exchange_id = ?)').pluck(),
  findingsOfExchange: (db) => db.prepare(`${FINDING_SELECT} WHERE exchange_id = ? ORDER BY id`),
  findingsOfMessage: (db) => db.prepare(`${FINDING_SELECT} WHERE message_id = ? ORDER BY id`),
  invalid: (db) => db.prepare(`${MESSAGE_SELECT} WHERE status = 'invalid' ORDER BY id`).raw(true),
  totals: (db) => db.prepare(`SELECT
    (SELECT count(*) FROM exchanges) AS exchanges,
    (SELECT count(*) FROM messages) AS messages,
    (SELECT count(*) FROM messages WHERE status = 'invalid') AS invalid,
    (SELECT count(*) FROM findings)
      + (SELECT count(*) FROM exchanges WHERE error_code IN (SELECT value FROM json_each(@codes))) AS findings`),
});

type ReaderStatements = ReturnType<typeof readerStatements>;

/**
 * Reads a recording, read-only. Safe while a recorder is still writing the file (WAL readers never
 * block the writer); each call sees the rows committed by then.
 *
 * A file at an older format version is upgraded in place first (the only write the reader makes);
 * a newer one is refused with E_STORE_VERSION (recording-lifecycle.ts).
 */
export class RecordingReader {
  /** The absolute path of the recording. */
  readonly file: string;
  private readonly db: Database.Database;
  private readonly stmts: ReaderStatements;
  /** Made on first use: a command that reads no message's schema ref (most opens) prepares nothing for them. */
  private schemaRefNames: SchemaRefNames | undefined;
  private readonly routes = new MessageRoutes();
  private listFindings: ((filter: FindingFilter) => IterableIterator<FindingListRow>) | undefined;

  private constructor(file: string, db: Database.Database) {
    this.file = file;
    this.db = db;
    this.stmts = readerStatements(db);
    keepReaderConnection(this, db);
  }

  private get schemaRefs(): SchemaRefNames {
    return (this.schemaRefNames ??= new SchemaRefNames(this.db));
  }

  /** Opens a recording; E_STORE_OPEN if missing, E_STORE_NOT_RECORDING if it is not one, E_STORE_VERSION if newer. */
  static open(path: string): RecordingReader {
    const file = resolve(path);
    return openRecordingToRead(file, (db) => {
      const reader = new RecordingReader(file, db);
      if (reader.stmts.recording.get() === undefined) {
        throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (no recording row)`);
      }
      return reader;
    });
  }

  recording(): RecordingInfo {
    const r = this.stmts.recording.get() as StoredRecording;
    const schemaHashes = readingRows(this.file, () => jsonColumn(r.schemaHashes, RECORDING_COLUMNS.schemaHashes.name)) as Record<string, string>;
    return {
      formatVersion: this.db.pragma('user_version', { simple: true }) as number,
      toolVersion: r.toolVersion,
      ...(r.target === null ? {} : { target: r.target }),
      ...(r.listen === null ? {} : { listen: r.listen }),
      mode: r.mode,
      startedAt: r.startedAt,
      ...(r.endedAt === null ? {} : { endedAt: r.endedAt }),
      schemaHashes,
      ...(r.rulesVersion === null ? {} : { rulesVersion: r.rulesVersion }),
    };
  }

  /** All exchanges, ordered by id. */
  exchanges(): ExchangeRow[] {
    return readingRows(this.file, () => (this.stmts.exchanges.all() as unknown[][]).map(exchangeOfCountedValues));
  }

  /**
   * All exchanges, ordered by id, without their message counts (which read every message's status):
   * for export and validate, which do not use them. Static, so that the reader's public shape stays as it is.
   */
  static exchangeColumns(reader: RecordingReader): ExchangeFields[] {
    return readingRows(reader.file, () => (reader.stmts.exchangeColumns.all() as unknown[][]).map(exchangeFieldsOfValues));
  }

  exchange(id: number): ExchangeRow | undefined {
    const values = this.stmts.exchange.get(id) as unknown[] | undefined;
    return values === undefined ? undefined : readingRows(this.file, () => exchangeOfCountedValues(values));
  }

  /** The messages of one exchange, ordered by seq, with verdicts and findings. */
  messages(exchangeId: number): MessageRow[] {
    const records = (this.stmts.messages.all(exchangeId) as unknown[][]).map(storedMessageOf);
    const byMessage = new Map<number, Finding[]>();
    for (const f of this.stmts.findingsOfExchange.all(exchangeId) as StoredFinding[]) {
      let list = byMessage.get(f.messageId);
      if (list === undefined) byMessage.set(f.messageId, (list = []));
      list.push(finding(f));
    }
    return readingRows(this.file, () => records.map((m) => this.messageRow(m, byMessage.get(m.id) ?? [])));
  }

  /**
   * Every message of the recording in the order record judged them (by id, across exchanges), read a
   * page at a time so that a large recording is never held whole.
   */
  *messagesInOrder(pageSize = 1000): IterableIterator<MessageRow> {
    for (let after = 0; ; ) {
      const page = this.page(this.stmts.messagesAfter.all(after, pageSize) as unknown[][]);
      yield* page;
      if (page.length < pageSize) return;
      after = page[page.length - 1]!.id;
    }
  }

  /**
   * reader.messagesInOrder() with each message's stored JSON text where JSON.stringify writes its
   * value the same (MessageTextRow): `export` writes that text as it is instead of making it again.
   * Static, so that the reader's public shape (and every other reader of messages) stays as it is.
   */
  static *messagesWithTextInOrder(reader: RecordingReader, pageSize = 1000): IterableIterator<MessageTextRow> {
    for (const page of RecordingReader.messagePagesWithTextInOrder(reader, pageSize)) yield* page;
  }

  /**
   * messagesWithTextInOrder a page at a time, each page an array of its rows: `export` loops over
   * each page itself (a generator's step per message, and the iterator result it makes, cost more than
   * the loop). A plain row's verdict is shared by the rows of the same status and ref (not to be changed).
   */
  static *messagePagesWithTextInOrder(reader: RecordingReader, pageSize = 1000): IterableIterator<MessageTextRow[]> {
    const kinds = new PlainKinds(reader.schemaRefs);
    for (let after = 0; ; ) {
      const values = reader.stmts.exportAfter.all(after, pageSize) as ExportValues[];
      const page = readingRows(reader.file, () => {
        const rows: MessageTextRow[] = new Array(values.length);
        for (let i = 0; i < values.length; i++) rows[i] = reader.exportRow(values[i]!, kinds);
        return rows;
      });
      yield page;
      if (page.length < pageSize) return;
      after = page[page.length - 1]!.id;
    }
  }

  /**
   * The messages of one exchange as messages() gives them, from the `skip`+1th on, read a page at a
   * time so that an exchange of a million messages is never held whole (`show --exchange`).
   */
  *messagesOf(exchangeId: number, skip = 0, pageSize = 1000): IterableIterator<MessageRow> {
    for (let after = Number.MIN_SAFE_INTEGER, offset = skip; ; offset = 0) {
      const page = this.page(this.stmts.messagesOfAfter.all(exchangeId, after, pageSize, offset) as unknown[][]);
      yield* page;
      if (page.length < pageSize) return;
      after = page[page.length - 1]!.seq;
    }
  }

  /**
   * The messages of one exchange as judging them again needs them (MessageToJudge: no raw bytes for
   * a JSON message), in seq order, a page at a time. Static, so that the reader's public shape stays
   * as it is.
   */
  static *messagesToJudge(reader: RecordingReader, exchangeId: number, pageSize = 1000): IterableIterator<MessageToJudge> {
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      const values = reader.stmts.toJudgeAfter.all(exchangeId, after, pageSize) as ToJudgeValues[];
      const page = readingRows(reader.file, () => values.map((v) => reader.messageToJudge(exchangeId, v)));
      yield* page;
      if (page.length < pageSize) return;
      after = page[page.length - 1]!.seq;
    }
  }

  /**
   * messagesToJudge across the whole recording, in id order (the order record judged in), a page at a
   * time: what `validate` judges as it reads, holding no exchange's messages whole. A JSON text that
   * came before is not parsed again: the messages of one text share its value (core/repeated-json.ts),
   * which must not be changed.
   */
  static *messagesToJudgeInOrder(reader: RecordingReader, pageSize = 1000): IterableIterator<MessageToJudge> {
    for (const page of RecordingReader.messagePagesToJudgeInOrder(reader, pageSize)) yield* page;
  }

  /** messagesToJudgeInOrder a page at a time (`validate` loops over each page itself, as export does). */
  static *messagePagesToJudgeInOrder(reader: RecordingReader, pageSize = 1000): IterableIterator<MessageToJudge[]> {
    const texts = new RepeatedJson();
    const blockTexts = new BlockJsonTexts(reader.db);
    const routes = new RouteCodes();
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      const values = reader.stmts.toJudgeInOrderAfter.all(after, pageSize) as ToJudgeAnyValues[];
      const page = readingRows(reader.file, () => {
        const rows: MessageToJudge[] = new Array(values.length);
        for (let i = 0; i < values.length; i++) {
          // By index: a destructuring steps an iterator until the loop is optimized.
          const v = values[i]!;
          const text = blockTexts.textOf(v[0], v[4], v[3], v[5]);
          const code = v[2];
          rows[i] =
            code === null
              ? reader.messageToJudgeByRouteText(v[6], v[0], v[1], text, texts)
              : reader.messageToJudgeOf(v[6], v[0], v[1], routes.of(code), code & FINDINGS_BIT ? FINDINGS_BIT : 0, text, texts);
        }
        return rows;
      });
      yield page;
      if (page.length < pageSize) return;
      after = page[page.length - 1]!.id;
    }
  }

  /** The exchange's first client message that has a JSON value (its checker keeps it as the request), as messagesToJudge reads it. */
  static firstRequestToJudge(reader: RecordingReader, exchangeId: number): MessageToJudge | undefined {
    const values = reader.stmts.firstRequestToJudge.get(exchangeId) as ToJudgeValues | undefined;
    return values && readingRows(reader.file, () => reader.messageToJudge(exchangeId, values));
  }

  /**
   * Says the reader's rows are read once, in order (`export`, `validate`): SQLite's page cache (16 MiB
   * by default) would only grow, each of its pages fresh memory the kernel maps on first touch; 1 MiB
   * keeps what such a scan reads again (the upper levels of its index). Static, so that the reader's
   * public shape stays as it is.
   */
  static readsOnce(reader: RecordingReader): void {
    reader.db.pragma(`cache_size = -${SCAN_CACHE_KIB}`);
  }

  /** Does the exchange have at least one message? (One index seek: `validate` asks only of an exchange no protocol claimed.) */
  static hasMessages(reader: RecordingReader, exchangeId: number): boolean {
    return reader.stmts.hasMessages.get(exchangeId) === 1;
  }

  /** Every invalid message of the recording, ordered by id. */
  invalidMessages(): MessageRow[] {
    return this.page(this.stmts.invalid.all() as unknown[][]);
  }

  /** Every finding that passes `filter`, with its exchange and message, streamed row by row (one query). */
  findings(filter: FindingFilter = {}): IterableIterator<FindingListRow> {
    this.listFindings ??= prepareFindingList(this.db);
    return this.listFindings(filter);
  }

  totals(): StoreTotals {
    // An exchange's own finding (a failed TLS check) counts as `findings` and `validate` list it: one each.
    return this.stmts.totals.get({ codes: EXCHANGE_FINDING_CODES }) as StoreTotals;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** A page of rows read as arrays, made message rows with their findings. */
  private page(values: unknown[][]): MessageRow[] {
    return readingRows(this.file, () =>
      values.map((v) => {
        const m = storedMessageOf(v);
        return this.messageRow(m, this.findingsOf(m));
      }),
    );
  }

  private messageRow(m: StoredMessage, findings: Finding[]): MessageRow {
    return messageRow(m, findings, this.schemaRefs.of(m.schemaRef, m.schemaRefId));
  }

  private findingsOf(m: { id: number; findingCount: number }): Finding[] {
    if (m.findingCount === 0) return [];
    return (this.stmts.findingsOfMessage.all(m.id) as StoredFinding[]).map(finding);
  }

  /** findingsOf for a message to judge: most have none, and share one empty list (not to be changed). */
  private findingsToJudge(id: number, findingCount: number): Finding[] {
    return findingCount === 0 ? NO_FINDINGS : this.findingsOf({ id, findingCount });
  }

  /** A row of EXPORT_SELECT as export reads it: see MessageTextRow. */
  private exportRow(v: ExportValues, kinds: PlainKinds): MessageTextRow {
    const [id, exchangeId, seq, kind, tOffsetMs, rawText] = v;
    // Not plain, or of a kind not read as one value: read whole.
    if (rawText === null || kind === null) return this.messageTextRow(this.stmts.textById.get(id) as unknown[]);
    const { route, verdict, jsonAt: at } = kinds.of(kind);
    const end = takenTextEnd(rawText, at);
    if (end >= 0) {
      const { sender, carrier, channel } = route;
      return { id, exchangeId, seq, sender, carrier, channel, tOffsetMs, raw: null, rawTruncatedFrom: null, json: undefined, verdict, jsonText: rawText.slice(at, end), textBefore: textPart(rawText, 0, at), textAfter: textPart(rawText, end, rawText.length) };
    }
    // Not UTF-8 text, or a text the line does not take as it is: the line reads the bytes.
    return messageTextRow(storedMessageOf(this.stmts.messageById.get(id) as unknown[]), [], verdict.schemaRef ?? null);
  }

  /** A row of TEXT_SELECT as export reads it: see MessageTextRow. */
  private messageTextRow(v: unknown[]): MessageTextRow {
    const m = storedMessageOf(v);
    const findings = this.findingsOf(m);
    const schemaRef = this.schemaRefs.of(m.schemaRef, m.schemaRefId);
    const rawText = v[RAW_TEXT] as string | null;
    if (rawText !== null) {
      const row = textOnlyRow(m, rawText, verdictOf(m, findings, schemaRef));
      if (row !== undefined) return row;
      // Not UTF-8 text, or a text the line does not take as it is: the line reads the bytes.
      m.raw = this.stmts.raw.get(m.id) as Buffer;
    }
    return messageTextRow(m, findings, schemaRef);
  }

  private messageToJudge(exchangeId: number, v: ToJudgeValues): MessageToJudge {
    return this.messageToJudgeOf(exchangeId, v[0], v[1], this.routeOfText(v[0], v[2]), v[3], v[4]);
  }

  /** messageToJudgeOf a message whose route TO_JUDGE_ANY_SELECT could not code: its route and finding count read as TO_JUDGE_SELECT reads them. */
  private messageToJudgeByRouteText(exchangeId: number, id: number, seq: number, text: string | null, texts: RepeatedJson): MessageToJudge {
    const [routeText, findingCount] = this.stmts.routeAndCountById.get(id) as [string | null, number];
    return this.messageToJudgeOf(exchangeId, id, seq, this.routeOfText(id, routeText), findingCount, text, texts);
  }

  /**
   * messageToJudge of the values one by one (no array per message); `findingCount`: 0 when it has none
   * (anything else: its findings are read); `texts`: the repeated texts' values (RepeatedJson).
   */
  private messageToJudgeOf(exchangeId: number, id: number, seq: number, route: MessageRoute, findingCount: number, text: string | null, texts?: RepeatedJson): MessageToJudge {
    const { sender, carrier, channel } = route;
    const findings = this.findingsToJudge(id, findingCount);
    if (text === null) return { id, exchangeId, seq, sender, carrier, channel, findings, ...this.notJson(id, findings) };
    // Parsed as messageRow parses it: a damaged text is reported, a deep one handed out as text.
    let json = texts?.get(text);
    if (json === undefined) {
      json = jsonColumn(text, MESSAGE_COLUMNS.json.name, exchangeId, seq);
      texts?.parsed(text, json);
    }
    if (tooDeepToWalk(text)) return { id, exchangeId, seq, sender, carrier, channel, findings, raw: null, json: undefined, deepJson: text };
    return { id, exchangeId, seq, sender, carrier, channel, findings, raw: null, json };
  }

  /** The route of ROUTE_SQL's text `routeText` of message `id`. */
  private routeOfText(id: number, routeText: string | null): MessageRoute {
    return routeText === null ? this.routeById(id) : this.routes.of(routeText);
  }

  /** A message's route read from its own columns (a carrier no recorder writes: ROUTE_SQL does not join it). */
  private routeById(id: number): MessageRoute {
    const [sender, carrier, channel] = this.stmts.routeById.get(id) as [string, string, string | null];
    return routeOfColumns(oneString(sender), oneString(carrier), channel === null ? null : oneString(channel));
  }

  /** A message that is not JSON: its stored verdict (with `findings`) and its bytes. */
  private notJson(id: number, findings: Finding[]): { raw: Buffer; json: undefined; stored: Verdict } {
    const [status, storedRef, schemaRefId, reason, raw] = this.stmts.notJson.get(id) as NotJsonValues;
    const stored: Verdict = { status: oneString(status), findings };
    const schemaRef = this.schemaRefs.of(storedRef, schemaRefId);
    if (schemaRef !== null) stored.schemaRef = schemaRef;
    if (reason !== null) stored.reason = reason;
    return { raw, json: undefined, stored };
  }

}


/**
 * A literal, not a copy of the row minus its verdict columns: handing out messages is the hot path of
 * replay, export and diff, and the literal is a tenth cheaper. The row type comes from the schema,
 * so a new column that is missing here does not compile.
 */
function messageRow(m: StoredMessage, findings: Finding[], schemaRef: string | null): MessageRow {
  const verdict = verdictOf(m, findings, schemaRef);
  // JSON nested too deep to walk is handed out as its text (deepJson); it is parsed all the same, so
  // that a damaged column is reported here like any other.
  const text = storedJsonText(m);
  const json = text === null ? undefined : jsonColumn(text, MESSAGE_COLUMNS.json.name, m.exchangeId, m.seq);
  const { id, exchangeId, seq, sender, carrier, channel, tOffsetMs, rawTruncatedFrom } = m;
  const raw = m.raw as Buffer;
  // Written out, not spread in: a spread makes a slower object, for every message every command reads.
  if (text !== null && tooDeepToWalk(text)) return keepDeepValue({ id, exchangeId, seq, sender, carrier, channel, tOffsetMs, raw, rawTruncatedFrom, json: undefined, deepJson: text, verdict }, json);
  return { id, exchangeId, seq, sender, carrier, channel, tOffsetMs, raw, rawTruncatedFrom, json, verdict };
}

/** messageRow with the stored JSON text when it is in JSON.stringify's form (a deep one stays deepJson, as in messageRow). */
function messageTextRow(m: StoredMessage, findings: Finding[], schemaRef: string | null): MessageTextRow {
  const verdict = verdictOf(m, findings, schemaRef);
  const text = storedJsonText(m);
  const json = text === null ? undefined : jsonColumn(text, MESSAGE_COLUMNS.json.name, m.exchangeId, m.seq);
  const { id, exchangeId, seq, sender, carrier, channel, tOffsetMs, rawTruncatedFrom } = m;
  const raw = m.raw as Buffer;
  if (text !== null && tooDeepToWalk(text)) {
    return keepDeepValue({ id, exchangeId, seq, sender, carrier, channel, tOffsetMs, raw, rawTruncatedFrom, json: undefined, deepJson: text, verdict, jsonText: undefined, textBefore: '', textAfter: '' }, json);
  }
  const jsonText = text !== null && isCompactJson(text) ? text : undefined;
  return { id, exchangeId, seq, sender, carrier, channel, tOffsetMs, raw, rawTruncatedFrom, json, verdict, jsonText, textBefore: '', textAfter: '' };
}

/**
 * The row of a message whose raw bytes hold its JSON text at json_at, from raw's text, when the line
 * needs nothing else of raw (takenTextEnd). Else undefined.
 */
function textOnlyRow(m: StoredMessage, rawText: string, verdict: Verdict): MessageTextRow | undefined {
  const at = m.jsonAt!;
  const end = takenTextEnd(rawText, at);
  if (end < 0) return undefined;
  const { id, exchangeId, seq, sender, carrier, channel, tOffsetMs, rawTruncatedFrom } = m;
  return { id, exchangeId, seq, sender, carrier, channel, tOffsetMs, raw: null, rawTruncatedFrom, json: undefined, verdict, jsonText: rawText.slice(at, end), textBefore: rawText.slice(0, at), textAfter: rawText.slice(end) };
}

/**
 * Where the JSON text at `at` in raw's text ends (before its trailing white space), when the line can
 * take the text as it is: raw is UTF-8 (its text holds no U+FFFD, the decoder's stand-in for bytes that
 * are not, so the text is the bytes), what comes before `at` is ASCII (a byte is a character there),
 * and the JSON text is in JSON.stringify's form and not too deep to walk; else -1. Its value is not
 * parsed (the row's `json` is undefined): the line writes the text, and reads what it needs of the
 * value from it.
 */
function takenTextEnd(rawText: string, at: number): number {
  if (rawText.includes('\uFFFD')) return -1;
  for (let i = 0; i < at; i++) if (!(rawText.charCodeAt(i) < 0x80)) return -1;
  let end = rawText.length;
  for (let c = rawText.charCodeAt(end - 1); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = rawText.charCodeAt(end - 1)) end--;
  // A deep one is read by messageTextRow, which parses it (once: not here as well). A text this
  // scan takes is valid JSON: it is not parsed (a damaged one is not taken, and messageTextRow's
  // parse reports it). Scanned in place (isCompactJsonIn); only a text long enough to be deep is sliced for the depth scan.
  if (end - at > 2 * MAX_JSON_DEPTH && tooDeepToWalk(rawText.slice(at, end))) return -1;
  return isCompactJsonIn(rawText, at, end) ? end : -1;
}

/** The page cache of a reader that reads its rows once (readsOnce), in KiB. */
const SCAN_CACHE_KIB = 1024;

/** The findings of every message to judge that has none: shared, so frozen. */
const NO_FINDINGS = Object.freeze([]) as unknown as Finding[];

/**
 * text[start, end), as one string for the few that come around most JSON texts (an SSE event's `data: `
 * and blank line): a slice of a few characters is a copy, one for every message of an export.
 */
function textPart(text: string, start: number, end: number): string {
  const length = end - start;
  if (length === 0) return '';
  if (length <= 6) for (const part of SHORT_PARTS) if (part.length === length && text.startsWith(part, start)) return part;
  return text.slice(start, end);
}

const SHORT_PARTS = ['data: ', 'data:', '\n\n', '\n', '\r\n', '\r\n\r\n'];

function verdictOf(m: StoredMessage, findings: Finding[], schemaRef: string | null): Verdict {
  const verdict: Verdict = { status: m.status, findings };
  if (schemaRef !== null) verdict.schemaRef = schemaRef;
  if (m.reason !== null) verdict.reason = m.reason;
  return verdict;
}

function finding(f: StoredFinding): Finding {
  return { rule: f.rule, severity: f.severity, pointer: f.pointer, message: f.message };
}
