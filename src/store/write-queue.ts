import type Database from 'better-sqlite3';
import type { VerdictStatus } from '../core/verdict.js';
import { ChunkedInsert } from './chunked-insert.js';
import { END_EXCHANGE_SQL, UPDATE_EXCHANGE_SQL, endParams, mergeEnd, mergeUpdate, updateParams } from './exchange-changes.js';
import type { CancelWrite, FlushSchedule } from './flush-schedule.js';
import { finishRecordingFile } from './recording-lifecycle.js';
import { EXCHANGE_COLUMNS, MESSAGE_COLUMNS, type StoredExchange, type StoredMessage } from './schema.js';
import { StoreError, messageOf } from './store-errors.js';
import type { ExchangeEnd, ExchangeUpdate } from './store-types.js';

/** A producer that never yields to the event loop gets a synchronous write at this many batches. */
const BACKSTOP_BATCHES = 8;
/** ... or once the queued messages hold this many bytes (raw and JSON text): a few large ones must not fill the heap. */
const BACKSTOP_BYTES = 8 * 1024 * 1024;

export interface FindingParams { rule: string; severity: string; pointer: string; message: string }
/** A verdict as stored: its schema ref by id (store/schema-refs.ts). */
export interface VerdictParams { status: VerdictStatus; schemaRefId: number | null; reason: string | null }

/** The `recording` row, as its INSERT takes it. */
export interface RecordingRowParams {
  formatVersion: number;
  toolVersion: string;
  target: string | null;
  listen: string | null;
  mode: string;
  startedAt: string;
  schemaHashes: string;
  rulesVersion: number | null;
}

export interface WriteQueueOptions {
  /** Longest time a queued row waits before it is written. */
  flushIntervalMs: number;
  /** Queued rows that trigger a write on the next turn of the event loop. */
  maxBatch: number;
  /** When background writes run. */
  schedule: FlushSchedule;
  /** Called once when a background write fails. */
  onError?: (error: StoreError) => void;
}

type Op =
  | { kind: 'begin'; row: StoredExchange }
  | { kind: 'update'; row: Partial<StoredExchange> }
  | { kind: 'end'; row: Partial<StoredExchange> }
  | { kind: 'message'; row: StoredMessage; findings: readonly FindingParams[] }
  | { kind: 'findings'; messageId: number; exchangeId: number; verdict: VerdictParams; findings: FindingParams[] }
  /** Warnings added to a written message: its status stays. */
  | { kind: 'warnings'; messageId: number; exchangeId: number; findings: FindingParams[] }
  | { kind: 'schemaRef'; id: number; ref: string };

interface Statements {
  insertRecording: Database.Statement;
  /** Exchanges and messages are inserted several rows per statement. */
  insertExchanges: ChunkedInsert<typeof EXCHANGE_COLUMNS>;
  updateExchange: Database.Statement;
  endExchange: Database.Statement;
  insertMessages: ChunkedInsert<typeof MESSAGE_COLUMNS>;
  updateVerdict: Database.Statement;
  insertFinding: Database.Statement;
  insertSchemaRef: Database.Statement;
  countFindings: Database.Statement;
  setEndedAt: Database.Statement;
}

/**
 * The rows of a RecordingWriter on their way to the file, off the caller's path: each call only
 * queues a row, and the queue is written in one transaction per batch, at the latest
 * `flushIntervalMs` after the first queued row, or on the next turn of the event loop once
 * `maxBatch` rows are queued, or at once when a producer that never yields has queued far more
 * (BACKSTOP_*). After a failed write every later row is dropped (counted in `dropped`), the failure
 * is told once to `onError`, and `flush()`/`close()` throw it. The queue owns the connection it is
 * given: `close()` closes it.
 */
