import { UsageError } from '../core/errors.js';

/** Where the proxy forwards to: a TCP origin with an optional base path, or a unix socket. */
export type TargetAddress =
  | { kind: 'tcp'; protocol: 'http:' | 'https:'; host: string; port: number; basePath: string; display: string }
  | { kind: 'unix'; socketPath: string; basePath: string; display: string };

/** Where the proxy listens. */
export type ListenAddress = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; socketPath: string };

/** Documented default port for `proxy record` and `proxy replay`. */
export const DEFAULT_LISTEN_PORT = 8788;

export function parseTarget(value: string): TargetAddress {
  if (value.startsWith('unix:')) {
    const socketPath = value.slice(5);
    if (!socketPath) throw new UsageError(`--target '${value}' names no socket path`);
    return { kind: 'unix', socketPath, basePath: '', display: value };
  }
  const expected = 'expected http[s]://host[:port][/base] or unix:/path.sock';
  // `localhost:8100` parses as a URL of scheme "localhost:": say what is missing instead.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    if (/^[^/\s]+:\d+(\/.*)?$/.test(value)) throw new UsageError(`--target '${value}' has no scheme: did you mean http://${value}? (${expected})`);
    throw new UsageError(`--target '${value}' is not a URL: ${expected}`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--target '${value}' is not a URL: ${expected}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--target '${value}': ${url.protocol.slice(0, -1)}:// targets are not supported: ${expected}`);
  }
  const basePath = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { kind: 'tcp', protocol: url.protocol, host, port, basePath, display: value };
}

/** Parses a listen address; `flag` is the option it came from, named in the error. */
export function parseListen(value: string | number | undefined, flag = '--listen'): ListenAddress {
  if (value === undefined) return { kind: 'tcp', host: '127.0.0.1', port: DEFAULT_LISTEN_PORT };
  const text = String(value);
  if (text.startsWith('unix:')) {
    const socketPath = text.slice(5);
    if (!socketPath) throw new UsageError(`${flag} '${text}' names no socket path`);
    return { kind: 'unix', socketPath };
  }
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(text);
  if (!match) throw new UsageError(`${flag} '${text}' is not an address: expected [host:]port or unix:/path.sock`);
  const port = Number(match[2]);
  if (port > 65535) throw new UsageError(`${flag} port ${port} is out of range: expected 0 to 65535`);
  const host = (match[1] ?? '127.0.0.1').replace(/^\[|\]$/g, '');
  return { kind: 'tcp', host, port };
}

/** True when the target is reached over TLS (`https://`, and `wss://` for upgrades). */
export function isTlsTarget(target: TargetAddress): boolean {
  return target.kind === 'tcp' && target.protocol === 'https:';
}

/** The URL clients use; `tls` when the listener serves HTTPS (`--tls-cert`). */
export function listenUrl(address: ListenAddress, actualPort?: number, tls = false): string {
  if (address.kind === 'unix') return `unix:${address.socketPath}`;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `${tls ? 'https' : 'http'}://${host}:${actualPort ?? address.port}`;
}
