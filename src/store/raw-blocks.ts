/**
 * Where a message's bytes are (format 9): in its row's `raw`, or, once its writer closed the file
 * (raw-block-compaction.ts), as a slice of a block: `raw_blocks.data` holds the bytes of several
 * messages of one exchange, concatenated in seq order and compressed in zlib's format (RFC 1950, what
 * the sqlite3 shell's `sqlar_uncompress(data, size)` reads). Such a row has `raw` empty and says
 * where its bytes are: `raw_block` (the block's id), `raw_at` (their offset in the inflated block)
 * and `raw_size` (their length). Every SQL reader of the bytes reads rawBytesSql().
 */
import type Database from 'better-sqlite3';
import { inflateSync } from 'node:zlib';
import { StoreError } from './store-errors.js';

/** The SQL functions that hand out a slice of a block (registerRawBlockFunctions). */
const KEPT = 'raw_block_kept';
const SLICE = 'raw_block_slice';

/**
 * A message's bytes in SQL, for a query over `messages` (`alias`: the table's alias in it, else the
 * table's name). The block is read only when the connection's function does not hold it inflated
 * already (coalesce evaluates its arguments in turn): a reader in seq or id order reads each block once.
 */
export function rawBytesSql(alias = 'messages'): string {
  const m = `${alias}.`;
  const where = `${m}raw_block, ${m}raw_at, ${m}raw_size`;
  return `CASE WHEN ${m}raw_block IS NULL THEN ${m}raw ELSE coalesce(${KEPT}(${where}), ${SLICE}(${where}, (SELECT b.data FROM raw_blocks b WHERE b.id = ${m}raw_block))) END`;
}

/** The size of a message's bytes in SQL (rawBytesSql's length, without reading a block). */
export function rawSizeSql(alias = 'messages'): string {
  const m = `${alias}.`;
  return `CASE WHEN ${m}raw_block IS NULL THEN length(${m}raw) ELSE ${m}raw_size END`;
}

/** Inflated blocks a connection keeps, the latest last: the blocks of a few exchanges read interleaved by id. */
const KEPT_BLOCKS = 32;
/** ... and at most this many inflated bytes of them (one block bigger than this is still kept alone). */
const KEPT_BYTES = 4 * 1024 * 1024;

/**
 * Registers the block functions on a connection: `raw_block_kept(block, at, size)` is the slice of a
 * block it holds inflated, else NULL; `raw_block_slice(block, at, size, data)` inflates `data` (the
 * block's row) first. A function cannot read the block itself: better-sqlite3 refuses a statement
 * on a connection while another runs. Two functions of fixed arity, not one of optional arguments:
 * this one is called for every message read, and a rest parameter costs an array a call.
 */
export function registerRawBlockFunctions(db: Database.Database, file: string): void {
  const kept = new Map<number, Buffer>();
  let keptBytes = 0;
  db.function(KEPT, (block: number, at: number, size: number) => {
    const bytes = kept.get(block);
    return bytes === undefined ? null : bytes.subarray(at, at + size);
  });
  db.function(SLICE, (block: number, at: number, size: number, data: Buffer | null) => {
    let bytes = kept.get(block);
    if (bytes === undefined) {
      // A row that names a block the file lacks: a damaged file, said as such rather than read as no bytes.
      if (data === null) {
        throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (damaged: a message's bytes are in block ${block}, which raw_blocks does not hold)`);
      }
      bytes = inflateSync(data);
      while (kept.size > 0 && (kept.size >= KEPT_BLOCKS || keptBytes + bytes.length > KEPT_BYTES)) {
        const [oldest, old] = kept.entries().next().value as [number, Buffer];
        kept.delete(oldest);
        keptBytes -= old.length;
      }
      kept.set(block, bytes);
      keptBytes += bytes.length;
    }
    return bytes.subarray(at, at + size);
  });
}
