import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { processAlive } from '../core/process-alive.js';
import { StoreError } from './store-errors.js';

/** Held while a recording is written; released once, by `release()` or when the process exits. */
export interface WriterLock {
  release(): void;
}

/**
 * One writer at a time per recording. Two fixtures recording into the same file would each think it
 * theirs, and the file would keep only the last one's exchanges. The lock is a file beside the
 * recording, created exclusively, holding the writer's pid: a second writer refuses and names that
 * pid. A lock whose process is gone (a `kill -9`) is stale and taken over.
 */
export function lockForWriting(recording: string): WriterLock {
  const file = lockPathOf(recording);
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (error) {
      // A folder where no file can be made: the recording cannot be made there either, and opening
      // it says so in the words the user knows; no second writer can be there to guard against.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return { release: () => undefined };
      const holder = holderOf(file);
      if (holder !== undefined && processAlive(holder)) {
        const who = holder === process.pid ? `this process (pid ${holder}) is already writing it` : `another agent-proxy (pid ${holder}) is writing it`;
        throw lockError(recording, `${who}; a recording has one writer at a time`);
      }
      // Stale: its writer is gone. Removed and tried again once; a second race is another live writer's.
      if (attempt > 0) throw lockError(recording, `its lock file ${file} keeps reappearing`);
      removeIfOurs(file, holder);
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    return held(file);
  }
}

/**
 * Removes the lock a writer killed outright left (its process is gone), so that a start that only
 * reads, and takes no lock, leaves no stale one behind either.
 */
export function removeStaleLock(recording: string): void {
  const file = lockPathOf(recording);
  const holder = holderOf(file);
  if (holder !== undefined && !processAlive(holder)) removeIfOurs(file, holder);
}

/** The lock's name: hidden, beside the recording, so it moves and goes with the folder. */
export function lockPathOf(recording: string): string {
  const path = resolve(recording);
  return join(dirname(path), `.${basename(path)}.lock`);
}

function held(file: string): WriterLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    removeIfOurs(file, process.pid);
  };
  process.on('exit', release);
  return { release };
}

function holderOf(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function removeIfOurs(file: string, pid: number | undefined): void {
  try {
    if (holderOf(file) === pid) unlinkSync(file);
  } catch {
    /* gone already */
  }
}

function lockError(recording: string, why: string): StoreError {
  return new StoreError('E_STORE_LOCKED', recording, `${recording}: cannot write the recording: ${why}`);
}
