import { isIP } from 'node:net';
import type { ListenAddress } from './addresses.js';

/**
 * Is `host` reachable from this machine only? `localhost`, 127.0.0.0/8 and ::1 (also written out
 * in full, or as the IPv4-mapped ::ffff:127.x.y.z) are; 0.0.0.0, :: and every other address or
 * host name are not.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  if (family === 4) return bare.startsWith('127.');
  if (family !== 6) return false;
  // The URL parser writes an IPv6 address in its shortest form: ::1, or ::ffff:7fxx:yyyy for 127.x.y.z.
  const canonical = new URL(`http://[${bare}]/`).hostname;
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}

/** A unix socket or a loopback address: nothing outside this machine can connect. */
export function isLocalOnly(address: ListenAddress): boolean {
  return address.kind === 'unix' || isLoopbackHost(address.host);
}
