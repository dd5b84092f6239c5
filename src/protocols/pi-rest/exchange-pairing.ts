import type { HttpContext } from '../../core/message.js';
import { pathWithoutQuery } from './route-matcher.js';

/** What a request body told us that its response is checked against. */
export interface PendingRequest {
  /** The body's `requestId`, when it had one. */
  bodyRequestId?: string;
}

type RequestHeaders = HttpContext['requestHeaders'];

interface Entry {
  headers: RequestHeaders;
  /** headerSignature(headers), once a comparison has needed it. */
  signature?: string;
  request: PendingRequest;
}

/** Requests still waiting per route; a long list means responses were never captured. */
const MAX_PENDING_PER_KEY = 32;

/**
 * Pairs a response body with the request body of the same exchange: same method, path and query and,
 * when both messages carry them, the same request headers (so a request whose response was never
 * captured does not get paired with the next request's response). A request without a JSON body
 * (GET, DELETE, blob upload) never opens an entry, so its response finds none.
 */
export class ExchangePairing {
  private readonly pending = new Map<string, Entry[]>();

  open(http: HttpContext, request: PendingRequest): void {
    const key = routeKey(http);
    const list = this.pending.get(key) ?? [];
    list.push({ headers: http.requestHeaders, request });
    if (list.length > MAX_PENDING_PER_KEY) list.shift();
    this.pending.set(key, list);
  }

  /** The oldest unanswered request of the same exchange, removed; undefined when there is none. */
  take(http: HttpContext): PendingRequest | undefined {
    const key = routeKey(http);
    const list = this.pending.get(key);
    if (!list) return undefined;
    const headers = http.requestHeaders;
    // A recorded exchange hands both bodies the same headers object: equal without a signature.
    let signature: string | undefined;
    const sameHeaders = (e: Entry) => {
      if (e.headers === undefined || e.headers === headers) return true;
      e.signature ??= headerSignature(e.headers);
      signature ??= headerSignature(headers!);
      return e.signature === signature;
    };
    const index = headers === undefined ? 0 : list.findIndex(sameHeaders);
    if (index === -1) return undefined;
    const [entry] = list.splice(index, 1);
    if (list.length === 0) this.pending.delete(key);
    return entry.request;
  }
}

function routeKey(http: HttpContext): string {
  const q = http.path.indexOf('?');
  const query = http.query?.toString() ?? (q === -1 ? '' : http.path.slice(q + 1));
  // NUL cannot appear in a method, a path or a query that HTTP carries: the key is unambiguous.
  return `${http.method.toUpperCase()}\0${pathWithoutQuery(http.path)}\0${query}`;
}

/** The headers in a form that compares equal for equal headers, whatever their order and case. */
function headerSignature(requestHeaders: NonNullable<RequestHeaders>): string {
  const headers = Object.entries(requestHeaders)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : v] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(headers);
}
