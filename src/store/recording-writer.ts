import type Database from 'better-sqlite3';
import { RULES_VERSION } from '../core/rules-version.js';
import { resolve } from 'node:path';
import type { Finding } from '../core/finding.js';
import { stringifyJson } from '../core/json-text.js';
import { writtenJsonOf } from './written-json.js';
import { withFindings, type Verdict, type VerdictStatus } from '../core/verdict.js';
import { FORMAT_VERSION } from './migrations.js';
import { createRecordingFile, openRecordingToAppend } from './recording-lifecycle.js';
import { EVENT_LOOP_SCHEDULE, type FlushSchedule } from './flush-schedule.js';
import { StoreError } from './store-errors.js';
import { storedRow } from './columns.js';
import { startedExchange } from './exchange-changes.js';
import { EXCHANGE_COLUMNS, type ExchangeFields, type StoredExchange } from './schema.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate, MessageInput, RecordingMeta, StoreTotals, WireMessageInput } from './store-types.js';
import { StoredCredentials } from './stored-credentials.js';
import { jsonEnd, jsonStartIn } from './stored-json.js';
import { SchemaRefIds } from './schema-refs.js';
import { compactMessages } from './raw-block-compaction.js';
import { WriteQueue, type FindingParams, type VerdictParams } from './write-queue.js';
import { ExchangeSeqs, type ExchangeSeq } from './exchange-seqs.js';

export type { ExchangeEnd, ExchangeStart, ExchangeUpdate, MessageInput, Outcome, RecordingMeta, StoreTotals, Transport, WireMessageInput } from './store-types.js';

export interface RecordingWriterOptions {
  /** Longest time a queued row waits before it is written (default 50 ms). */
  flushIntervalMs?: number;
  /** Queued rows that trigger a write on the next turn of the event loop (default 1000). */
  maxBatch?: number;
  /** Replace an existing file instead of refusing with E_STORE_EXISTS. */
  overwrite?: boolean;
  /** A throwaway copy, rebuilt from its source if lost: no journal on disk, nothing synced (see openDatabase). */
  scratch?: boolean;
  /** @internal SQLite's page cache for a new file, in KiB (default: openDatabase's for a writer, 2 MiB); the recording worker's is smaller. */
  pageCacheKib?: number;
  /** Move the messages' bytes into compressed blocks at close (default: unless `scratch`); false for a copy only written out again as text. */
  compact?: boolean;
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

/** Options of `RecordingWriter.append`: the same, minus `overwrite`, `scratch` and `pageCacheKib`. */
export type RecordingAppendOptions = Omit<RecordingWriterOptions, 'overwrite' | 'scratch' | 'pageCacheKib'>;

export const DEFAULT_FLUSH_INTERVAL_MS = 50;
export const DEFAULT_MAX_BATCH = 1000;

/**
 * Records one session into one SQLite file without ever making the caller wait on the disk.
 *
 * Every method except `flush` and `close` only validates its arguments, assigns ids in memory and
 * pushes a row onto a queue (write-queue.ts). The queue is written in one transaction per batch: at
 * the latest `flushIntervalMs` after the first queued row (an unref'ed timer), or on the next turn
 * of the event loop once `maxBatch` rows are queued. A `kill -9` therefore loses at most the rows of
 * the last interval; the file itself stays consistent (WAL + synchronous=NORMAL). How the file is
 * created, probed and left when done is recording-lifecycle.ts.
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
  private readonly queue: WriteQueue;
  private readonly credentials: StoredCredentials;
  private readonly schemaRefs: SchemaRefIds;
  private readonly compact: boolean;

  private nextExchangeId = 1;
  private nextMessageId = 1;
  /** The first message id of this writer: earlier messages belong to the file, not to this session. */
  private firstMessageId = 1;
  /** The next seq and last message of each exchange begun so far (those of ended ones read back from the file). */
  private nextSeq: ExchangeSeqs;
  private readonly db: Database.Database;
  private storedSeqStatement?: Database.Statement<[number], { next: number; last: number | null }>;
  /** Ids of messages whose current status is invalid, so addFindings can keep `invalid` exact. */
  private readonly invalidIds = new Set<number>();
  private readonly running: StoreTotals = { exchanges: 0, messages: 0, invalid: 0, findings: 0 };

