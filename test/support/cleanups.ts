import { afterEach } from 'vitest';
import type { Server } from 'node:http';

/** Undo steps registered by helpers (servers to close, sockets to end, folders to remove). */
const cleanups: Array<() => Promise<void> | void> = [];

/** Call once at the top of a test file: runs every registered cleanup after each test, newest first. */
export function useCleanups(): void {
  afterEach(runLeftoverCleanups);
}

export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

/**
 * Runs what is still registered, newest first: in a file that never called useCleanups(), its
 * folders, servers and sockets would otherwise outlive it (the setup file cleanup-setup.ts calls
 * this when each test file ends).
 */
export async function runLeftoverCleanups(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!();
}

/** After the test: end the WebSocket clients, the HTTP connections still open, then the server. */
export function closeServerOnCleanup(server: Server, wss?: { clients: Iterable<{ terminate(): void }> }): void {
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        for (const ws of wss?.clients ?? []) ws.terminate();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
}
