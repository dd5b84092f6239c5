import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * CORS for browser front ends: a page on one origin (a dev server on :3000) calling the replay on
 * another. A browser sends a preflight before any request it may not send unasked (a JSON POST
 * is one), and hands the page an answer only when it names the page's origin. With `--cors on`
 * (the default) the replay answers preflights itself and lets every answer it sends (recorded,
 * a miss, a fault) name the requesting origin; `--cors off` sends only what was recorded.
 */

/** How long a browser may keep a preflight the replay answered, in seconds (Chromium keeps one at most 2 hours). */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

type Headers = Readonly<Record<string, string | readonly string[] | number | undefined>>;

/** A header's value whatever the case of its name (recorded headers keep the spelling they travelled with). */
function headerOf(headers: Headers | null | undefined, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : String(value);
  }
  return undefined;
}

/**
 * A CORS preflight: `OPTIONS` from a page (`Origin`) asking whether it may send a request
 * (`Access-Control-Request-Method`). Any other OPTIONS is a request like the rest.
 */
export function isPreflight(method: string | null | undefined, headers: Headers | null | undefined): boolean {
  return method === 'OPTIONS' && headerOf(headers, 'origin') !== undefined && headerOf(headers, 'access-control-request-method') !== undefined;
}

/** A recorded exchange that was a browser's preflight (its request headers are the recorded ones). */
export function isRecordedPreflight(exchange: { method: string | null; requestHeaders: Record<string, string | string[]> | null }): boolean {
  return isPreflight(exchange.method, exchange.requestHeaders);
}

/**
 * The replay's own answer to a preflight no recorded one matches: 204 allowing the requesting
 * origin, the method and the headers it asked for. Credentials are allowed too: a preflight never
 * carries them, but the request it clears may (`fetch(…, { credentials: 'include' })`).
 */
export function preflightAnswerHeaders(request: IncomingHttpHeaders): string[] {
  const headers = [
    'Access-Control-Allow-Origin', headerOf(request, 'origin') ?? 'null',
    'Access-Control-Allow-Methods', headerOf(request, 'access-control-request-method') ?? '',
    'Access-Control-Allow-Credentials', 'true',
    'Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS),
    'Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  ];
  const asked = headerOf(request, 'access-control-request-headers');
  if (asked !== undefined && asked.trim() !== '') headers.push('Access-Control-Allow-Headers', asked);
  // Chromium's Private Network Access asks this of a loopback server called from a public page.
  if (headerOf(request, 'access-control-request-private-network') === 'true') headers.push('Access-Control-Allow-Private-Network', 'true');
  return headers;
}

export function answerPreflight(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(204, [...preflightAnswerHeaders(req.headers), 'Content-Length', '0']);
  res.end();
}

/** Response headers a page may read without being told (CORS-safelisted), and those it never reads. */
const READABLE_ANYWAY = new Set(['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma', 'vary', 'set-cookie', 'set-cookie2']);

/** Does the request carry credentials the page sent along (a cookie, an Authorization header)? */
function hasCredentials(request: IncomingHttpHeaders): boolean {
  return request.cookie !== undefined || request.authorization !== undefined;
}

/**
 * An answer's headers (raw name/value pairs) as a page on the request's origin may read them:
 * `Access-Control-Allow-Origin` names that origin (a recorded one named the origin of the page
 * that recorded it, which may be served from another port now), `Vary` gains `Origin`,
 * `Access-Control-Allow-Credentials: true` when the request carried credentials, and the answer's
 * other headers are exposed unless it says which itself. Request without an `Origin`: unchanged.
 */
export function corsAnswerHeaders(raw: readonly string[], request: IncomingHttpHeaders): string[] {
  const origin = headerOf(request, 'origin');
  if (origin === undefined) return [...raw];
  const out: string[] = [];
  const exposable = new Map<string, string>();
  let vary: string | undefined;
  let exposes = false;
  let allowsCredentials = false;
  for (let i = 0; i < raw.length; i += 2) {
    const [name, value] = [raw[i], raw[i + 1]];
    const lower = name.toLowerCase();
    if (lower === 'access-control-allow-origin') continue;
    if (lower === 'vary') {
      vary = vary === undefined ? value : `${vary}, ${value}`;
      continue;
    }
    if (lower === 'access-control-expose-headers') exposes = true;
    if (lower === 'access-control-allow-credentials') allowsCredentials = true;
    if (!lower.startsWith('access-control-') && !READABLE_ANYWAY.has(lower)) exposable.set(lower, name);
    out.push(name, value);
  }
  out.push('Access-Control-Allow-Origin', origin);
  if (hasCredentials(request) && !allowsCredentials) out.push('Access-Control-Allow-Credentials', 'true');
  if (!exposes && exposable.size > 0) out.push('Access-Control-Expose-Headers', [...exposable.values()].join(', '));
  out.push('Vary', varyByOrigin(vary));
  return out;
}

/** A `Vary` value that names `Origin` (a `*` already covers it). */
function varyByOrigin(vary: string | undefined): string {
  if (vary === undefined || vary.trim() === '') return 'Origin';
  const names = vary.split(',').map((n) => n.trim().toLowerCase());
  return names.includes('origin') || names.includes('*') ? vary : `${vary}, Origin`;
}

/** Headers as writeHead takes them (an object, a flat list, a list of pairs, or none) as a flat list of raw pairs. */
function rawPairs(headers: OutgoingHttpHeaders | readonly OutgoingHttpHeader[] | undefined): string[] {
  if (headers === undefined) return [];
  const list = headers as readonly unknown[];
  if (Array.isArray(list) && !Array.isArray(list[0])) return list.map(String);
  const entries = Array.isArray(list) ? (list as [string, OutgoingHttpHeader][]) : Object.entries(headers as OutgoingHttpHeaders);
  const raw: string[] = [];
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) raw.push(name, String(v));
  }
  return raw;
}

/**
 * Makes every answer to this request readable by the page that sent it (corsAnswerHeaders), however
 * it is written: a recorded answer, a miss, a fault, a forwarded miss. Every answer the replay
 * sends goes through writeHead, so that is where the headers are added, in one place rather than
 * at each of them.
 */
export function allowOriginOnAnswers(req: IncomingMessage, res: ServerResponse): void {
  if (req.headers.origin === undefined) return;
  const writeHead = res.writeHead.bind(res) as (status: number, reason: string | undefined, headers: string[]) => ServerResponse;
  type Given = OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined;
  res.writeHead = ((status: number, reasonOrHeaders?: string | Given, headers?: Given): ServerResponse => {
    const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
    return writeHead(status, reason, corsAnswerHeaders(rawPairs(reason === undefined ? reasonOrHeaders as Given : headers), req.headers));
  }) as ServerResponse['writeHead'];
}
