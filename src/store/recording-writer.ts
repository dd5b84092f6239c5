import type Database from 'better-sqlite3';
import { RULES_VERSION } from '../core/rules-version.js';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Finding } from '../core/finding.js';
import { stringifyJson } from '../core/json-text.js';
import { withFindings, type Verdict, type VerdictStatus } from '../core/verdict.js';
import { FORMAT_VERSION, RECORDING_TABLES, checkFormat, checkRecordingShape, migrate, tableNames } from './migrations.js';
import { openDatabase } from './open-database.js';
import { existsError, removeRecordingFiles } from './recording-files.js';
import { EVENT_LOOP_SCHEDULE, type CancelWrite, type FlushSchedule } from './flush-schedule.js';
import { StoreError, messageOf } from './store-errors.js';
import { storedRow } from './columns.js';
import { ChunkedInsert } from './chunked-insert.js';
import { END_EXCHANGE_SQL, UPDATE_EXCHANGE_SQL, endParams, mergeEnd, mergeUpdate, startedExchange, updateParams } from './exchange-changes.js';
import { EXCHANGE_COLUMNS, MESSAGE_COLUMNS, type ExchangeFields, type StoredExchange, type StoredMessage } from './schema.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate, MessageInput, RecordingMeta, StoreTotals } from './store-types.js';
import { StoredCredentials } from './stored-credentials.js';

export type { ExchangeEnd, ExchangeStart, ExchangeUpdate, MessageInput, Outcome, RecordingMeta, StoreTotals, Transport } from './store-types.js';

export interface RecordingWriterOptions {
  /** Longest time a queued row waits before it is written (default 50 ms). */
  flushIntervalMs?: number;
  /** Queued rows that trigger a write on the next turn of the event loop (default 1000). */
  maxBatch?: number;
  /** Replace an existing file instead of refusing with E_STORE_EXISTS. */
  overwrite?: boolean;
  /** A throwaway copy, rebuilt from its source if lost: no journal on disk, nothing synced (see openDatabase). */
  scratch?: boolean;
  /**
   * Called once when a background write fails. The writer then drops every later row (counted in
   * `dropped`) and `flush()`/`close()` throw the same error. Without it the failure only surfaces there.
   */
  onError?: (error: StoreError) => void;
  /**
   * Credentials of a well-known format (core/credential-formats.ts) are never stored: a credential
   * one of these matches is (`--keep-secrets-matching`); `all`: a copy of a file, stored as it is.
   */
  keepSecrets?: readonly RegExp[] | 'all';
  /** @internal when background writes run (default: timers of the event loop); tests inject their own. */
  schedule?: FlushSchedule;
}

/** Options of `RecordingWriter.append`: the same, minus `overwrite` and `scratch`. */
export type RecordingAppendOptions = Omit<RecordingWriterOptions, 'overwrite' | 'scratch'>;

export const DEFAULT_FLUSH_INTERVAL_MS = 50;
export const DEFAULT_MAX_BATCH = 1000;
/** A producer that never yields to the event loop gets a synchronous write at this many batches. */
const BACKSTOP_BATCHES = 8;
/** ... or once the queued messages hold this many bytes (raw and JSON text): a few large ones must not fill the heap. */
const BACKSTOP_BYTES = 8 * 1024 * 1024;

interface FindingParams { rule: string; severity: string; pointer: string; message: string }
interface VerdictParams { status: VerdictStatus; schemaRef: string | null; reason: string | null }

type Op =
  | { kind: 'begin'; row: StoredExchange }
  | { kind: 'update'; row: Partial<StoredExchange> }
  | { kind: 'end'; row: Partial<StoredExchange> }
  | { kind: 'message'; row: StoredMessage; findings: FindingParams[] }
  | { kind: 'findings'; messageId: number; exchangeId: number; verdict: VerdictParams; findings: FindingParams[] }
  /** Warnings added to a written message: its status stays. */
  | { kind: 'warnings'; messageId: number; exchangeId: number; findings: FindingParams[] };

