import { endToEndHeaders } from '../net/headers.js';
import { REDACTED } from '../core/redacted.js';
import type { ScriptExchange } from '../replay/replay-script.js';
import type { SuppliedHeader } from './supplied-header.js';
import { Substitution } from '../match/correlation.js';

/** What a redrive sends for one recorded HTTP exchange: the client's side as it was recorded. */
export interface RedriveRequest {
  method: string;
  /** Path and query, as the client sent them to the proxy. */
  url: string;
  /** Header name/value pairs in recorded order. */
  headers: string[];
  body: Buffer;
  /** Headers the recording redacted that nothing supplied: left out. */
  missing: string[];
}

/** Headers set for the request sent now: the recorder's host, and the length of the body sent. */
const SET_BY_THE_CONNECTION = ['host', 'content-length'];

/** Why a recorded exchange cannot be sent again as recorded: a body cut by --max-body. */
export function unsendableReason(exchange: ScriptExchange): string | undefined {
  if (exchange.messages.some((m) => m.sender === 'client' && m.truncated)) return 'its request body was stored truncated (--max-body)';
  return undefined;
}

/**
 * The recorded request of `exchange`, with the `supplied` headers (`--header`) in place of recorded
 * ones of the same name: a request recorded without such a header is sent without it, as it was. A
 * header the recording redacted and nothing supplies is left out (its value was never kept, and the
 * marker would be a wrong credential); its name is in `missing`.
 */
export function redriveRequestOf(exchange: ScriptExchange, supplied: readonly SuppliedHeader[] = [], ids: Substitution = new Substitution()): RedriveRequest {
  const suppliedByName = new Map(supplied.map((h) => [h.name.toLowerCase(), h]));
  const recorded: string[] = [];
  const missing: string[] = [];
  for (const [name, value] of Object.entries(exchange.requestHeaders ?? {})) {
    const lower = name.toLowerCase();
    if (SET_BY_THE_CONNECTION.includes(lower)) continue;
    const given = suppliedByName.get(lower);
    if (given) {
      recorded.push(name, given.value);
      continue;
    }
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one.includes(REDACTED)) missing.push(name);
      else recorded.push(name, ids.applyText(one));
    }
  }
  const headers = endToEndHeaders(recorded);
  const body = Buffer.concat(exchange.messages.filter((m) => m.sender === 'client').map((m) => ids.apply(m.raw)));
  // A request recorded without a length (a GET) is sent without one, so its recorded headers stay alike.
  const hadLength = Object.keys(exchange.requestHeaders ?? {}).some((name) => name.toLowerCase() === 'content-length');
  if (hadLength || body.length > 0) headers.push('content-length', String(body.length));
  const query = exchange.query ? `?${queryWithIds(exchange.query, ids)}` : '';
  return { method: exchange.method ?? 'GET', url: `${pathWithIds(exchange.path ?? '/', ids)}${query}`, headers, body, missing };
}

/** The path with each segment that is exactly a carried-forward id replaced (`/v1/ticket/<id>`). */
function pathWithIds(path: string, ids: Substitution): string {
  if (ids.size === 0) return path;
  return path
    .split('/')
    .map((segment) => {
      const decoded = decodedSegment(segment);
      if (decoded === undefined) return segment;
      const replaced = ids.applyText(decoded);
      return replaced === decoded ? segment : encodeURIComponent(replaced);
    })
    .join('/');
}

/** The query with each value that is exactly a carried-forward id replaced; as recorded, byte for byte, when none is. */
function queryWithIds(query: string, ids: Substitution): string {
  if (ids.size === 0) return query;
  const params = new URLSearchParams(query);
  let changed = false;
  for (const [name, value] of [...params]) {
    const replaced = ids.applyText(value);
    if (replaced !== value) {
      params.set(name, replaced);
      changed = true;
    }
  }
  return changed ? params.toString() : query;
}

function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