  private constructor(file: string, db: Database.Database, options: RecordingWriterOptions, startedAt: Date, appending: boolean) {
    this.file = file;
    this.db = db;
    this.startedAt = startedAt;
    this.appending = appending;
    this.nextSeq = new ExchangeSeqs(1, this.storedSeq);
    this.compact = options.compact ?? options.scratch !== true;
    this.credentials = new StoredCredentials(options.keepSecrets);
    this.schemaRefs = new SchemaRefIds(appending ? db : undefined);
    this.queue = new WriteQueue(file, db, {
      flushIntervalMs: Math.max(0, options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS),
      maxBatch: Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH),
      schedule: options.schedule ?? EVENT_LOOP_SCHEDULE,
      onError: options.onError,
    });
  }

  /**
   * Creates the recording file (and its parent directories) and writes the `recording` row.
   * Refuses an existing non-empty file with E_STORE_EXISTS unless `options.overwrite`.
   */
  static open(file: string, meta: RecordingMeta, options: RecordingWriterOptions = {}): RecordingWriter {
    const path = resolve(file);
    return createRecordingFile(path, options, (db) => {
      const writer = new RecordingWriter(path, db, options, meta.startedAt, false);
      writer.queue.insertRecording({
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
    });
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
    return openRecordingToAppend(path, (db, soFar) => {
      const writer = new RecordingWriter(path, db, options, soFar.startedAt, true);
      writer.nextExchangeId = soFar.lastExchangeId + 1;
      writer.nextSeq = new ExchangeSeqs(writer.nextExchangeId, writer.storedSeq);
      writer.nextMessageId = writer.firstMessageId = soFar.lastMessageId + 1;
      return writer;
    });
  }

  /** Running totals of what was enqueued (not only what was written), for the live status line. */
  get totals(): StoreTotals {
    return { ...this.running };
  }

  /** Rows waiting to be written. */
  get pending(): number {
    return this.queue.pending;
  }

  /** Rows discarded after a write failure. */
  get dropped(): number {
    return this.queue.dropped;
  }

  /** The write failure that stopped the writer, if any. */
  get failure(): StoreError | undefined {
    return this.queue.failure;
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
    this.queue.beginExchange(rowOf(id));
    return id;
  }

  /** Records what was learnt after the start (status, response headers, protocol...). Undefined fields keep their value. */
  updateExchange(id: number, given: ExchangeUpdate): void {
    this.assertOpen('updateExchange');
    this.assertExchange(id);
    this.queue.updateExchange(id, given.responseHeaders === undefined ? given : this.credentials.exchange(id, given));
  }

  /** Records one message and its verdict; returns the message id. Its seq is the order of calls within the exchange. */
  addMessage(message: MessageInput): number {
    this.assertOpen('addMessage');
    const seq = this.nextSeq.get(message.exchangeId);
    if (seq === undefined) throw this.unknownExchange(message.exchangeId);
    const id = this.nextMessageId++;
    this.nextSeq.set(message.exchangeId, seq + 1, id);
    const given = message.jsonText;
    // Where the wire's JSON text sits in raw: all that is left of it once it ends, trailing white space aside.
    const wireAt = (message as WireMessageInput).jsonTextAt;
    const textAt = given !== undefined && wireAt !== undefined ? wholeTextAt(message.raw, given, wireAt) : null;
    const stored = this.credentials.message(message.raw, given ?? writtenJsonOf(message) ?? jsonText(message.json), message.json, message.channel, given !== undefined, textAt);
    const held = this.credentials.take(message.exchangeId);
    let judged = stored.findings.length > 0 ? withFindings(message.verdict, stored.findings) : message.verdict;
    if (held) judged = withFindings(judged, held);
    // Written out rather than through verdictParams: no object per message for the row to copy from.
    const status = judged.status;
    const schemaRefId = this.schemaRefs.idOf(judged.schemaRef ?? null, this.insertSchemaRef);
    const givenReason = judged.reason ?? null;
    const reason = givenReason === null ? null : this.credentials.text(givenReason);
    const findings = judged.findings.length === 0 ? NO_FINDINGS : judged.findings.map((f) => this.findingParams(f));
    this.running.messages++;
    this.running.findings += findings.length;
    this.trackStatus(id, status);
    // A copy: the caller may reuse its buffer, and a view would pin a larger parent buffer (any view of
    // the caller's memory, a Buffer over its Uint8Array too). Not Buffer.from: its checks of what it
    // is given cost more than the copy.
    const raw = stored.raw.buffer === message.raw.buffer ? copyOf(stored.raw) : stored.raw;
    // The wire's text, kept as it came, where raw holds it to its end: jsonStartIn's answer without decoding raw.
    const jsonAt = stored.json === null ? null : textAt !== null && stored.raw === message.raw && stored.json === given ? textAt : jsonStartIn(raw, stored.json);
    this.queue.addMessage(
      {
        id,
        exchangeId: message.exchangeId,
        seq,
        sender: message.sender,
        carrier: message.carrier,
        channel: message.channel ?? null,
        tOffsetMs: message.tOffsetMs,
        raw,
        rawTruncatedFrom: message.rawTruncatedFrom ?? null,
        json: jsonAt === null ? stored.json : null,
        status,
        schemaRef: null,
        reason,
        findingCount: findings.length,
        jsonAt,
        schemaRefId,
      },
      findings,
    );
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
    const params = this.verdictParams(verdict);
    params.reason = params.reason === null ? null : this.credentials.text(params.reason);
    this.running.findings += findings.length;
    this.trackStatus(messageId, params.status);
    this.queue.addFindings(messageId, exchangeId, params, findings.map((f) => this.findingParams(f)));
  }

  /** Records how the exchange ended. A second call replaces the first. */
  endExchange(id: number, given: ExchangeEnd): void {
    this.assertOpen('endExchange');
    this.assertExchange(id);
    const end = given.errorMessage === undefined && given.closeReason === undefined ? given : this.credentials.exchange(id, given);
    // Credentials of its headers or URL that no later message took: on its last message, if it has one.
    const held = this.credentials.take(id);
    const last = held ? this.nextSeq.lastMessage(id) : undefined;
    if (held && last !== undefined) {
      this.running.findings += held.length;
      this.queue.addWarnings(last, id, held.map(findingParams));
    }
    this.queue.endExchange(id, end);
    this.nextSeq.end(id);
  }

  /**
   * An ended exchange's next seq and last message, read back from the file once it is given a message or ended
   * again (ExchangeSeqs keeps no entry for it): after what is queued is written. After a write failure nothing more
   * is written, so what the file holds is as good as any answer.
   */
  private readonly storedSeq = (id: number): ExchangeSeq => {
    if (!this.queue.failure) this.queue.flush();
    this.storedSeqStatement ??= this.db.prepare('SELECT coalesce(max(seq), 0) + 1 AS next, max(id) AS last FROM messages WHERE exchange_id = ?');
    const row = this.storedSeqStatement.get(id)!;
    return { next: row.next, last: row.last ?? undefined };
  };

  /** Writes everything queued now, in one transaction. Throws the write failure, if any. */
  flush(): void {
    this.assertOpen('flush');
    this.queue.flush();
  }

  /**
   * Writes what is queued and the end time, moves this writer's messages' bytes into compressed blocks
   * (store/raw-block-compaction.ts; not in a scratch copy, nor with `compact: false`), checkpoints the WAL into the main file, switches the file
   * back to a rollback journal when no other connection has it open (so the closed recording is one
   * self-contained file that opens even from a read-only folder), and closes it.
   * Calling it again does nothing. Throws the write failure, if any, after closing. `endedAt` null
   * leaves the recording without an end (an imported copy of one that never ended).
   */
  close(endedAt: Date | null = new Date()): void {
    // A scratch copy is read once and thrown away: its bytes are not worth compressing.
    this.queue.close(endedAt, this.compact ? (db) => compactMessages(db, this.firstMessageId) : undefined);
  }

  /** A verdict as stored: its schema ref by id, a new one queued first. */
  private verdictParams(verdict: Verdict): VerdictParams {
    const schemaRefId = this.schemaRefs.idOf(verdict.schemaRef ?? null, this.insertSchemaRef);
    return { status: verdict.status, schemaRefId, reason: verdict.reason ?? null };
  }

  /** Queues a schema ref seen for the first time (SchemaRefIds.idOf's `insert`): one function, not one per message. */
  private readonly insertSchemaRef = (id: number, ref: string): void => this.queue.addSchemaRef(id, ref);

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
    } else if (this.invalidIds.size > 0 && this.invalidIds.delete(messageId)) {
      this.running.invalid--;
    }
  }

  private assertOpen(method: string): void {
    if (this.queue.closed) throw new StoreError('E_STORE_STATE', this.file, `${method}: the recording ${this.file} is closed`);
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
 * @internal for tests, not part of the package's API: how many exchanges `writer` holds a next seq and last
 * message for in memory (those still going, and at most a few thousand ended ones: ExchangeSeqs).
 */
export function heldExchangeSeqs(writer: RecordingWriter): number {
  return writer['nextSeq'].size;
}

/**
 * `at` (WireMessageInput.jsonTextAt) when `text`, read from raw there, runs to raw's end less its trailing
 * white space, with no U+FFFD in it: there jsonStartIn would find it too (it decodes the same bytes
 * back to the same text), and it is where it starts. Else null: not known without decoding raw.
 */
function wholeTextAt(raw: Uint8Array, text: string, at: number): number | null {
  if (at + Buffer.byteLength(text) !== jsonEnd(raw) || text.includes('\uFFFD')) return null;
  return at;
}

function copyOf(bytes: Buffer): Buffer {
  const copy = Buffer.allocUnsafe(bytes.length);
  copy.set(bytes);
  return copy;
}

/** The findings of a message that has none: shared, never added to. */
const NO_FINDINGS: readonly FindingParams[] = Object.freeze([]);

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
