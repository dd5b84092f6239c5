import type { Duplex } from 'node:stream';
import type { TargetAddress } from './addresses.js';
import { writeRawResponse } from './ws-rejection.js';

/** A CONNECT's target: the host (no brackets) and port it names. */
export interface ConnectAuthority {
  host: string;
  port: number;
  /** As the client wrote it: `example.com:443`, `[::1]:8443`. */
  text: string;
}

/** An origin a forward proxy's client addressed, as a TCP target with no base path. */
export type ForwardOrigin = TargetAddress & { kind: 'tcp' };

/**
 * `http://host[:port]/path?query` split into its origin and the path and query exactly as sent (no
 * URL normalisation: the origin must get the bytes the client wrote); undefined when the request
 * target is not an absolute http(s) URL. The origin's `display` is the URL's origin
 * (`https://host`, the default port left out), as `new URL(url).origin` says it.
 */
export function absoluteForm(requestTarget: string): { target: ForwardOrigin; pathAndQuery: string } | undefined {
  const match = /^(https?):\/\/([^/?#]+)([^#]*)/i.exec(requestTarget);
  if (!match) return undefined;
  const protocol = `${match[1].toLowerCase()}:` as 'http:' | 'https:';
  let url: URL;
  try {
    url = new URL(`${protocol}//${match[2]}`);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  const rest = match[3];
  const pathAndQuery = rest === '' ? '/' : rest.startsWith('?') ? `/${rest}` : rest;
  const port = url.port ? Number(url.port) : protocol === 'https:' ? 443 : 80;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { target: { kind: 'tcp', protocol, host, port, basePath: '', display: `${protocol}//${url.host}` }, pathAndQuery };
}

/** A CONNECT's authority-form target, `host:port` (RFC 9110 §9.3.6: the port is required). */
export function connectAuthority(requestTarget: string): ConnectAuthority | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/?#@[\]]+):(\d{1,5})$/.exec(requestTarget);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1].replace(/^\[|\]$/g, ''), port, text: requestTarget };
}

/** The origin the requests inside a CONNECT to `authority` go to, over `protocol`. */
export function connectOrigin(authority: ConnectAuthority, protocol: 'http:' | 'https:'): ForwardOrigin {
  const host = authority.host.includes(':') ? `[${authority.host}]` : authority.host;
  const defaultPort = protocol === 'https:' ? 443 : 80;
  const display = `${protocol}//${host}${authority.port === defaultPort ? '' : `:${authority.port}`}`;
  return { kind: 'tcp', protocol, host: authority.host, port: authority.port, basePath: '', display };
}

/** Removes the proxy's own headers (`Proxy-Authorization`, `Proxy-Connection` …) in place: never forwarded, never stored. */
export function dropProxyHeaders(rawHeaders: string[]): void {
  for (let i = rawHeaders.length - 2; i >= 0; i -= 2) {
    if (rawHeaders[i].length > 6 && rawHeaders[i].slice(0, 6).toLowerCase() === 'proxy-') rawHeaders.splice(i, 2);
  }
}

/**
 * Answers a raw socket (an upgrade or a CONNECT the proxy will not carry) and ends it; with a
 * message, the body is the JSON error `{"error":{"code","message"}}` (`code` defaults by status:
 * 400 `not_a_proxy_request`, else `proxy_auth_required`).
 */
export function refuseRaw(socket: Duplex, status: number, headers: Record<string, string>, message?: string, code?: string): void {
  const errorCode = code ?? (status === 400 ? 'not_a_proxy_request' : 'proxy_auth_required');
  const body = message === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify({ error: { code: errorCode, message } }));
  const raw = Object.entries(headers).flat();
  if (body.length > 0) raw.push('Content-Type', 'application/json; charset=utf-8');
  raw.push('Content-Length', String(body.length), 'Connection', 'close');
  writeRawResponse(socket, status, undefined, raw, body);
}
