import { isJsonObject } from '../../core/json.js';

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
export interface RouteMatch {
  readonly endpoint: OpenAiEndpoint;
  readonly method: 'GET' | 'POST';
  readonly tail: string;
  /** `/v1` + tail exactly, as api.openai.com serves it. */
  readonly atBase: boolean;
  /** `…/v1` + tail: a compatible server's versioned mount (OpenRouter `/api/v1`, Azure-style `/openai/v1`). */
  readonly versioned: boolean;
}

function cleanPath(path: string): string {
  const bare = path.split('?')[0].split('#')[0];
  return bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare;
}

/** The route a path ends in, whatever the method; undefined when it ends in none of them. */
export function routeOfPath(path: string): RouteMatch | undefined {
  const clean = cleanPath(path);
  for (const route of ROUTES) {
    if (!clean.endsWith(route.tail)) continue;
    const prefix = clean.slice(0, clean.length - route.tail.length);
    return { ...route, atBase: prefix === '/v1', versioned: prefix === '/v1' || prefix.endsWith('/v1') };
  }
  return undefined;
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
  return routeOf(method, path) === undefined ? undefined : cleanPath(path);
}
