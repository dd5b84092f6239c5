import { isJsonObject } from '../../core/json.js';
import { cleanApiPath, routeAtTail, type TailMatch } from '../api-route-tail.js';

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
export type RouteMatch = TailMatch<Route>;

/** The route a POST path ends in; undefined when it ends in none of them. */
export function routeOfPath(path: string): RouteMatch | undefined {
  return routeAtTail(ROUTES, path);
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
  return routeOf(method, path) === undefined ? undefined : cleanApiPath(path);
}
