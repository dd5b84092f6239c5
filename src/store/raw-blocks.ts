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
 * A connection's blocks, inflated, as the SQL functions and the readers in JavaScript take them. A hot
 * reader reads a message's `raw_block`, `raw_at` and `raw_size` as plain columns and asks here
 * (textOf, jsonTextOf), which costs less than SQLite calling a function for every row and copying the
 * slice it returns into a value of its own. Such a reader reads its rows whole first (`.all()`): a
 * block is read by a statement of its own, which better-sqlite3 refuses while another one runs.
 */
export class InflatedBlocks {
  private readonly kept = new Map<number, Buffer>();
  private keptBytes = 0;
  private blockData: Database.Statement | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
  ) {}

  /** The block, when it is kept inflated. */
  keptBlock(block: number): Buffer | undefined {
    return this.kept.get(block);
  }

  /** The block inflated from its row's `data` (null: the file lacks it), kept. */
  inflate(block: number, data: Buffer | null): Buffer {
    // A row that names a block the file lacks: a damaged file, said as such rather than read as no bytes.
    if (data === null) {
      throw new StoreError('E_STORE_NOT_RECORDING', this.file, `${this.file}: not a recording (damaged: a message's bytes are in block ${block}, which raw_blocks does not hold)`);
    }
    const bytes = inflateSync(data);
    while (this.kept.size > 0 && (this.kept.size >= KEPT_BLOCKS || this.keptBytes + bytes.length > KEPT_BYTES)) {
      const [oldest, old] = this.kept.entries().next().value as [number, Buffer];
      this.kept.delete(oldest);
      this.keptBytes -= old.length;
    }
    this.kept.set(block, bytes);
    this.keptBytes += bytes.length;
    return bytes;
  }

  /** The block, inflated, read from the file when it is not kept. */
  block(block: number): Buffer {
    const bytes = this.kept.get(block);
    if (bytes !== undefined) return bytes;
    this.blockData ??= this.db.prepare('SELECT data FROM raw_blocks WHERE id = ?').pluck();
    return this.inflate(block, (this.blockData.get(block) as Buffer | undefined) ?? null);
  }

  /** A blocked message's bytes, a copy of its own (the block is kept for the next messages, and a reader may keep these). */
  bytesOf(block: number, at: number, size: number): Buffer {
    return Buffer.from(this.block(block).subarray(at, at + size));
  }

  /** A blocked message's bytes as text (what `CAST(raw AS TEXT)` reads of them). */
  textOf(block: number, at: number, size: number): string {
    return this.block(block).toString('utf8', at, at + size);
  }

  /**
   * A blocked message's JSON text from `jsonAt` of its bytes up to their last byte that is not white
   * space (what storedJsonSql reads of them).
   */
  jsonTextOf(block: number, at: number, size: number, jsonAt: number): string {
    const bytes = this.block(block);
    let end = at + size;
    for (let c = bytes[end - 1]; end > at && (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d); c = bytes[end - 1]) end--;
    return bytes.toString('utf8', Math.min(at + jsonAt, end), end);
  }
}

const BLOCKS = new WeakMap<Database.Database, InflatedBlocks>();

/** The connection's inflated blocks (registerRawBlockFunctions made them when it opened). */
export function inflatedBlocks(db: Database.Database): InflatedBlocks {
  const blocks = BLOCKS.get(db);
  if (blocks === undefined) throw new Error('raw blocks: a connection not opened by openDatabase');
  return blocks;
}

/**
 * Registers the block functions on a connection: `raw_block_kept(block, at, size)` is the slice of a
 * block it holds inflated, else NULL; `raw_block_slice(block, at, size, data)` inflates `data` (the
 * block's row) first. A function cannot read the block itself: better-sqlite3 refuses a statement
 * on a connection while another runs. Two functions of fixed arity, not one of optional arguments:
 * this one is called for every message read, and a rest parameter costs an array a call. The
 * functions and the readers in JavaScript share the connection's InflatedBlocks.
 */
export function registerRawBlockFunctions(db: Database.Database, file: string): void {
  const blocks = new InflatedBlocks(db, file);
  BLOCKS.set(db, blocks);
  db.function(KEPT, (block: number, at: number, size: number) => {
    const bytes = blocks.keptBlock(block);
    return bytes === undefined ? null : bytes.subarray(at, at + size);
  });
  db.function(SLICE, (block: number, at: number, size: number, data: Buffer | null) => {
    const bytes = blocks.keptBlock(block) ?? blocks.inflate(block, data);
    return bytes.subarray(at, at + size);
  });
}
