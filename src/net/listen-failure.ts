import { ProxyError } from '../core/errors.js';
import { listenUrl, type ListenAddress } from './addresses.js';

/** What a failed listen means to the person who chose the address, naming the option they gave it with. */
const REASONS: Record<string, string> = {
  EADDRINUSE: 'the address is in use (another process listens there; choose another port, or 0 for a free one)',
  EACCES: 'permission denied (ports below 1024 need privileges; choose a port above 1023)',
  EADDRNOTAVAIL: 'this machine has no such address',
  ENOTFOUND: 'no such host',
};

/** The same for a unix socket, where no port is involved: a missing folder is reported as EACCES or ENOENT. */
const SOCKET_REASONS: Record<string, string> = {
  EADDRINUSE: 'the socket is in use (another process listens there)',
  EACCES: 'cannot create the socket there (does its folder exist, and may we write to it?)',
  ENOENT: 'cannot create the socket there (its folder does not exist)',
};

/**
 * `--listen 127.0.0.1:8788: the address is in use (…)` for a listen error Node reports as
 * `listen EADDRINUSE: address already in use 127.0.0.1:8788`; other errors are passed on.
 */
export function listenFailure(error: unknown, address: ListenAddress, flag: string): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const reason = code === undefined ? undefined : (address.kind === 'unix' ? SOCKET_REASONS : REASONS)[code];
  if (reason === undefined) return error;
  const where = address.kind === 'unix' ? listenUrl(address) : listenUrl(address).replace(/^http:\/\//, '');
  return new ProxyError('E_LISTEN', `${flag} ${where}: ${reason}`, { cause: error });
}
