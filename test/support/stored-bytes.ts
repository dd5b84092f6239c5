import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';

const SQLITE_HEADER = Buffer.from('SQLite format 3\0');

/**
 * Every byte a file left on disk, as a search for a secret must see it: the file and any -wal, -shm
 * or -journal beside it, then the inflated bytes of each compressed block a recording holds
 * (format 9 moves a closed recording's message bytes into zlib blocks, where a plain search of the
 * file would never find them). Any other file is returned as it is.
 */
export function storedBytes(file: string): Buffer {
  const parts: Buffer[] = [];
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    if (existsSync(file + suffix)) parts.push(readFileSync(file + suffix));
  }
  if (parts.length > 0 && parts[0].subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER)) parts.push(...inflatedBlocks(file));
  return Buffer.concat(parts);
}

/** The inflated bytes of every block of a recording (none before format 9). */
export function inflatedBlocks(file: string): Buffer[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const hasBlocks = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'raw_blocks'").get() !== undefined;
    if (!hasBlocks) return [];
    return (db.prepare('SELECT data FROM raw_blocks ORDER BY id').pluck().all() as Buffer[]).map((data) => inflateSync(data));
  } finally {
    db.close();
  }
}
