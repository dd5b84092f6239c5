import { shellWord } from '../../core/shell-word.js';
import { UsageError } from '../../core/errors.js';
import type { LocalCa } from './local-ca.js';

/** The forward proxy's address when none is given: `record`'s default listen address. */
export const DEFAULT_PROXY_URL = 'http://127.0.0.1:8788';

export interface ProxyEnvironmentOptions {
  /** The forward proxy, `http://host:port`. */
  proxyUrl: string;
  ca: LocalCa;
  /** The system's CAs and the local CA in one file (writeTrustBundle), for the variables that replace a client's CA list. */
  bundleFile: string;
}

/**
 * The variables that make a process use the forward proxy and trust its CA, in the order they are
 * printed. Both spellings of the proxy variables: curl reads only `http_proxy` for http://, Node and
 * Python read either. NO_PROXY names the proxy itself (a request addressed to it must not loop
 * through it) and nothing else: loopback is left out on purpose, so the local services an agent
 * calls (MCP servers, its daemon, test stand-ins) are recorded too, and a NO_PROXY the shell had is
 * replaced for the same reason.
 */
export function proxyEnvironment(options: ProxyEnvironmentOptions): Array<[name: string, value: string]> {
  const proxy = proxyUrl(options.proxyUrl);
  const self = new URL(proxy).host;
  return [
    ['HTTPS_PROXY', proxy],
    ['https_proxy', proxy],
    ['HTTP_PROXY', proxy],
    ['http_proxy', proxy],
    ['NO_PROXY', self],
    ['no_proxy', self],
    // Node's fetch and http read the proxy variables only with this set (Node 24, 22.21+).
    ['NODE_USE_ENV_PROXY', '1'],
    // Added to Node's CAs.
    ['NODE_EXTRA_CA_CERTS', options.ca.certFile],
    // These replace the client's CA list: given the system's CAs with the local CA after them.
    ['SSL_CERT_FILE', options.bundleFile],
    ['REQUESTS_CA_BUNDLE', options.bundleFile],
    ['CURL_CA_BUNDLE', options.bundleFile],
  ];
}

/** `export NAME=value` lines a POSIX shell can eval, each value quoted where it needs to be. */
export function shellExportLines(variables: ReadonlyArray<readonly [string, string]>): string {
  return variables.map(([name, value]) => `export ${name}=${shellWord(value)}\n`).join('');
}

/**
 * `http://[user:pass@]host:port` of a proxy URL, checked: the forward proxy speaks plain HTTP to its
 * clients; credentials stay for a proxy that asks for them (`--proxy-auth`).
 */
export function proxyUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--proxy '${url}' is not a URL: http://host:port is expected`);
  }
  if (parsed.protocol !== 'http:' || !['', '/'].includes(parsed.pathname) || parsed.search !== '' || parsed.hash !== '') {
    throw new UsageError(`--proxy '${url}' must be http://host:port, the forward proxy's address`);
  }
  const credentials = parsed.username === '' ? '' : `${parsed.username}${parsed.password === '' ? '' : `:${parsed.password}`}@`;
  return `http://${credentials}${parsed.host}`;
}
