import { isIP } from 'node:net';
import { isLoopbackHost } from '../../net/loopback.js';

/**
 * The DNS-rebinding defence: does a request's `Host` header name this server? A page on another
 * site can make the browser send requests here under a host name of its own that resolves to this
 * address, but it cannot make the browser send `127.0.0.1:<port>`. So the only names accepted are
 * `localhost` and IP addresses (loopback ones only while the server listens on loopback), and only
 * with the port the server listens on. A request without a Host header (HTTP/1.0) comes from no
 * browser and is let through.
 */
export function hostAllowed(header: string | undefined, port: number, remote: boolean): boolean {
  if (header === undefined || header === '') return true;
  let url: URL;
  try {
    url = new URL(`http://${header}/`);
  } catch {
    return false;
  }
  if (url.username || url.password || url.pathname !== '/' || (url.port === '' ? 80 : Number(url.port)) !== port) return false;
  const hostname = url.hostname;
  if (hostname === 'localhost') return true;
  if (isIP(hostname.replace(/^\[|\]$/g, '')) === 0) return false;
  return remote || isLoopbackHost(hostname);
}
