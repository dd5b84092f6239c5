/**
 * Moves the bytes of the messages a writer wrote into compressed blocks (store/raw-blocks.ts) when it
 * closes the file cleanly: recording's hot path writes plain rows as before, and a killed recorder
 * leaves them so, readable as they are. Rows that were in the file before this writer are never
 * changed (an appended recording keeps its rows as they were).
 */
import type Database from 'better-sqlite3';
import { deflateSync } from 'node:zlib';
import { BUSY_TIMEOUT_MS } from './open-database.js';
import { sqliteCode } from './store-errors.js';

/** At most this many messages of an exchange in one block ... */
export const BLOCK_MESSAGES = 64;
/** ... and at most this many bytes of them; a message bigger than this is a block alone. */
export const BLOCK_BYTES = 64 * 1024;
/** zlib's level: 1 compresses an exchange's similar messages nearly as well as 6, at a third of the CPU. */
const LEVEL = 1;
/** What a blocked message's row costs besides its bytes (raw_block, raw_at, raw_size): a run smaller by less stays plain. */
const ROW_COST = 6;
/**
 * A run of fewer bytes stays plain without being tried: level 1 saves ~20 % of a 128–255-byte JSON message
 * (~50 bytes), while blocking it costs ~35 µs (a zlib stream made and freed, a block row, an update): a small
 * REST exchange's close cost more than its recording (`node bench/record-pipeline.js`, whose figure includes the close).
 */
export const MIN_RUN_BYTES = 256;
/** Messages of an exchange read at a time (with the bytes only of those that fit a block: at most 16 MiB). */
const PAGE = 256;
/** VACUUM once the blocks saved this share of the file's bytes: the space freed inside pages is reused only then. */
const VACUUM_SHARE = 0.1;

export interface Compaction {
  /** Messages whose bytes went into blocks. */
  messages: number;
  blocks: number;
  /** Bytes of those messages, and of their blocks. */
  plainBytes: number;
  blockBytes: number;
  vacuumed: boolean;
}

/** A message as the pages read it: its exchange, its bytes, or null for one bigger than a block (read alone when it is blocked). */
type Row = [exchangeId: number, id: number, seq: number, size: number, raw: Buffer | null];

/** Blocks the messages from id `firstMessageId` on, in one transaction, then VACUUMs when that saved enough. */
export function compactMessages(db: Database.Database, firstMessageId: number): Compaction {
  const result: Compaction = { messages: 0, blocks: 0, plainBytes: 0, blockBytes: 0, vacuumed: false };
  // Pages of the new messages in (exchange, seq) order, across exchanges: a query per exchange cost a
  // recording of small REST exchanges more than the rest of its close.
  const page = db
    .prepare(`SELECT exchange_id, id, seq, length(raw), CASE WHEN length(raw) <= ${BLOCK_BYTES} THEN raw END FROM messages
      WHERE (exchange_id, seq) > (?, ?) AND id >= ? AND raw_block IS NULL ORDER BY exchange_id, seq LIMIT ?`)
    .raw(true);
  const rawOf = db.prepare('SELECT raw FROM messages WHERE id = ?').pluck();
  const insertBlock = db.prepare('INSERT INTO raw_blocks (exchange_id, size, data) VALUES (?, ?, ?)');
  const moveRow = db.prepare("UPDATE messages SET raw = x'', raw_block = ?, raw_at = ?, raw_size = ? WHERE id = ?");
  const writeRun = (run: Row[], bytes: number): void => {
    if (bytes < MIN_RUN_BYTES) return;
    const plain = run.length === 1 ? (run[0][4] ?? (rawOf.get(run[0][1]) as Buffer)) : Buffer.concat(run.map((r) => r[4] as Buffer), bytes);
    const data = deflateSync(plain, { level: LEVEL });
    if (data.length + ROW_COST * run.length >= bytes) return;
    const block = Number(insertBlock.run(run[0][0], bytes, data).lastInsertRowid);
    let at = 0;
    for (const [, id, , size] of run) {
      moveRow.run(block, at, size, id);
      at += size;
    }
    result.messages += run.length;
    result.blocks++;
    result.plainBytes += bytes;
    result.blockBytes += data.length;
  };

  db.transaction(() => {
    let run: Row[] = [];
    let runBytes = 0;
    let after: Row | undefined;
    for (;;) {
      const rows = page.all(after?.[0] ?? 0, after?.[2] ?? 0, firstMessageId, PAGE) as Row[];
      for (const row of rows) {
        const size = row[3];
        if (size === 0) continue;
        // A run is an exchange's messages in seq order, at most BLOCK_MESSAGES of them and BLOCK_BYTES together.
        if (run.length > 0 && (row[0] !== run[0][0] || run.length === BLOCK_MESSAGES || runBytes + size > BLOCK_BYTES)) {
          writeRun(run, runBytes);
          run = [];
          runBytes = 0;
        }
        run.push(row);
        runBytes += size;
      }
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1];
    }
    if (run.length > 0) writeRun(run, runBytes);
  })();

  const fileBytes = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
  if (result.plainBytes - result.blockBytes >= VACUUM_SHARE * fileBytes) result.vacuumed = vacuum(db);
  return result;
}

/** VACUUM, unless another connection reads the file (it is valid either way, only larger). */
function vacuum(db: Database.Database): boolean {
  db.pragma('busy_timeout = 0');
  try {
    db.exec('VACUUM');
    return true;
  } catch (error) {
    const code = sqliteCode(error);
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return false;
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}