interface Statements {
  insertRecording: Database.Statement;
  /** Exchanges and messages are inserted several rows per statement. */
  insertExchanges: ChunkedInsert<typeof EXCHANGE_COLUMNS>;
  updateExchange: Database.Statement;
  endExchange: Database.Statement;
  insertMessages: ChunkedInsert<typeof MESSAGE_COLUMNS>;
  updateVerdict: Database.Statement;
  insertFinding: Database.Statement;
  countFindings: Database.Statement;
  setEndedAt: Database.Statement;
}

/**
 * Records one session into one SQLite file without ever making the caller wait on the disk.
 *
 * Every method except `flush` and `close` only validates its arguments, assigns ids in memory and
 * pushes a row onto a queue. The queue is written in one transaction per batch: at the latest
 * `flushIntervalMs` after the first queued row (an unref'ed timer), or on the next turn of the
 * event loop once `maxBatch` rows are queued. A `kill -9` therefore loses at most the rows of the
 * last interval; the file itself stays consistent (WAL + synchronous=NORMAL).
 *
 * `RecordingWriter.append` continues an existing recording instead of creating one (replay's
 * "new episodes"), with the same batching and crash safety.
 *
 * The writer stores what it is given, redacted by the caller (headers, query parameters, JSON
 * fields), with one exception of its own: no credential of a well-known format is ever stored
 * (store/stored-credentials.ts), whoever the caller is.
 */
export class RecordingWriter {
  /** The absolute path of the recording. */
  readonly file: string;
  /** The recording's `started_at`: every `tOffsetMs` given to this writer counts from it. */
  readonly startedAt: Date;
  /** True when the writer continues an existing recording (`RecordingWriter.append`). */
  readonly appending: boolean;
  private readonly db: Database.Database;
  private readonly stmts: Statements;
  private readonly writeBatch: (ops: Op[]) => void;
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly onError?: (error: StoreError) => void;
  private readonly credentials: StoredCredentials;

  private queue: Op[] = [];
  private queuedRows = 0;
  /** Bytes of raw and JSON text the queued messages hold. */
  private queuedBytes = 0;
  /**
   * Exchange rows whose insert is in `queue`, by id: later updates and ends merge into them, so a
   * short exchange becomes one INSERT instead of an INSERT and two or three UPDATEs.
   */
  private readonly queuedExchanges = new Map<number, StoredExchange>();
  private readonly schedule: FlushSchedule;
  private cancelLater: CancelWrite | undefined;
  private cancelSoon: CancelWrite | undefined;
  private closed = false;
  private failed: StoreError | undefined;
  private droppedRows = 0;

  private nextExchangeId = 1;
  private nextMessageId = 1;
  /** The first message id of this writer: earlier messages belong to the file, not to this session. */
  private firstMessageId = 1;
  /** The next seq of each exchange begun so far. */
  private readonly nextSeq = new ExchangeSeqs();
  /** Ids of messages whose current status is invalid, so addFindings can keep `invalid` exact. */
  private readonly invalidIds = new Set<number>();
  private readonly running: StoreTotals = { exchanges: 0, messages: 0, invalid: 0, findings: 0 };

