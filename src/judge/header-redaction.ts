import { REDACTED } from '../core/redacted.js';
import { HeaderPairs, headerRecord, type HeaderValueFilter } from '../net/headers.js';
import { isSecretArgumentName } from '../core/secret-argument-name.js';
import { QueryRedactor } from './query-redaction.js';

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

/** Headers whose value is a URL: stored with the secret parameters of its query redacted (QueryRedactor). */
const URL_HEADERS: readonly string[] = ['location', 'content-location', 'referer'];

type HeaderRule = 'secret' | 'url';

/**
 * MCP 2026-07-28 mirrors a tool argument into `Mcp-Param-{Name}` (its x-mcp-header): one named like a
 * secret (`Mcp-Param-Api-Key`) is stored redacted, as the argument is in the body.
 */
const MIRRORED_ARGUMENT = 'mcp-param-';

export class HeaderRedactor implements HeaderValueFilter {
  /** Lower-case names by length: most headers are told apart by length alone, and none is lower-cased. */
  private readonly byLength = new Map<number, Array<[name: string, rule: HeaderRule]>>();
  private readonly queries: QueryRedactor;

  /** `extra`: more secret header names; `queryParams`: more secret query parameters (for URL-valued headers). */
  constructor(extra: readonly string[] = [], queryParams: readonly string[] = []) {
    const rules = new Map<string, HeaderRule>(URL_HEADERS.map((name) => [name, 'url']));
    for (const name of [...DEFAULT_REDACTED_HEADERS, ...extra]) rules.set(name.toLowerCase(), 'secret');
    for (const [name, rule] of rules) {
      const list = this.byLength.get(name.length);
      if (list) list.push([name, rule]);
      else this.byLength.set(name.length, [[name, rule]]);
    }
    this.queries = new QueryRedactor(queryParams);
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

  /**
   * The redacted pairs, standing for their record (HeaderPairs): what capture hands the recorder,
   * so that the recording worker stores their JSON text and makes the record only when a checker
   * reads a header.
   */
  recordPairs(rawHeaders: string[]): HeaderPairs {
    return new HeaderPairs(this.redact(rawHeaders));
  }

  /** The value to store for a header; `name` in any case. */
  storedValue(name: string, value: string): string {
    if (name.length > MIRRORED_ARGUMENT.length && sameName(name, MIRRORED_ARGUMENT) && isSecretArgumentName(name.slice(MIRRORED_ARGUMENT.length))) return REDACTED;
    const candidates = this.byLength.get(name.length);
    if (candidates === undefined) return value;
    const match = candidates.find(([lower]) => sameName(name, lower));
    if (match === undefined) return value;
    const [lower, rule] = match;
    if (rule === 'url') return this.queries.redactUrl(value);
    const scheme = (lower === 'authorization' || lower === 'proxy-authorization') && /^[A-Za-z][\w-]*\s/.exec(value);
    return scheme ? `${scheme[0].trim()} ${REDACTED}` : REDACTED;
  }
}

/**
 * `name` (any case) equals `lower` (lower case, same length), without allocating. Folding with 0x20 is
 * exact for header names: they are tokens (no control characters), so only letters fold.
 */
function sameName(name: string, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    const c = name.charCodeAt(i);
    const l = lower.charCodeAt(i);
    if (c !== l && (c | 0x20) !== l) return false;
  }
  return true;
}
