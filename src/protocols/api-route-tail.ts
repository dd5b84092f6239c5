/*
 * Where a model API's route sits in a request path. Providers serve their routes below `/v1`; compatible
 * servers and gateways below a mount of their own (`/api/v1`, `/openai/v1`, `/anthropic/v1`). A route is
 * known by the path's tail, and where it was found says how sure that makes it.
 */

/** A route found at the end of a path, and where. */
export type TailMatch<Route> = Route & {
  /** `/v1` + tail exactly, as the provider serves it. */
  readonly atBase: boolean;
  /** `…/v1` + tail: a compatible server's or gateway's versioned mount. */
  readonly versioned: boolean;
};

/** The path without its query, fragment and trailing slash. */
export function cleanApiPath(path: string): string {
  // indexOf, not split: every HTTP exchange's path is looked at so by two protocols' classify.
  const query = path.indexOf('?');
  const beforeQuery = query < 0 ? path : path.slice(0, query);
  const fragment = beforeQuery.indexOf('#');
  const bare = fragment < 0 ? beforeQuery : beforeQuery.slice(0, fragment);
  return bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare;
}

/** The first of `routes` (longer tails first where one ends another) whose tail ends the path; undefined when none does. */
export function routeAtTail<Route extends { readonly tail: string }>(routes: readonly Route[], path: string): TailMatch<Route> | undefined {
  const clean = cleanApiPath(path);
  for (const route of routes) {
    if (!clean.endsWith(route.tail)) continue;
    const prefix = clean.slice(0, clean.length - route.tail.length);
    return matchOf(route, prefix === '/v1', prefix === '/v1' || prefix.endsWith('/v1'));
  }
  return undefined;
}

/**
 * Each route's matches, made once and shared (frozen): a match is the route spread with two keys added,
 * which on Node 20 is V8's slow path (~3 µs), and an OpenAI or Anthropic exchange's classify and checker
 * look its route up several times. A match at the base is also versioned: three kinds per route.
 */
const MATCHES = new WeakMap<object, Array<TailMatch<object>>>();

function matchOf<Route extends object>(route: Route, atBase: boolean, versioned: boolean): TailMatch<Route> {
  let matches = MATCHES.get(route) as Array<TailMatch<Route>> | undefined;
  if (matches === undefined) MATCHES.set(route, (matches = []));
  const kind = atBase ? 2 : versioned ? 1 : 0;
  return (matches[kind] ??= Object.freeze({ ...route, atBase, versioned }));
}
