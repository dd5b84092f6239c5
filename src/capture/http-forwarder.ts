import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { HttpContext } from '../core/message.js';
import { bodyKindOf, decodingTap, ProtoTap, SseTap, WholeBodyTap, type BodyTap } from './body-taps.js';
import { upstreamConnectOptions, upstreamHost, type CaptureContext } from './capture-context.js';
import { endToEndHeaders, headerRecord, rawHeader } from './headers.js';
import type { ExchangeRecording } from './traffic-recorder.js';

/**
 * Forwards one HTTP request to the target and streams the response back unchanged and unbuffered.
 * Taps copy each chunk to the recorder only after it has been written onward.
 */
export function forwardHttp(req: IncomingMessage, res: ServerResponse, context: CaptureContext): void {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const query = queryAt < 0 ? '' : url.slice(queryAt + 1);
  const method = req.method ?? 'GET';
  const exchange = context.recorder.openExchange({
    transport: 'http',
    method,
    path,
    query: query || undefined,
    url,
    requestHeaders: headerRecord(context.redactor.redact(req.rawHeaders)),
  });
  const requestContext: HttpContext = { method, path, query: new URLSearchParams(query), requestHeaders: headerRecord(req.rawHeaders) };
  let responseContext: HttpContext | undefined;
  let requestBody: unknown;

  const requestTap = new WholeBodyTap(exchange, 'client', context.recorder.maxBodyBytes, bodyKindOf(req.headers['content-type']) !== 'other', () => requestContext, (body) => {
    requestBody = parseJson(body);
    exchange.classify({ transport: 'http', method, path, requestBody });
  });

  const upstream = httpRequest({
    ...upstreamConnectOptions(context.target),
    agent: context.agent,
    method,
    path: context.target.basePath + url,
    headers: endToEndHeaders(req.rawHeaders, { host: upstreamHost(context.target) }),
  });

  const untrack = context.track(() => {
    // Shutdown: let a finished exchange end normally; cut streams still running.
    if (!res.writableFinished) res.destroy();
  });
  let state: 'open' | 'client-gone' | 'upstream-failed' | 'done' = 'open';
  let responseTap: BodyTap | undefined;

  const finish = async (outcome: 'complete' | 'aborted' | 'error', error?: { code: string; message: string }) => {
    if (state === 'done') return;
    state = 'done';
    untrack();
    await responseTap?.end(outcome === 'complete');
    exchange.end({ outcome, errorCode: error?.code, errorMessage: error?.message });
  };

  req.pipe(upstream);
  req.on('data', (chunk: Buffer) => requestTap.push(chunk));
  req.on('end', () => {
    requestTap.end();
    if (requestBody === undefined) exchange.classify({ transport: 'http', method, path });
  });

  // The client went away before the response finished: stop the upstream at once,
  // so an agent does not keep generating for nobody.
  res.on('close', () => {
    if (res.writableFinished || state === 'done') return;
    if (state === 'open') state = 'client-gone';
    upstream.destroy();
    void finish('aborted', { code: 'E_CLIENT_ABORTED', message: 'the client disconnected before the response finished' });
  });

  upstream.on('error', (error: NodeJS.ErrnoException) => {
    if (state !== 'open') return;
    if (!res.headersSent) {
      state = 'upstream-failed';
      const message = `cannot reach ${context.target.display}: ${error.code ?? error.message}`;
      const body = JSON.stringify({ error: { code: 'upstream_unreachable', message, target: context.target.display } });
      exchange.update({ status: 502 });
      res.writeHead(502, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      void finish('error', { code: 'E_UPSTREAM_UNREACHABLE', message });
      return;
    }
    res.destroy();
    void finish('aborted', { code: 'E_UPSTREAM_RESET', message: `the upstream failed mid-response: ${error.code ?? error.message}` });
  });

  upstream.on('response', (upstreamRes) => {
    const status = upstreamRes.statusCode ?? 502;
    const contentType = upstreamRes.headers['content-type'];
    const kind = bodyKindOf(contentType);
    responseContext = { ...requestContext, status, responseHeaders: headerRecord(upstreamRes.rawHeaders) };
    exchange.update({
      status,
      transport: kind === 'sse' ? 'sse' : kind === 'proto' ? 'proto' : 'http',
      responseHeaders: headerRecord(context.redactor.redact(upstreamRes.rawHeaders)),
    });
    exchange.classify({ transport: kind === 'sse' ? 'sse' : kind === 'proto' ? 'proto' : 'http', method, path, contentType, requestBody }, requestBody);
    responseTap = decodingTap(rawHeader(upstreamRes.rawHeaders, 'content-encoding'), tapFor(kind, exchange, context, () => responseContext));

    res.writeHead(status, upstreamRes.statusMessage, endToEndHeaders(upstreamRes.rawHeaders));
    // Streams must reach the client event by event; send the head now rather than with the first chunk.
    res.flushHeaders();
    upstreamRes.pipe(res);
    upstreamRes.on('data', (chunk: Buffer) => responseTap!.push(chunk));
    upstreamRes.on('end', () => void finish('complete'));
    upstreamRes.on('close', () => {
      if (upstreamRes.complete || state !== 'open') return;
      // The upstream reset mid-stream: end the client's stream just as abruptly.
      res.destroy();
      void finish('aborted', { code: 'E_UPSTREAM_RESET', message: 'the upstream closed the connection mid-response' });
    });
  });
}

function tapFor(kind: ReturnType<typeof bodyKindOf>, exchange: ExchangeRecording, context: CaptureContext, http: () => HttpContext | undefined): BodyTap {
  switch (kind) {
    case 'sse':
      return new SseTap(exchange, 'server');
    case 'proto':
      return new ProtoTap(exchange, 'server');
    default:
      return new WholeBodyTap(exchange, 'server', context.recorder.maxBodyBytes, kind === 'json', http);
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
