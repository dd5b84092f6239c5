import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../core/errors.js';

/** Far above any real certificate chain or key (a chain of ten certificates is ~20 KiB). */
export const PEM_FILE_LIMIT = 1024 * 1024;

/**
 * Reads a certificate, CA bundle or key a user named on the command line. Only a regular file under
 * PEM_FILE_LIMIT is read, checked on the open descriptor itself: `--ca /dev/zero` or a FIFO would
 * otherwise be read forever, and a huge file held whole in memory.
 */
export function readPemFile(file: string, flag: string): Buffer {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new UsageError(`${flag} '${file}' cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`${flag} '${file}' is not a regular file (a PEM file is expected)`);
    if (stat.size > PEM_FILE_LIMIT) {
      throw new UsageError(`${flag} '${file}' is ${stat.size} bytes, more than the ${PEM_FILE_LIMIT} a PEM file may have here`);
    }
    // One byte past the size it had: a file that grew since fstat is refused rather than read on.
    const buffer = Buffer.alloc(stat.size + 1);
    let filled = 0;
    for (let read = 1; read > 0 && filled < buffer.length; filled += read) read = readSync(fd, buffer, filled, buffer.length - filled, null);
    if (filled > PEM_FILE_LIMIT) throw new UsageError(`${flag} '${file}' grew past ${PEM_FILE_LIMIT} bytes while it was read`);
    return buffer.subarray(0, filled);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${flag} '${file}' cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  } finally {
    closeSync(fd);
  }
}
