import { isJsonObject } from '../../core/json.js';

/** The API routes this protocol knows. */
export type AnthropicEndpoint = 'messages' | 'count_tokens';

interface Route {
  readonly endpoint: AnthropicEndpoint;
  /** The path below the API's base (`/v1`). */
  readonly tail: string;
}

// count_tokens first: its path ends in /messages/count_tokens, not /messages.
const ROUTES: readonly Route[] = [
  { endpoint: 'count_tokens', tail: '/messages/count_tokens' },
  { endpoint: 'messages', tail: '/messages' },
];

/** Where a route was found: at Anthropic's own base path, or under another mount (a gateway's `/anthropic/v1`). */
export interface RouteMatch {
  readonly endpoint: AnthropicEndpoint;
  readonly tail: string;
  /** `/v1` + tail exactly, as api.anthropic.com serves it. */
  readonly atBase: boolean;
  /** `…/v1` + tail: a gateway's or proxy's versioned mount (`/anthropic/v1/messages`). */
  readonly versioned: boolean;
}

function cleanPath(path: string): string {
  const bare = path.split('?')[0].split('#')[0];
  return bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare;
}

/** The route a POST path ends in; undefined when it ends in none of them. */
export function routeOfPath(path: string): RouteMatch | undefined {
  const clean = cleanPath(path);
  for (const route of ROUTES) {
    if (!clean.endsWith(route.tail)) continue;
    const prefix = clean.slice(0, clean.length - route.tail.length);
    return { ...route, atBase: prefix === '/v1', versioned: prefix === '/v1' || prefix.endsWith('/v1') };
  }
  return undefined;
}

/** The route of a request, method and path both: every route is a POST. */
export function routeOf(method: string | undefined, path: string | undefined): RouteMatch | undefined {
  if (path === undefined || (method !== undefined && method.toUpperCase() !== 'POST')) return undefined;
  return routeOfPath(path);
}

/** Does a request body look like one of `endpoint`'s, by the fields it cannot do without? */
export function looksLikeRequest(endpoint: AnthropicEndpoint, body: unknown): boolean {
  if (!isJsonObject(body) || typeof body.model !== 'string' || !Array.isArray(body.messages)) return false;
  return endpoint === 'count_tokens' || typeof body.max_tokens === 'number';
}

/** The route template of a request path (the path itself, for the routes this protocol knows). */
export function anthropicRouteTemplate(method: string, path: string): string | undefined {
  return routeOf(method, path) === undefined ? undefined : cleanPath(path);
}
