import type { ChannelHint } from '../protocol.js';
import { looksLikeRequest, routeOf } from './routes.js';

/**
 * How sure we are that a channel is a Messages API call: by its route, method and request body.
 * `POST /v1/messages` (and `/v1/messages/count_tokens`) at Anthropic's base path is ours; under
 * another mount (a gateway's `/anthropic/v1`) the route counts with a request body of its shape. A
 * `/messages` path alone is anybody's.
 */
export function classifyAnthropic(hint: ChannelHint): number {
  if (hint.transport !== 'http' && hint.transport !== 'sse') return 0;
  const route = routeOf(hint.method, hint.path);
  if (route === undefined) return 0;
  const body = hint.requestBody;
  if (looksLikeRequest(route.endpoint, body)) return route.atBase ? 0.95 : 0.85;
  if (body !== undefined) return route.atBase ? 0.6 : 0;
  return route.atBase ? 0.9 : route.versioned ? 0.7 : 0;
}

/** What made classifyAnthropic claim a channel, for `show`. */
export function anthropicChannelEvidence(hint: ChannelHint): string {
  const route = routeOf(hint.method, hint.path);
  if (!route) return 'Anthropic Messages API route';
  const shaped = looksLikeRequest(route.endpoint, hint.requestBody) ? ` with a ${route.endpoint} request body` : '';
  return `route POST ${hint.path ?? route.tail}${shaped}`;
}