  private constructor(file: string, db: Database.Database, options: RecordingWriterOptions, startedAt: Date, appending: boolean) {
    this.file = file;
    this.startedAt = startedAt;
    this.appending = appending;
    this.db = db;
    this.flushIntervalMs = Math.max(0, options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS);
    this.maxBatch = Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH);
    this.onError = options.onError;
    this.schedule = options.schedule ?? EVENT_LOOP_SCHEDULE;
    this.credentials = new StoredCredentials(options.keepSecrets);
    this.stmts = prepareStatements(db);
    this.writeBatch = db.transaction((ops: Op[]) => this.apply(ops));
  }

  /**
   * Creates the recording file (and its parent directories) and writes the `recording` row.
   * Refuses an existing non-empty file with E_STORE_EXISTS unless `options.overwrite`.
   */
  static open(file: string, meta: RecordingMeta, options: RecordingWriterOptions = {}): RecordingWriter {
    const path = resolve(file);
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw new StoreError('E_STORE_OPEN', path, `cannot create the folder for ${path}: ${messageOf(error)}`, { cause: error });
    }
    if (existsSync(path) && statSync(path).size > 0) {
      if (!options.overwrite) {
        throw existsError(path);
      }
      try {
        for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
      } catch (error) {
        throw new StoreError('E_STORE_OPEN', path, `cannot replace ${path}: ${messageOf(error)}`, { cause: error });
      }
    }
    const created = !existsSync(path);
    const db = openDatabase(path, { scratch: options.scratch });
    try {
      migrate(db, path);
      const writer = new RecordingWriter(path, db, options, meta.startedAt, false);
      writer.stmts.insertRecording.run({
        formatVersion: FORMAT_VERSION,
        toolVersion: meta.toolVersion,
        target: writer.credentials.target(meta.target) ?? null,
        listen: meta.listen ?? null,
        mode: meta.mode,
        startedAt: meta.startedAt.toISOString(),
        schemaHashes: JSON.stringify(meta.schemaHashes),
        rulesVersion: meta.rulesVersion === undefined ? RULES_VERSION : meta.rulesVersion,
      });
      return writer;
    } catch (error) {
      db.close();
      // A file this call made and could not start is no recording: it would block the retry.
      if (created) removeRecordingFiles(path);
      if (error instanceof StoreError) throw error;
      throw new StoreError('E_STORE_OPEN', path, `cannot start a recording in ${path}: ${messageOf(error)}`, { cause: error });
    }
  }

  /**
   * Continues an existing recording ("new episodes"): the file is checked and upgraded like
   * `RecordingReader.open` does, exchange and message ids continue after the largest ones in the
   * file, and the `recording` row is kept as it is (only `ended_at` is set again by `close`).
   * Rows already in the file are never changed: `updateExchange`, `addMessage`, `addFindings` and
   * `endExchange` accept only exchanges and messages this writer created. Offsets (`tOffsetMs`)
   * count from the recording's `started_at`, available as `startedAt`.
   *
   * A reader of the same file may stay open meanwhile (WAL). Only one writer may append to a file
   * at a time: ids are allocated in memory, so a second concurrent writer fails its first batch
   * with E_STORE_WRITE (a primary-key conflict), leaving the file intact.
   *
   * Errors: E_STORE_OPEN (missing or unreadable), E_STORE_NOT_RECORDING, E_STORE_VERSION.
   */
  static append(file: string, options: RecordingAppendOptions = {}): RecordingWriter {
    const path = resolve(file);
    if (!existsSync(path)) throw new StoreError('E_STORE_OPEN', path, `no recording at ${path} to append to`);
    // Look before writing: a file that is no recording must not even get its journal mode changed.
    const probe = openDatabase(path, { readonly: true });
    try {
      const version = checkFormat(probe, path);
      if (version === 0) {
        throw new StoreError('E_STORE_NOT_RECORDING', path, `${path}: not a recording (an SQLite database without tables)`);
      }
      checkRecordingShape(probe, path, version);
    } finally {
      probe.close();
    }
    const db = openDatabase(path);
    try {
      migrate(db, path);
      const tables = tableNames(db, path);
      const missing = RECORDING_TABLES.filter((t) => !tables.includes(t));
      if (missing.length > 0) {
        throw new StoreError('E_STORE_NOT_RECORDING', path, `${path}: not a recording (missing tables: ${missing.join(', ')})`);
      }
      const row = db.prepare('SELECT started_at FROM recording WHERE id = 1').get() as { started_at: string } | undefined;
      if (row === undefined) {
        throw new StoreError('E_STORE_NOT_RECORDING', path, `${path}: not a recording (no recording row)`);
      }
      const startedAt = new Date(row.started_at);
      if (Number.isNaN(startedAt.getTime())) {
        throw new StoreError('E_STORE_NOT_RECORDING', path, `${path} has an unreadable recording.started_at (${row.started_at})`);
      }
      const max = db.prepare('SELECT (SELECT coalesce(max(id), 0) FROM exchanges) AS exchange, (SELECT coalesce(max(id), 0) FROM messages) AS message').get() as {
        exchange: number;
        message: number;
      };
      const writer = new RecordingWriter(path, db, options, startedAt, true);
      writer.nextExchangeId = writer.nextSeq.firstId = max.exchange + 1;
      writer.nextMessageId = writer.firstMessageId = max.message + 1;
      return writer;
    } catch (error) {
      db.close();
      if (error instanceof StoreError) throw error;
      throw new StoreError('E_STORE_OPEN', path, `cannot append to ${path}: ${messageOf(error)}`, { cause: error });
    }
  }

  /** Running totals of what was enqueued (not only what was written), for the live status line. */
  get totals(): StoreTotals {
    return { ...this.running };
  }

  /** Rows waiting to be written. */
  get pending(): number {
    return this.queuedRows;
  }

  /** Rows discarded after a write failure. */
  get dropped(): number {
    return this.droppedRows;
  }

  /** The write failure that stopped the writer, if any. */
  get failure(): StoreError | undefined {
    return this.failed;
  }

  /** Starts an exchange and returns its id. */
  beginExchange(start: ExchangeStart): number {
    this.assertOpen('beginExchange');
    return this.addExchange((id) => startedExchange(id, this.credentials.exchange(id, start)));
  }

  /**
   * Adds a whole exchange, every column as given (an imported copy's), and returns its id: the next
   * one, not `exchange.id`. A column the exchange lacks is null.
   */
  restoreExchange(exchange: Partial<ExchangeFields> & Pick<ExchangeFields, 'transport' | 'startedMs'>): number {
    this.assertOpen('restoreExchange');
    return this.addExchange((id) => {
      const row = storedRow(EXCHANGE_COLUMNS, this.credentials.exchange(id, exchange));
      row.id = id;
      return row;
    });
  }

  private addExchange(rowOf: (id: number) => StoredExchange): number {
    const id = this.nextExchangeId++;
    this.nextSeq.begin(id);
    this.running.exchanges++;
    const row = rowOf(id);
    // Set first: a backstop write inside enqueue takes the row with it and clears the map.
    this.queuedExchanges.set(id, row);
    if (!this.enqueue({ kind: 'begin', row }, 1)) this.queuedExchanges.delete(id);
    return id;
  }

  /** Records what was learnt after the start (status, response headers, protocol...). Undefined fields keep their value. */
  updateExchange(id: number, given: ExchangeUpdate): void {
    this.assertOpen('updateExchange');
    this.assertExchange(id);
    const update = given.responseHeaders === undefined ? given : this.credentials.exchange(id, given);
    const queued = this.queuedExchanges.get(id);
    if (queued) {
      mergeUpdate(queued, update);
      return;
    }
    this.enqueue({ kind: 'update', row: updateParams(id, update) }, 1);
  }

  /** Records one message and its verdict; returns the message id. Its seq is the order of calls within the exchange. */
  addMessage(message: MessageInput): number {
    this.assertOpen('addMessage');
    const seq = this.nextSeq.get(message.exchangeId);
    if (seq === undefined) throw this.unknownExchange(message.exchangeId);
    this.nextSeq.set(message.exchangeId, seq + 1);
    const id = this.nextMessageId++;
    this.nextSeq.setLastMessage(message.exchangeId, id);
    const stored = this.credentials.message(message.raw, message.jsonText ?? jsonText(message.json), message.json, message.channel, message.jsonText !== undefined);
    const held = this.credentials.take(message.exchangeId);
    let judged = stored.findings.length > 0 ? withFindings(message.verdict, stored.findings) : message.verdict;
    if (held) judged = withFindings(judged, held);
    const verdict = verdictParams(judged);
    if (verdict.reason !== null) verdict.reason = this.credentials.text(verdict.reason);
    const findings = judged.findings.map((f) => this.findingParams(f));
    this.running.messages++;
    this.running.findings += findings.length;
    this.trackStatus(id, verdict.status);
    const json = stored.json;
    this.enqueue({
      kind: 'message',
      findings,
      row: {
        id,
        exchangeId: message.exchangeId,
        seq,
        sender: message.sender,
        carrier: message.carrier,
        channel: message.channel ?? null,
        tOffsetMs: message.tOffsetMs,
        // A copy: the caller may reuse its buffer, and a view would pin a larger parent buffer.
        raw: stored.raw === message.raw ? Buffer.from(message.raw) : stored.raw,
        rawTruncatedFrom: message.rawTruncatedFrom ?? null,
        json,
        status: verdict.status,
        schemaRef: verdict.schemaRef,
        reason: verdict.reason,
        findingCount: findings.length,
      },
    }, 1 + findings.length, stored.raw.length + (json?.length ?? 0));
    return id;
  }

  /**
   * Attaches stream-level findings to a message that may already be written: appends the findings
   * rows and replaces the message's status, schema ref and reason with `verdict`'s.
   */
  addFindings(messageId: number, exchangeId: number, findings: Finding[], verdict: Verdict): void {
    this.assertOpen('addFindings');
    this.assertExchange(exchangeId);
    if (!Number.isInteger(messageId) || messageId < this.firstMessageId || messageId >= this.nextMessageId) {
      const where = this.appending ? 'added by this writer' : 'in this recording';
      throw new StoreError('E_STORE_STATE', this.file, `addFindings: no message ${messageId} ${where}`);
    }
    const params = verdictParams(verdict);
    params.reason = params.reason === null ? null : this.credentials.text(params.reason);
    this.running.findings += findings.length;
    this.trackStatus(messageId, params.status);
    this.enqueue({ kind: 'findings', messageId, exchangeId, verdict: params, findings: findings.map((f) => this.findingParams(f)) }, 1 + findings.length);
  }

  /** Records how the exchange ended. A second call replaces the first. */
  endExchange(id: number, given: ExchangeEnd): void {
    this.assertOpen('endExchange');
    this.assertExchange(id);
    const end = given.errorMessage === undefined && given.closeReason === undefined ? given : this.credentials.exchange(id, given);
    // Credentials of its headers or URL that no later message took: on its last message, if it has one.
    const held = this.credentials.take(id);
    const last = this.nextSeq.lastMessage(id);
    if (held && last !== undefined) {
      this.running.findings += held.length;
      this.enqueue({ kind: 'warnings', messageId: last, exchangeId: id, findings: held.map(findingParams) }, held.length);
    }
    const queued = this.queuedExchanges.get(id);
    if (queued) {
      mergeEnd(queued, end);
      return;
    }
    this.enqueue({ kind: 'end', row: endParams(id, end) }, 1);
  }

  /** Writes everything queued now, in one transaction. Throws the write failure, if any. */
  flush(): void {
    this.assertOpen('flush');
    if (this.failed) throw this.failed;
    this.writeQueued(false);
  }

  /**
   * Writes what is queued and the end time, checkpoints the WAL into the main file, switches the file
   * back to a rollback journal when no other connection has it open (so the closed recording is one
   * self-contained file that opens even from a read-only folder), and closes it.
   * Calling it again does nothing. Throws the write failure, if any, after closing. `endedAt` null
   * leaves the recording without an end (an imported copy of one that never ended).
   */
  close(endedAt: Date | null = new Date()): void {
    if (this.closed) return;
    this.cancelScheduled();
    try {
      if (!this.failed) {
        this.writeQueued(false);
        this.stmts.setEndedAt.run(endedAt === null ? null : endedAt.toISOString());
        this.db.pragma('wal_checkpoint(TRUNCATE)');
        this.leaveWal();
      }
    } catch (error) {
      this.failed ??= writeError(this.file, error);
    } finally {
      this.closed = true;
      this.queue = [];
      this.queuedRows = 0;
      this.queuedBytes = 0;
      this.queuedExchanges.clear();
      this.db.close();
    }
    if (this.failed) throw this.failed;
  }

  private leaveWal(): void {
    // Changing the journal mode needs the only connection; a live `proxy show` keeps WAL, which is fine.
    try {
      this.db.pragma('busy_timeout = 0');
      this.db.pragma('journal_mode = DELETE');
    } catch {
      // Another process reads the file: it stays in WAL mode, equally valid.
    }
  }

  /** Returns false when the op was dropped (after a write failure). `bytes`: what a message holds. */
  private enqueue(op: Op, rows: number, bytes = 0): boolean {
    if (this.failed) {
      this.droppedRows += rows;
      return false;
    }
    this.queue.push(op);
    this.queuedRows += rows;
    this.queuedBytes += bytes;
    if (this.queuedRows >= this.maxBatch * BACKSTOP_BATCHES || this.queuedBytes >= BACKSTOP_BYTES) {
      this.writeInBackground();
    } else if (this.queuedRows >= this.maxBatch) {
      this.cancelSoon ??= this.schedule.soon(() => this.writeInBackground());
    } else {
      this.cancelLater ??= this.schedule.later(this.flushIntervalMs, () => this.writeInBackground());
    }
    return true;
  }

  private writeInBackground(): void {
    if (this.closed || this.failed) return;
    try {
      this.writeQueued(true);
    } catch {
      // Reported through onError by writeQueued; never thrown into a timer or the forwarding path.
    }
  }

  private writeQueued(notify: boolean): void {
    this.cancelScheduled();
    if (this.queue.length === 0) return;
    const ops = this.queue;
    const rows = this.queuedRows;
    this.queue = [];
    this.queuedRows = 0;
    this.queuedBytes = 0;
    // From here on these rows are being written: later changes to them become UPDATEs again.
    this.queuedExchanges.clear();
    try {
      this.writeBatch(ops);
    } catch (error) {
      this.stmts.insertExchanges.discard();
      this.stmts.insertMessages.discard();
      this.failed = writeError(this.file, error);
      this.droppedRows += rows;
      if (notify) this.onError?.(this.failed);
      throw this.failed;
    }
  }

  /**
   * Applies a batch in order, with one liberty: new exchanges and messages wait in their
   * ChunkedInserts for a fuller INSERT. Whatever refers to a row (a message to its exchange, a
   * finding to its message, an update to its exchange) waits until that row is in.
   */
  private apply(ops: Op[]): void {
    const s = this.stmts;
    const exchanges = s.insertExchanges;
    const messages = s.insertMessages;
    for (const op of ops) {
      switch (op.kind) {
        case 'begin':
          exchanges.add(op.row);
          break;
        case 'update':
          exchanges.flush();
          s.updateExchange.run(op.row);
          break;
        case 'end':
          exchanges.flush();
          s.endExchange.run(op.row);
          break;
        case 'message': {
          messages.add(op.row);
          if (op.findings.length === 0) break;
          messages.flush();
          for (const f of op.findings) s.insertFinding.run({ messageId: op.row.id, exchangeId: op.row.exchangeId, ...f });
          break;
        }
        case 'findings': {
          messages.flush();
          for (const f of op.findings) s.insertFinding.run({ messageId: op.messageId, exchangeId: op.exchangeId, ...f });
          s.updateVerdict.run({ id: op.messageId, added: op.findings.length, ...op.verdict });
          break;
        }
        case 'warnings': {
          messages.flush();
          for (const f of op.findings) s.insertFinding.run({ messageId: op.messageId, exchangeId: op.exchangeId, ...f });
          s.countFindings.run({ id: op.messageId, added: op.findings.length });
          break;
        }
      }
    }
    messages.flush();
    exchanges.flush();
  }

  private cancelScheduled(): void {
    this.cancelLater?.();
    this.cancelLater = undefined;
    this.cancelSoon?.();
    this.cancelSoon = undefined;
  }

  /** A finding as stored: its sentence and pointer without credentials (a judge may quote a value). */
  private findingParams(f: Finding): FindingParams {
    return { rule: f.rule, severity: f.severity, pointer: this.credentials.text(f.pointer), message: this.credentials.text(f.message) };
  }

  private trackStatus(messageId: number, status: VerdictStatus): void {
    if (status === 'invalid') {
      if (!this.invalidIds.has(messageId)) {
        this.invalidIds.add(messageId);
        this.running.invalid++;
      }
    } else if (this.invalidIds.delete(messageId)) {
      this.running.invalid--;
    }
  }

  private assertOpen(method: string): void {
    if (this.closed) throw new StoreError('E_STORE_STATE', this.file, `${method}: the recording ${this.file} is closed`);
  }

  private assertExchange(id: number): void {
    if (!this.nextSeq.has(id)) throw this.unknownExchange(id);
  }

  private unknownExchange(id: number): StoreError {
    const where = this.appending ? 'begun by this writer (rows already in the file are never changed)' : 'in this recording';
    return new StoreError('E_STORE_STATE', this.file, `no exchange ${id} ${where} (beginExchange returns the ids)`);
  }
}

