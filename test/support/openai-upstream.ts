/**
 * A stand-in for api.openai.com on 127.0.0.1 that speaks the API as OpenAI does, from the scenario
 * in openai-scenario.ts: `POST /v1/chat/completions` and `POST /v1/responses` plain and streamed
 * (one SSE event per write), `POST /v1/embeddings`, `GET /v1/models`; a missing key gets 401 and an
 * unknown route 404, each in OpenAI's error shape. Every request's headers and body are kept.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';
import { chatChunks, chatCompletion, chatReply, embeddingList, errorBody, modelList, responseEvents, responseObject, responsesReply, type StandinReply } from './openai-scenario.js';

type Json = Record<string, unknown>;

export interface OpenAiUpstream {
  /** The origin, e.g. `http://127.0.0.1:40123`; the SDK's baseURL is this plus `/v1`. */
  origin: string;
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body: unknown }>;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_standin', ...headers });
  res.end(JSON.stringify(value));
}

function sse(res: ServerResponse, frames: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': 'req_standin' });
  for (const frame of frames) res.write(frame);
  res.end();
}

function rateLimited(res: ServerResponse): void {
  json(res, 429, errorBody('Rate limit reached for gpt-standin: please try again in 0s.', 'requests', 'rate_limit_exceeded'), { 'retry-after': '0' });
}

function answer(res: ServerResponse, route: string, body: Json): void {
  if (route === '/chat/completions') {
    const reply: StandinReply = chatReply(body);
    if (reply.kind === 'rate-limit') return rateLimited(res);
    if (body.stream !== true) return json(res, 200, chatCompletion(body, reply));
    return sse(res, [...chatChunks(body, reply).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), 'data: [DONE]\n\n']);
  }
  if (route === '/responses') {
    const reply = responsesReply(body);
    if (reply.kind === 'rate-limit') return rateLimited(res);
    if (body.stream !== true) return json(res, 200, responseObject(body, reply));
    return sse(res, responseEvents(body, reply).map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`));
  }
  if (route === '/embeddings') return json(res, 200, embeddingList(body));
  json(res, 404, errorBody(`Invalid URL (POST /v1${route})`, 'invalid_request_error', null));
}

export async function startOpenAiUpstream(): Promise<OpenAiUpstream> {
  const requests: OpenAiUpstream['requests'] = [];
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
        return json(res, 400, errorBody('We could not parse the JSON body of your request.', 'invalid_request_error', null));
      }
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      if (!/^Bearer \S+/.test(req.headers.authorization ?? '')) return json(res, 401, errorBody("You didn't provide an API key.", 'invalid_request_error', null));
      if (!path.startsWith('/v1/')) return json(res, 404, errorBody(`Invalid URL (${req.method} ${path})`, 'invalid_request_error', null));
      const route = path.slice('/v1'.length);
      if (req.method === 'GET' && route === '/models') return json(res, 200, modelList());
      if (req.method !== 'POST') return json(res, 404, errorBody(`Invalid URL (${req.method} ${path})`, 'invalid_request_error', null));
      answer(res, route, (body ?? {}) as Json);
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  return {
    origin,
    requests,
    close,
  };
}
