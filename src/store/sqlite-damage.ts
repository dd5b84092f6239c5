import { statSync } from 'node:fs';
import { readFileHead, SQLITE_MAGIC } from './file-head.js';

/**
 * What is wrong with a file that starts with the SQLite header but that SQLite refuses to read
 * (SQLITE_NOTADB, SQLITE_CORRUPT): most often a copy or a download cut short, which the header tells
 * (the database size it declares is larger than the file). Said as what it is, never as "not an
 * SQLite database".
 */
export function sqliteDamage(file: string): string {
  try {
    const head = readFileHead(file, 100);
    const n = head.length;
    if (head.toString('latin1', 0, 16) !== SQLITE_MAGIC) return 'not an SQLite database';
    if (n < 100) return `an SQLite database cut short: the file holds ${n} bytes, less than its 100-byte header`;
    const rawPageSize = head.readUInt16BE(16);
    const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
    const pages = head.readUInt32BE(28);
    const size = statSync(file).size;
    // The page count in the header is valid when the change counter matches "version-valid-for".
    const counted = head.readUInt32BE(24) === head.readUInt32BE(92);
    if (counted && pages > 0 && size < pages * pageSize) {
      return `an SQLite database cut short: its header declares ${pages * pageSize} bytes, the file holds ${size}`;
    }
    return 'a damaged SQLite database';
  } catch {
    return 'a damaged SQLite database';
  }
}
