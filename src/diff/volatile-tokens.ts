/**
 * Volatile tokens inside strings: values a run generates afresh (uuids, ULIDs, timestamps) that
 * end up embedded in longer text, such as a session file `…/2026-12-01T19-01-28-669Z_01a232fb-….jsonl`.
 * The diff replaces each by a label numbered per kind in order of first appearance, so the same
 * token reads the same everywhere in a recording and two different tokens stay different.
 */
export type VolatileTokenKind = 'uuid' | 'ulid' | 'timestamp';

// A token is not part of a longer run of letters and digits (an `_` or `-` around it is a separator).
const BEFORE = '(?<![0-9A-Za-z])';
const AFTER = '(?![0-9A-Za-z])';
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
// Crockford base32, 26 characters, the first at most 7 (48-bit time); at least one letter.
const ULID = '[0-7](?=[0-9]{0,24}[A-HJKMNP-TV-Za-hjkmnp-tv-z])[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}';
// ISO 8601 date-time, extended (`2026-12-01T19:01:28.669Z`, a space for the T too), its filename-safe
// form with `-` for `:` and `.` (`2026-12-01T19-01-28-669Z`), and the basic form (`20261201T190128Z`);
// then RFC 7231 HTTP dates (`Tue, 01 Dec 2026 19:01:26 GMT`).
const ISO =
  '\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}(?<sep>[:-])\\d{2}\\k<sep>\\d{2}(?:[.,-]\\d{1,9})?(?:Z|[+-]\\d{2}(?::?\\d{2})?)?' +
  '|\\d{8}T\\d{6}(?:[.,]\\d{1,9})?(?:Z|[+-]\\d{4})?';
const HTTP_DATE = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT';

const TOKEN = new RegExp(`${BEFORE}(?:(${UUID})|(${ULID})|(${ISO}|${HTTP_DATE}))${AFTER}`, 'g');

/** Shorter strings cannot hold a token (the shortest, a basic-form timestamp, has 15 characters). */
const MIN_TOKEN_LENGTH = 15;

/**
 * `text` with every volatile token replaced by `labelOf(kind, token)`; the same string when it has
 * none. A token that is the whole string is replaced by the bare label, one inside longer text by
 * `{label}`, so that an embedded label cannot be mistaken for surrounding text.
 */
export function replaceVolatileTokens(text: string, labelOf: (kind: VolatileTokenKind, token: string) => string): string {
  if (text.length < MIN_TOKEN_LENGTH) return text;
  TOKEN.lastIndex = 0;
  let match = TOKEN.exec(text);
  if (match === null) return text;
  if (match[0].length === text.length) return labelOf(kindOf(match), text);
  let out = '';
  let last = 0;
  do {
    out += `${text.slice(last, match.index)}{${labelOf(kindOf(match), match[0])}}`;
    last = match.index + match[0].length;
    match = TOKEN.exec(text);
  } while (match !== null);
  return out + text.slice(last);
}

/** `text` with each volatile token replaced by `{kind}` (for alignment keys, which learn nothing). */
export function tokensAsKinds(text: string): string {
  return replaceVolatileTokens(text, (kind) => kind);
}

function kindOf(match: RegExpExecArray): VolatileTokenKind {
  return match[1] !== undefined ? 'uuid' : match[2] !== undefined ? 'ulid' : 'timestamp';
}
