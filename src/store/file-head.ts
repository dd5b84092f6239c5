import { closeSync, openSync, readSync } from 'node:fs';

/** The SQLite file header's first 16 bytes. */
export const SQLITE_MAGIC = 'SQLite format 3\0';

/** The first `length` bytes of a file (fewer when it is shorter); throws when it cannot be read. */
export function readFileHead(path: string, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(length);
    return head.subarray(0, readSync(fd, head, 0, length, 0));
  } finally {
    closeSync(fd);
  }
}
