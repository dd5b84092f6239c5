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

/** A message as the pages read it: its bytes, or null for one bigger than a block (read alone when it is blocked). */
type Row = [id: number, seq: number, size: number, raw: Buffer | null];

/** Blocks the messages from id `firstMessageId` on, in one transaction, then VACUUMs when that saved enough. */
export function compactMessages(db: Database.Database, firstMessageId: number): Compaction {
  const result: Compaction = { messages: 0, blocks: 0, plainBytes: 0, blockBytes: 0, vacuumed: false };
  const exchanges = db.prepare('SELECT DISTINCT exchange_id FROM messages WHERE id >= ? AND raw_block IS NULL ORDER BY exchange_id').pluck().all(firstMessageId) as number[];
  if (exchanges.length === 0) return result;
  const page = db
    .prepare(`SELECT id, seq, length(raw), CASE WHEN length(raw) <= ${BLOCK_BYTES} THEN raw END FROM messages
      WHERE exchange_id = ? AND id >= ? AND seq > ? AND raw_block IS NULL ORDER BY seq LIMIT ?`)
    .raw(true);
  const rawOf = db.prepare('SELECT raw FROM messages WHERE id = ?').pluck();
  const insertBlock = db.prepare('INSERT INTO raw_blocks (exchange_id, size, data) VALUES (?, ?, ?)');
  const moveRow = db.prepare("UPDATE messages SET raw = x'', raw_block = ?, raw_at = ?, raw_size = ? WHERE id = ?");
  const writeRun = (exchangeId: number, run: Row[], bytes: number): void => {
    const plain = run.length === 1 ? (run[0][3] ?? (rawOf.get(run[0][0]) as Buffer)) : Buffer.concat(run.map((r) => r[3] as Buffer), bytes);
    const data = deflateSync(plain, { level: LEVEL });
    if (data.length + ROW_COST * run.length >= bytes) return;
    const block = Number(insertBlock.run(exchangeId, bytes, data).lastInsertRowid);
    let at = 0;
    for (const [id, , size] of run) {
      moveRow.run(block, at, size, id);
      at += size;
    }
    result.messages += run.length;
    result.blocks++;
    result.plainBytes += bytes;
    result.blockBytes += data.length;
  };

  db.transaction(() => {
    for (const exchangeId of exchanges) {
      let run: Row[] = [];
      let runBytes = 0;
      let lastSeq = 0;
      for (;;) {
        const rows = page.all(exchangeId, firstMessageId, lastSeq, PAGE) as Row[];
        for (const row of rows) {
          const size = row[2];
          if (size === 0) continue;
          if (run.length === BLOCK_MESSAGES || (run.length > 0 && runBytes + size > BLOCK_BYTES)) {
            writeRun(exchangeId, run, runBytes);
            run = [];
            runBytes = 0;
          }
          run.push(row);
          runBytes += size;
        }
        if (rows.length < PAGE) break;
        lastSeq = rows[rows.length - 1][1];
      }
      if (run.length > 0) writeRun(exchangeId, run, runBytes);
    }
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
