import type { Server } from 'node:http';
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import type { ListenAddress } from './addresses.js';
import { listenFailure } from './listen-failure.js';

/**
 * Listens on TCP or on a unix socket created owner-only (mode 0600), for `proxy record` and
 * `proxy replay` alike. A stale socket file from a crashed run is replaced; any other file is
 * left alone and the error reported.
 */
export function listenOn(server: Server, address: ListenAddress, flag = '--listen'): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(listenFailure(error, address, flag));
    server.once('error', failed);
    const done = () => {
      server.off('error', failed);
      resolve();
    };
    if (address.kind === 'tcp') {
      server.listen(address.port, address.host, done);
      return;
    }
    if (isSocketFile(address.socketPath)) rmSync(address.socketPath, { force: true });
    // Owner-only from the start (umask), not chmod-ed after a window in which others could connect.
    const previous = process.umask(0o177);
    try {
      server.listen(address.socketPath, () => {
        chmodSync(address.socketPath, 0o600);
        done();
      });
    } finally {
      process.umask(previous);
    }
  });
}

function isSocketFile(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}