/**
 * The next seq of every exchange this writer began, by id. Ids are handed out in order, so a plain
 * array indexed from the first id holds them: no Map entry per exchange for the collector to trace.
 */
class ExchangeSeqs {
  firstId = 1;
  private readonly seqs: number[] = [];
  private readonly lastMessages: number[] = [];

  begin(id: number): void {
    this.seqs[id - this.firstId] = 1;
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  get(id: number): number | undefined {
    return Number.isInteger(id) && id >= this.firstId ? this.seqs[id - this.firstId] : undefined;
  }

  set(id: number, seq: number): void {
    this.seqs[id - this.firstId] = seq;
  }

  /** The id of the last message added to exchange `id` by this writer, if any. */
  lastMessage(id: number): number | undefined {
    return Number.isInteger(id) && id >= this.firstId ? this.lastMessages[id - this.firstId] : undefined;
  }

  setLastMessage(id: number, messageId: number): void {
    this.lastMessages[id - this.firstId] = messageId;
  }
}

function prepareStatements(db: Database.Database): Statements {
  const insertExchanges = new ChunkedInsert(db, 'exchanges', EXCHANGE_COLUMNS);
  return {
    insertRecording: db.prepare(`
      INSERT INTO recording (id, format_version, tool_version, target, listen, mode, started_at, schema_hashes, rules_version)
      VALUES (1, @formatVersion, @toolVersion, @target, @listen, @mode, @startedAt, @schemaHashes, @rulesVersion)`),
    insertExchanges,
    updateExchange: db.prepare(UPDATE_EXCHANGE_SQL),
    endExchange: db.prepare(END_EXCHANGE_SQL),
    insertMessages: new ChunkedInsert(db, 'messages', MESSAGE_COLUMNS, insertExchanges),
    updateVerdict: db.prepare(`
      UPDATE messages SET status = @status, schema_ref = @schemaRef, reason = @reason, finding_count = finding_count + @added
      WHERE id = @id`),
    insertFinding: db.prepare(`
      INSERT INTO findings (message_id, exchange_id, rule, severity, pointer, message)
      VALUES (@messageId, @exchangeId, @rule, @severity, @pointer, @message)`),
    countFindings: db.prepare('UPDATE messages SET finding_count = finding_count + @added WHERE id = @id'),
    setEndedAt: db.prepare('UPDATE recording SET ended_at = ? WHERE id = 1'),
  };
}

function verdictParams(verdict: Verdict): VerdictParams {
  return { status: verdict.status, schemaRef: verdict.schemaRef ?? null, reason: verdict.reason ?? null };
}

function findingParams(f: Finding): FindingParams {
  return { rule: f.rule, severity: f.severity, pointer: f.pointer, message: f.message };
}

/** The parsed value as JSON text, at any depth; null (SQL NULL) when there is none or it cannot be serialised. */
function jsonText(value: unknown): string | null {
  if (value === undefined) return null;
  try {
    return stringifyJson(value) ?? null;
  } catch {
    return null;
  }
}

function writeError(file: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  return new StoreError('E_STORE_WRITE', file, `cannot write to the recording ${file}: ${messageOf(error)}; later messages are not recorded`, { cause: error });
}
