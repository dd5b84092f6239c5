import { REDACTED } from '../core/redacted.js';
import { headerRecord, lengthsOf, type HeaderValueFilter } from './headers.js';

/** Headers whose values are credentials: they are forwarded as they are and stored as `<redacted>`. */
export const DEFAULT_REDACTED_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
  'x-auth-token',
  'x-access-token',
  'x-refresh-token',
  'x-session-token',
  'x-csrf-token',
  'x-xsrf-token',
  'x-goog-api-key',
  'x-amz-security-token',
  'private-token',
  'x-vault-token',
  'ocp-apim-subscription-key',
  'x-functions-key',
];

export { REDACTED } from '../core/redacted.js';

export class HeaderRedactor implements HeaderValueFilter {
  private readonly names: Set<string>;
  /** Lengths of the redacted names: most headers are told apart without lower-casing them. */
  private readonly lengths: ReadonlySet<number>;

  constructor(extra: readonly string[] = []) {
    this.names = new Set([...DEFAULT_REDACTED_HEADERS, ...extra.map((n) => n.toLowerCase())]);
    this.lengths = lengthsOf(this.names);
  }

  /** A copy of raw header pairs with secret values replaced. The scheme of Authorization is kept (`Bearer <redacted>`). */
  redact(rawHeaders: string[]): string[] {
    const out = rawHeaders.slice();
    for (let i = 0; i < out.length; i += 2) out[i + 1] = this.storedValue(out[i], out[i + 1]);
    return out;
  }

  /** Raw header pairs as stored: `headerRecord` of the redacted pairs, in one pass. */
  record(rawHeaders: string[]): Record<string, string | string[]> {
    return headerRecord(rawHeaders, this);
  }

  /** The value to store for a header; `name` in any case. */
  storedValue(name: string, value: string): string {
    if (!this.lengths.has(name.length)) return value;
    const lower = name.toLowerCase();
    if (!this.names.has(lower)) return value;
    const scheme = (lower === 'authorization' || lower === 'proxy-authorization') && /^[A-Za-z][\w-]*\s/.exec(value);
    return scheme ? `${scheme[0].trim()} ${REDACTED}` : REDACTED;
  }
}