export class WriteQueue {
  private readonly stmts: Statements;
  private readonly writeBatch: (ops: Op[]) => void;
  private queue: Op[] = [];
  private queuedRows = 0;
  /** Bytes of raw and JSON text the queued messages hold. */
  private queuedBytes = 0;
  /**
   * Exchange rows whose insert is in `queue`, by id: later updates and ends merge into them, so a
   * short exchange becomes one INSERT instead of an INSERT and two or three UPDATEs.
   */
  private readonly queuedExchanges = new Map<number, StoredExchange>();
  private cancelLater: CancelWrite | undefined;
  private cancelSoon: CancelWrite | undefined;
  private isClosed = false;
  private failed: StoreError | undefined;
  private droppedRows = 0;

  constructor(
    private readonly file: string,
    private readonly db: Database.Database,
    private readonly options: WriteQueueOptions,
  ) {
    this.stmts = prepareStatements(db);
    this.writeBatch = db.transaction((ops: Op[]) => this.apply(ops));
  }

  /** Rows waiting to be written. */
  get pending(): number {
    return this.queuedRows;
  }

  /** Rows discarded after a write failure. */
  get dropped(): number {
    return this.droppedRows;
  }

  /** The write failure that stopped the queue, if any. */
  get failure(): StoreError | undefined {
    return this.failed;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Writes the `recording` row at once: a new file has it before any other row. */
  insertRecording(row: RecordingRowParams): void {
    this.stmts.insertRecording.run(row);
  }

  beginExchange(row: StoredExchange): void {
    // Set first: a backstop write inside enqueue takes the row with it and clears the map.
    this.queuedExchanges.set(row.id, row);
    if (!this.enqueue({ kind: 'begin', row }, 1)) this.queuedExchanges.delete(row.id);
  }

  updateExchange(id: number, update: ExchangeUpdate): void {
    const queued = this.queuedExchanges.get(id);
    if (queued) {
      mergeUpdate(queued, update);
      return;
    }
    this.enqueue({ kind: 'update', row: updateParams(id, update) }, 1);
  }

  endExchange(id: number, end: ExchangeEnd): void {
    const queued = this.queuedExchanges.get(id);
    if (queued) {
      mergeEnd(queued, end);
      return;
    }
    this.enqueue({ kind: 'end', row: endParams(id, end) }, 1);
  }

  /** A message and the findings of its verdict. */
  addMessage(row: StoredMessage, findings: readonly FindingParams[]): void {
    this.enqueue({ kind: 'message', row, findings }, 1 + findings.length, row.raw.length + (row.json?.length ?? 0));
  }

  /** Findings for a message that may already be written, whose verdict becomes `verdict`. */
  addFindings(messageId: number, exchangeId: number, verdict: VerdictParams, findings: FindingParams[]): void {
    this.enqueue({ kind: 'findings', messageId, exchangeId, verdict, findings }, 1 + findings.length);
  }

  /** A schema ref seen for the first time, before the rows that name it by `id`. */
  addSchemaRef(id: number, ref: string): void {
    this.enqueue({ kind: 'schemaRef', id, ref }, 1);
  }

  /** Warnings for a message that may already be written: its verdict stays. */
  addWarnings(messageId: number, exchangeId: number, findings: FindingParams[]): void {
    this.enqueue({ kind: 'warnings', messageId, exchangeId, findings }, findings.length);
  }

  /** Writes everything queued now, in one transaction. Throws the write failure, if any. */
  flush(): void {
    if (this.failed) throw this.failed;
    this.writeQueued(false);
  }

  /**
   * Writes what is queued and the end time (null: none), runs `beforeFinish` on the connection,
   * leaves the file finished (recording-lifecycle.ts) and closes it. Calling it again does nothing.
   * Throws the write failure, if any, after closing.
   */
  close(endedAt: Date | null, beforeFinish?: (db: Database.Database) => void): void {
    if (this.isClosed) return;
    this.cancelScheduled();
    try {
      if (!this.failed) {
        this.writeQueued(false);
        this.stmts.setEndedAt.run(endedAt === null ? null : endedAt.toISOString());
        beforeFinish?.(this.db);
        finishRecordingFile(this.db);
      }
    } catch (error) {
      this.failed ??= writeError(this.file, error);
    } finally {
      this.isClosed = true;
      this.queue = [];
      this.queuedRows = 0;
      this.queuedBytes = 0;
      this.queuedExchanges.clear();
      this.db.close();
    }
    if (this.failed) throw this.failed;
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
    const { maxBatch, schedule } = this.options;
    if (this.queuedRows >= maxBatch * BACKSTOP_BATCHES || this.queuedBytes >= BACKSTOP_BYTES) {
      this.writeInBackground();
    } else if (this.queuedRows >= maxBatch) {
      this.cancelSoon ??= schedule.soon(() => this.writeInBackground());
    } else {
      this.cancelLater ??= schedule.later(this.options.flushIntervalMs, () => this.writeInBackground());
    }
    return true;
  }

  private writeInBackground(): void {
    if (this.isClosed || this.failed) return;
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
      if (notify) this.options.onError?.(this.failed);
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
        case 'schemaRef':
          s.insertSchemaRef.run(op.id, op.ref);
          break;
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
}

/**
 * Columns left out of a chunk's INSERT when all its rows have them null (chunked-insert.ts): what
 * only an error, a cut body, a stdio child, TLS or a tunnel sets, and what raw already holds.
 */
const EXCHANGES_USUALLY_NULL = ['query', 'subprotocol', 'errorCode', 'errorMessage', 'closeCode', 'closeReason', 'exitCode', 'signal', 'tls', 'stdinEndedMs', 'tunnel'] as const;
export const MESSAGES_USUALLY_NULL = ['rawTruncatedFrom', 'json', 'schemaRef', 'reason'] as const;
/**
 * Columns written as literals into a chunk's INSERT when all its rows hold the same value
 * (chunked-insert.ts): a stream's messages nearly always do.
 */
export const MESSAGES_USUALLY_SHARED = ['sender', 'carrier', 'channel', 'status', 'findingCount'] as const;

function prepareStatements(db: Database.Database): Statements {
  const insertExchanges = new ChunkedInsert(db, 'exchanges', EXCHANGE_COLUMNS, undefined, EXCHANGES_USUALLY_NULL);
  return {
    insertRecording: db.prepare(`
      INSERT INTO recording (id, format_version, tool_version, target, listen, mode, started_at, schema_hashes, rules_version)
      VALUES (1, @formatVersion, @toolVersion, @target, @listen, @mode, @startedAt, @schemaHashes, @rulesVersion)`),
    insertExchanges,
    updateExchange: db.prepare(UPDATE_EXCHANGE_SQL),
    endExchange: db.prepare(END_EXCHANGE_SQL),
    insertMessages: new ChunkedInsert(db, 'messages', MESSAGE_COLUMNS, insertExchanges, MESSAGES_USUALLY_NULL, MESSAGES_USUALLY_SHARED),
    updateVerdict: db.prepare(`
      UPDATE messages SET status = @status, schema_ref = NULL, schema_ref_id = @schemaRefId, reason = @reason, finding_count = finding_count + @added
      WHERE id = @id`),
    insertFinding: db.prepare(`
      INSERT INTO findings (message_id, exchange_id, rule, severity, pointer, message)
      VALUES (@messageId, @exchangeId, @rule, @severity, @pointer, @message)`),
    insertSchemaRef: db.prepare('INSERT INTO schema_refs (id, ref) VALUES (?, ?)'),
    countFindings: db.prepare('UPDATE messages SET finding_count = finding_count + @added WHERE id = @id'),
    setEndedAt: db.prepare('UPDATE recording SET ended_at = ? WHERE id = 1'),
  };
}

function writeError(file: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  return new StoreError('E_STORE_WRITE', file, `cannot write to the recording ${file}: ${messageOf(error)}; later messages are not recorded`, { cause: error });
}
