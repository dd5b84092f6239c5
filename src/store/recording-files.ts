import { existsSync, linkSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { StoreError, messageOf } from './store-errors.js';

/** The files SQLite may keep beside a recording: its write-ahead log, shared memory and rollback journal. */
const SIDE_FILES = ['-wal', '-shm', '-journal'];

/** Removes a recording and the files SQLite keeps beside it (none of them need exist). */
export function removeRecordingFiles(path: string): void {
  for (const suffix of ['', ...SIDE_FILES]) removeIfThere(path + suffix);
}

/** Removes a file of ours if it is there; cleaning up never hides the error that made it necessary. */
export function removeIfThere(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // ENOTDIR, EACCES …: then there was nothing of ours to remove.
  }
}

/**
 * A name in the same folder as `path` (so a rename is atomic, never a copy across file systems),
 * hidden and marked with the process id, for a file being written that is not done yet.
 */
export function partialPath(path: string, purpose = 'partial'): string {
  return join(dirname(path), `.${basename(path)}.${purpose}-${process.pid}`);
}

/**
 * Gives a finished file its name: with `overwrite` it replaces whatever is there (rename);
 * without, it refuses atomically if a file appeared there meanwhile (link fails with EEXIST).
 */
export function publishFile(partial: string, path: string, overwrite: boolean | undefined): void {
  try {
    if (overwrite) renameSync(partial, path);
    else {
      linkSync(partial, path);
      unlinkSync(partial);
    }
  } catch (error) {
    removeIfThere(partial);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw existsError(path);
    throw new StoreError('E_STORE_OPEN', path, `cannot write ${path}: ${messageOf(error)}`, { cause: error });
  }
}

/** E_STORE_EXISTS, naming the flag that allows it: every writer refuses in these words. */
export function existsError(path: string): StoreError {
  return new StoreError('E_STORE_EXISTS', path, `${path} already exists; add --overwrite to replace it, or choose another file`);
}

/** A recording moved out of the way for one that replaces it, until the new one has started. */
export interface SetAside {
  /** The new recording failed to start: the old one comes back. */
  restore(): void;
  /** The new recording started: the old one goes. */
  drop(): void;
}

/**
 * Moves an existing recording (and its side files) aside, so that a recording that replaces it
 * (`--overwrite`) and then fails to start (its port is busy) does not cost the old one.
 * Undefined when there is nothing at `path`.
 */
export function setAside(path: string): SetAside | undefined {
  if (!existsSync(path)) return undefined;
  const aside = partialPath(path, 'replaced');
  const moved: string[] = [];
  for (const suffix of ['', ...SIDE_FILES]) {
    if (!existsSync(path + suffix)) continue;
    try {
      renameSync(path + suffix, aside + suffix);
    } catch (error) {
      for (const s of moved) renameSync(aside + s, path + s);
      throw new StoreError('E_STORE_OPEN', path, `cannot replace ${path}: ${messageOf(error)}`, { cause: error });
    }
    moved.push(suffix);
  }
  let settled = false;
  return {
    restore() {
      if (settled) return;
      settled = true;
      removeRecordingFiles(path);
      for (const suffix of moved) renameSync(aside + suffix, path + suffix);
    },
    drop() {
      if (settled) return;
      settled = true;
      removeRecordingFiles(aside);
    },
  };
}
