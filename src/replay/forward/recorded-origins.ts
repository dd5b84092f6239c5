import type { ReplayScript, ScriptExchange } from '../replay-script.js';
import { httpExchanges, wsExchanges } from '../replay-script.js';

/**
 * The origin (`https://host`, `http://host:8080`: scheme, host and port, the default port left
 * out) of a URL `record --forward` stored whole; undefined for a path alone (a reverse recording's)
 * or a tunnel's `host:port`.
 */
export function originOfUrl(url: string | null): string | undefined {
  if (url === null || !/^https?:\/\//i.test(url)) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * A forward recording's servable exchanges (HTTP and WebSocket) by the origin they were sent to,
 * in the order each origin was first called. A tunnel exchange is no origin's: its bytes cannot be
 * answered again, and a forward replay refuses a CONNECT to its host.
 */
export function recordedOrigins(script: ReplayScript): Map<string, ScriptExchange[]> {
  const servable = new Set([...httpExchanges(script), ...wsExchanges(script)]);
  const origins = new Map<string, ScriptExchange[]>();
  for (const exchange of script.exchanges) {
    const origin = servable.has(exchange) ? originOfUrl(exchange.url) : undefined;
    if (origin === undefined) continue;
    const list = origins.get(origin);
    if (list) list.push(exchange);
    else origins.set(origin, [exchange]);
  }
  return origins;
}

/**
 * The recorded exchange nearest a request to a host the recording does not hold: the same method,
 * path and query on another host, else the same method and path, else the same path, else the
 * first one recorded.
 */
export function nearestOnAnotherHost(origins: ReadonlyMap<string, readonly ScriptExchange[]>, method: string, path: string, query: string): ScriptExchange | undefined {
  const all = [...origins.values()].flat();
  const sameRoute = all.filter((e) => e.method === method && e.path === path);
  return sameRoute.find((e) => (e.query ?? '') === query) ?? sameRoute[0] ?? all.find((e) => e.path === path) ?? all[0];
}
