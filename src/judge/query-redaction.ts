import { REDACTED_IN_QUERY, secretNameKey } from '../core/redacted.js';

/**
 * Query parameters whose values are credentials: forwarded as they are, stored as
 * `%3Credacted%3E`. Names are compared ignoring case, `-` and `_` (`api_key` covers `apiKey`,
 * `API-KEY`, `apikey`). Broad on purpose: replay matches a redacted value with any live value, so
 * hiding a harmless `key` costs little.
 */
export const DEFAULT_REDACTED_QUERY_PARAMS: readonly string[] = [
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'auth_token',
  'session_token',
  'private_token',
  'api_key',
  'key',
  'password',
  'passwd',
  'pwd',
  'secret',
  'client_secret',
  'sig',
  'signature',
  'auth',
  'authorization',
  'jwt',
  'x-amz-signature',
  'x-amz-security-token',
  'x-amz-credential',
  'x-goog-signature',
  'x-goog-credential',
];

/**
 * Replaces the values of secret query parameters in a stored query string or URL. Everything else
 * stays exactly as sent: the other parameters, their order, the secret parameter's name and its
 * place (`a=1&token=%3Credacted%3E&b=2`). Names are matched after percent-decoding, as a server
 * reads them.
 */
export class QueryRedactor {
  private readonly names: Set<string>;

  constructor(extra: readonly string[] = []) {
    this.names = new Set([...DEFAULT_REDACTED_QUERY_PARAMS, ...extra].map(secretNameKey));
  }

  /** The query string (without `?`) as stored; the input itself when nothing is secret. */
  redact(query: string): string {
    let out = '';
    let copied = 0;
    let start = 0;
    while (start <= query.length) {
      let end = query.indexOf('&', start);
      if (end < 0) end = query.length;
      const equals = query.indexOf('=', start);
      if (equals >= 0 && equals < end - 1 && this.isSecret(query.slice(start, equals))) {
        const valueAt = equals + 1;
        if (query.slice(valueAt, end) !== REDACTED_IN_QUERY) {
          out += query.slice(copied, valueAt) + REDACTED_IN_QUERY;
          copied = end;
        }
      }
      start = end + 1;
    }
    return copied === 0 ? query : out + query.slice(copied);
  }

  /** A URL or request target with its query redacted; the input itself when nothing is secret. */
  redactUrl(url: string): string {
    const at = url.indexOf('?');
    if (at < 0) return url;
    const query = url.slice(at + 1);
    const redacted = this.redact(query);
    return redacted === query ? url : url.slice(0, at + 1) + redacted;
  }

  private isSecret(rawName: string): boolean {
    return this.names.has(secretNameKey(decodeName(rawName)));
  }
}

function decodeName(name: string): string {
  if (!name.includes('%') && !name.includes('+')) return name;
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
