import { closeSync, openSync, writeSync } from 'node:fs';
import { partialPath, publishFile, removeIfThere } from '../store/recording-files.js';

/**
 * Writes `out` whole or not at all: under a temporary name beside it, renamed once complete, so a
 * failure halfway (a damaged recording, a full disk, a kill) leaves the old file, or none, never half
 * of one. Without `overwrite`, a file that appeared at `out` meanwhile is not replaced (E_STORE_EXISTS).
 */
export function writeWholeFile(out: string, overwrite: boolean, produce: (write: (data: string | Uint8Array) => void) => void): void {
  const partial = partialPath(out);
  const fd = openPartial(partial, out);
  try {
    produce((data) => void (typeof data === 'string' ? writeSync(fd, data) : writeSync(fd, data)));
  } catch (error) {
    closeSync(fd);
    removeIfThere(partial);
    throw error;
  }
  closeSync(fd);
  publishFile(partial, out, overwrite);
}

/** Opens the temporary file of `out`; an error names `out` as asked for, not the temporary name. */
function openPartial(partial: string, out: string): number {
  try {
    return openSync(partial, 'w');
  } catch (error) {
    throw new Error(`cannot write ${out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
}
