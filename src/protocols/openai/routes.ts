import { isJsonObject } from '../../core/json.js';
import { cleanApiPath, routeAtTail, type TailMatch } from '../api-route-tail.js';

/** The API routes this protocol knows. */
export type OpenAiEndpoint = 'chat' | 'responses' | 'embeddings' | 'models';

interface Route {
  readonly endpoint: OpenAiEndpoint;
  readonly method: 'GET' | 'POST';
  /** The path below the API's base (`/v1`). */
  readonly tail: string;
}

const ROUTES: readonly Route[] = [
  { endpoint: 'chat', method: 'POST', tail: '/chat/completions' },
  { endpoint: 'responses', method: 'POST', tail: '/responses' },
  { endpoint: 'embeddings', method: 'POST', tail: '/embeddings' },
  { endpoint: 'models', method: 'GET', tail: '/models' },
];

/** Where a route was found: at OpenAI's own base path, or under another mount (`/openai/v1`, `/api`). */
export type RouteMatch = TailMatch<Route>;

/** The route a path ends in, whatever the method; undefined when it ends in none of them. */
export function routeOfPath(path: string): RouteMatch | undefined {
  return routeAtTail(ROUTES, path);
}

/** The route of a request, method and path both; undefined when it is none of them. */
export function routeOf(method: string | undefined, path: string | undefined): RouteMatch | undefined {
  if (path === undefined) return undefined;
  const route = routeOfPath(path);
  if (route === undefined || (method !== undefined && method.toUpperCase() !== route.method)) return undefined;
  return route;
}

/** Does a request body look like one of `endpoint`'s, by the fields it cannot do without? */
export function looksLikeRequest(endpoint: OpenAiEndpoint, body: unknown): boolean {
  if (!isJsonObject(body) || typeof body.model !== 'string') return false;
  if (endpoint === 'chat') return Array.isArray(body.messages);
  if (endpoint === 'responses') return 'input' in body || 'instructions' in body || 'prompt' in body || 'previous_response_id' in body;
  if (endpoint === 'embeddings') return 'input' in body;
  return false;
}

/** The route template of a request path (the path itself, for the routes this protocol knows). */
export function openAiRouteTemplate(method: string, path: string): string | undefined {
  return routeOf(method, path) === undefined ? undefined : cleanApiPath(path);
}
