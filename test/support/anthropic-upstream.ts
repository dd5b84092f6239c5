/**
 * A stand-in for api.anthropic.com on 127.0.0.1 that speaks the Messages API as Anthropic does, from
 * the scenario in anthropic-scenario.ts: `POST /v1/messages` plain and streamed (`event: <type>` and
 * its data, one SSE event per write), `POST /v1/messages/count_tokens`; a request without a key
 * (`x-api-key` or `Authorization: Bearer`) gets 401, one without `anthropic-version` 400, an unknown
 * route 404, each in Anthropic's error shape. Every request's headers and body are kept.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';
import { claudeError, claudeEvents, claudeMessage, claudeReply, claudeTokenCount } from './anthropic-scenario.js';

type Json = Record<string, unknown>;

export interface AnthropicUpstream {
  /** The origin, e.g. `http://127.0.0.1:40123`: the SDK's baseURL (it adds `/v1/messages`). */
  origin: string;
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body: unknown }>;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_standin', ...headers });
  res.end(JSON.stringify(value));
}

function sse(res: ServerResponse, events: Json[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': 'req_standin' });
  for (const event of events) res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  res.end();
}

function messages(res: ServerResponse, body: Json): void {
  const reply = claudeReply(body);
  if (reply.kind === 'rate-limit') return json(res, 429, claudeError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'), { 'retry-after': '0' });
  if (reply.kind === 'overloaded') return json(res, 529, claudeError('overloaded_error', 'Overloaded'));
  if (body.stream === true) return sse(res, claudeEvents(body, reply));
  json(res, 200, claudeMessage(body, reply));
}

export async function startAnthropicUpstream(): Promise<AnthropicUpstream> {
  const requests: AnthropicUpstream['requests'] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        return json(res, 400, claudeError('invalid_request_error', 'The request body is not valid JSON.'));
      }
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      if (!req.headers['x-api-key'] && !/^Bearer \S+/.test(req.headers.authorization ?? '')) return json(res, 401, claudeError('authentication_error', 'x-api-key header is required'));
      if (!req.headers['anthropic-version']) return json(res, 400, claudeError('invalid_request_error', 'anthropic-version: header is required'));
      if (req.method === 'POST' && path === '/v1/messages') return messages(res, (body ?? {}) as Json);
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') return json(res, 200, claudeTokenCount((body ?? {}) as Json));
      json(res, 404, claudeError('not_found_error', `Not found: ${req.method} ${path}`));
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  return {
    origin,
    requests,
    close,
  };
}
