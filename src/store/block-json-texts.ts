/**
 * A message's JSON text cut from its inflated block in JavaScript, for a reader of every message in
 * order (`validate`): the same text storedJsonSql() reads, without SQLite calling a JavaScript function
 * per row, copying the slice it is handed twice (substr, rtrim) and better-sqlite3 decoding a string of
 * it. The query reads where the text is (JSON_START_SQL, JSON_END_SQL); a block is read and inflated
 * once and cut by offset. A row this cannot cut as it is (no block, offsets out of place, a block the
 * file lacks) is read by storedJsonSql() by its id, which says what is wrong with it.
 */
import type Database from 'better-sqlite3';
import { isAscii } from 'node:buffer';
import { inflateSync } from 'node:zlib';
import { storedJsonSql } from './stored-json.js';

/** Offsets in a block are below this; a value of another type (a text) is not BETWEEN 0 and it. */
const MAX_OFFSET = 0xffffffff;
/**
 * Where the message's JSON text starts in its inflated block: NULL when it has no text there (its
 * `json` holds it, or it is not JSON), -1 when JavaScript is not to cut it (read by id instead): its
 * offsets missing, out of place or not numbers. Comparisons, not typeof(): a function call per row
 * costs SQLite more.
 */
export const JSON_START_SQL = `CASE WHEN json IS NULL AND json_at IS NOT NULL THEN ${startInBlockSql()} END`;
/**
 * JSON_START_SQL and `json` as one value: the text stored in the row (`json`), else where it starts in
 * the inflated block, as JSON_START_SQL; a `json` that is not text (a file changed by hand) is read by id
 * (-1). One value less per row for `validate`'s read of every message (textOf).
 */
export const JSON_TEXT_OR_START_SQL = `CASE WHEN json IS NOT NULL THEN CASE WHEN typeof(json) = 'text' THEN json ELSE -1 END WHEN json_at IS NOT NULL THEN ${startInBlockSql()} END`;

function startInBlockSql(): string {
  return `CASE WHEN raw_at BETWEEN 0 AND ${MAX_OFFSET} AND raw_size BETWEEN 0 AND ${MAX_OFFSET} AND json_at BETWEEN 0 AND raw_size THEN raw_at + json_at ELSE -1 END`;
}
/** Where the message's bytes end in its inflated block (the JSON text, less its trailing white space, ends there). */
export const JSON_END_SQL = 'raw_at + raw_size';

/** Inflated blocks kept, the latest last: a read in id order goes through a few exchanges' blocks interleaved. */
const KEPT_BLOCKS = 32;

interface InflatedBlock {
  bytes: Buffer;
  /** All ASCII: a text cut from it reads as Latin-1, its bytes one to one (what UTF-8 gives them, for less). */
  ascii: boolean;
}

export class BlockJsonTexts {
  private readonly blocks = new Map<number, InflatedBlock | null>();
  private readonly blockData: Database.Statement;
  private readonly textById: Database.Statement;

  constructor(db: Database.Database) {
    this.blockData = db.prepare('SELECT data FROM raw_blocks WHERE id = ?').pluck();
    this.textById = db.prepare(`SELECT ${storedJsonSql()} FROM messages WHERE id = ?`).pluck();
  }

  /**
   * The JSON text of message `id`, as storedJsonSql() reads it: `json` when stored, else cut from
   * block `block` between `start` and `end` (JSON_START_SQL, JSON_END_SQL) less trailing white space.
   */
  text(id: number, json: string | null, block: number | null, start: number | null, end: number | null): string | null {
    if (start === null) return json;
    if (start >= 0 && block !== null && Number.isInteger(start) && Number.isInteger(end)) {
      const inflated = this.block(block);
      if (inflated !== null && end! <= inflated.bytes.length) {
        const bytes = inflated.bytes;
        let last = end!;
        // rtrim(…, char(32, 9, 10, 13)), byte by byte as SQLite does.
        for (let b = bytes[last - 1]; last > start && (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d); b = bytes[last - 1]) last--;
        return bytes.toString(inflated.ascii ? 'latin1' : 'utf8', start, last);
      }
    }
    return this.textById.get(id) as string | null;
  }

  /** text() of JSON_TEXT_OR_START_SQL's value: the text stored in the row, or where it starts in block `block`. */
  textOf(id: number, textOrStart: string | number | null, block: number | null, end: number | null): string | null {
    return typeof textOrStart === 'string' ? textOrStart : this.text(id, null, block, textOrStart, end);
  }

  /** The block inflated, or null when the file lacks it (its rows are then read by id, which reports it). */
  private block(id: number): InflatedBlock | null {
    let block = this.blocks.get(id);
    if (block !== undefined) return block;
    const data = this.blockData.get(id) as Buffer | undefined;
    if (data === undefined) block = null;
    else {
      const bytes = inflateSync(data);
      block = { bytes, ascii: isAscii(bytes) };
    }
    if (this.blocks.size >= KEPT_BLOCKS) this.blocks.delete(this.blocks.keys().next().value as number);
    this.blocks.set(id, block);
    return block;
  }
}
