import { afterEach } from 'vitest';
import type { Server } from 'node:http';

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
