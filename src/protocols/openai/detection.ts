import type { ChannelHint } from '../protocol.js';
import { looksLikeRequest, routeOf } from './routes.js';

/**
 * How sure we are that a channel is an OpenAI-compatible API call: by its route, method and request
 * body. `/v1/chat/completions` (and the other routes) at OpenAI's base path is ours; under another
 * mount (OpenRouter's `/api/v1`, a gateway's `/openai`, Ollama's `/v1` behind a prefix) the route
 * counts with a request body of its shape. A `/v1/` prefix or an event stream alone is anybody's:
 * the Pi daemon's routes live under `/v1/` too and end in none of these.
 */
export function classifyOpenAi(hint: ChannelHint): number {
  if (hint.transport !== 'http' && hint.transport !== 'sse') return 0;
  const route = routeOf(hint.method, hint.path);
  if (route === undefined) return 0;
  if (route.method === 'GET') return route.atBase ? 0.9 : route.versioned ? 0.8 : 0;
  const body = hint.requestBody;
  if (looksLikeRequest(route.endpoint, body)) return route.atBase ? 0.95 : 0.85;
  if (body !== undefined) return route.atBase ? 0.6 : 0;
  return route.atBase ? 0.9 : route.versioned ? 0.7 : 0;
}

/** What made classifyOpenAi claim a channel, for `show`. */
export function openAiChannelEvidence(hint: ChannelHint): string {
  const route = routeOf(hint.method, hint.path);
  if (!route) return 'OpenAI API route';
  const shaped = looksLikeRequest(route.endpoint, hint.requestBody) ? ` with a ${route.endpoint} request body` : '';
  return `route ${route.method} ${hint.path ?? route.tail}${shaped}`;
}
