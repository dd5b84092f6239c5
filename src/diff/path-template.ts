import type { IdCanonicalizer } from './id-canonicalizer.js';
import { tokensAsKinds } from './volatile-tokens.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMBER = /^\d+$/;
const PREFIXED_ID = /^(ticket|tkt|blob|file|req|request|run|msg|sess|session|conn|call|job|op)[-_][A-Za-z0-9_-]+$/i;
const LONG_TOKEN = /^[A-Za-z0-9_-]{20,}$/;

/** Does a path segment look generated: a uuid, a number, `ticket-…`, or a long base64url token with a digit? */
export function isIdLikeSegment(segment: string): boolean {
  if (segment === '') return false;
  return UUID.test(segment) || NUMBER.test(segment) || PREFIXED_ID.test(segment) || (LONG_TOKEN.test(segment) && /\d/.test(segment));
}

/**
 * The path as a template for alignment: id-like segments, and segments equal to an id seen earlier
 * on the same side, become `{id}` (`/v1/ticket/tkt-9f2` → `/v1/ticket/{id}`).
 */
export function pathTemplate(path: string | null, ids: IdCanonicalizer): string {
  if (path === null) return '';
  return path
    .split('/')
    .map((s) => {
      const value = decode(s);
      if (isIdLikeSegment(value) || ids.known(value) !== undefined) return '{id}';
      const template = tokensAsKinds(value);
      return template === value ? s : template;
    })
    .join('/');
}

/** The path with id segments replaced by their canonical labels (learnt when new), for comparing aligned exchanges. */
export function canonicalPath(path: string | null, ids: IdCanonicalizer): string {
  if (path === null) return '';
  return path
    .split('/')
    .map((s) => {
      const value = decode(s);
      const known = ids.known(value);
      if (known !== undefined) return `{${known}}`;
      if (isIdLikeSegment(value)) return `{${ids.label('segment', value)}}`;
      const canonical = ids.tokens(value, true);
      return canonical === value ? s : canonical;
    })
    .join('/');
}

/** The query string with id-like values canonical, keys sorted. */
export function canonicalQuery(query: string | null, ids: IdCanonicalizer): string {
  if (!query) return '';
  const params = [...new URLSearchParams(query)].map(([k, v]) => {
    const known = ids.known(v);
    if (known !== undefined) return [k, `{${known}}`] as const;
    if (isIdLikeSegment(v) && !NUMBER.test(v)) return [k, `{${ids.label(k, v)}}`] as const;
    return [k, ids.tokens(v, true)] as const;
  });
  params.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  return params.map(([k, v]) => `${k}=${v}`).join('&');
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
