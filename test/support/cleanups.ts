import { afterEach } from 'vitest';

/** Undo steps registered by helpers (servers to close, sockets to end, folders to remove). */
const cleanups: Array<() => Promise<void> | void> = [];

/** Call once at the top of a test file: runs every registered cleanup after each test, newest first. */
export function useCleanups(): void {
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });
}

export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}
