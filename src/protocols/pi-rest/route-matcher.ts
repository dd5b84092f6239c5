import { API_BASE_PATH, routeTable, type RouteSpec } from './route-table.js';

export interface RouteMatch {
  route: RouteSpec;
  /** Decoded path parameters by name, e.g. `{ sessionRef: 'agent-a' }`. */
  params: Record<string, string>;
}

interface CompiledRoute {
  route: RouteSpec;
  /** Literal segment, or `{ param }` for a placeholder. */
  segments: Array<string | { param: string }>;
}

function compile(route: RouteSpec): CompiledRoute {
  const segments = route.template
    .split('/')
    .slice(1)
    .map((s) => (s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : s));
  return { route, segments };
}

/**
 * Literal segments win over placeholders at the first place two templates differ,
 * so `/schedule/status` is never read as `/schedule/{scheduleId}`.
 */
function bySpecificity(a: CompiledRoute, b: CompiledRoute): number {
  // Only templates of equal length can match the same path; ordering by length first keeps the order total.
  if (a.segments.length !== b.segments.length) return a.segments.length - b.segments.length;
  for (let i = 0; i < a.segments.length; i++) {
    const aLiteral = typeof a.segments[i] === 'string';
    const bLiteral = typeof b.segments[i] === 'string';
    if (aLiteral !== bLiteral) return aLiteral ? -1 : 1;
  }
  return 0;
}

/** The routes compiled and ordered on the first match, not at import: most runs never see a Pi REST path. */
let compiledRoutes: readonly CompiledRoute[] | undefined;
function compiled(): readonly CompiledRoute[] {
  return (compiledRoutes ??= routeTable().map(compile).sort(bySpecificity));
}

/** Splits `path?query` and drops the query; the capture layer may hand either form. */
export function pathWithoutQuery(path: string): string {
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

/** The path below `/v1`, or undefined when the path is not under the versioned base. */
export function apiRelativePath(path: string): string | undefined {
  const bare = pathWithoutQuery(path);
  if (!bare.startsWith(API_BASE_PATH + '/')) return undefined;
  return bare.slice(API_BASE_PATH.length);
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function matchSegments(compiled: CompiledRoute, parts: string[]): Record<string, string> | undefined {
  if (compiled.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const seg = compiled.segments[i];
    const part = parts[i];
    if (typeof seg === 'string') {
      if (seg !== part) return undefined;
    } else {
      if (part.length === 0) return undefined;
      params[seg.param] = decode(part);
    }
  }
  return params;
}

/** Templates that match the path, whatever the method (for "is this path ours?"). */
export function routesForPath(path: string): RouteSpec[] {
  const rel = apiRelativePath(path);
  if (rel === undefined) return [];
  // Split before decoding: an encoded `/` inside a sessionRef stays inside its segment.
  const parts = rel.split('/').slice(1);
  return compiled().filter((c) => matchSegments(c, parts) !== undefined).map((c) => c.route);
}

/** The route for a method and path (with or without `/v1` query), or undefined when none matches. */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  const rel = apiRelativePath(path);
  if (rel === undefined) return undefined;
  const parts = rel.split('/').slice(1);
  const upper = method.toUpperCase();
  for (const candidate of compiled()) {
    if (candidate.route.method !== upper) continue;
    const params = matchSegments(candidate, parts);
    if (params) return { route: candidate.route, params };
  }
  return undefined;
}
