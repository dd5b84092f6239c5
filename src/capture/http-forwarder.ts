import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { HttpContext } from '../core/message.js';
import { bodyKindOf } from './body-taps.js';
import { upstreamConnectOptions, upstreamHost, type CaptureContext } from './capture-context.js';
import { endToEndHeaders, headerRecord, rawHeader } from './headers.js';
import type { BodyTap } from './recording-sink.js';
import { FlowGate } from './flow-gate.js';

type Ending = { outcome: 'complete' | 'aborted' | 'error'; code?: string; message?: string };

/**
 * Forwards one HTTP request to the target and streams the response back unchanged and unbuffered.
 * Taps get each chunk only after it has been written onward; what they do with it (framing,
 * judging, storing) happens off this path.
 */
export function forwardHttp(req: IncomingMessage, res: ServerResponse, context: CaptureContext): void {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const query = queryAt < 0 ? '' : url.slice(queryAt + 1);
  const method = req.method ?? 'GET';
  const recorder = context.recorder;
  const exchange = recorder.openExchange({
    transport: 'http',
    method,
    path,
    query: query || undefined,
    url,
    requestHeaders: headerRecord(context.redactor.redact(req.rawHeaders)),
  });
  // Headers reach checkers from the exchange itself (as stored); the context names the route only.
  const requestContext: HttpContext = { method, path, query: new URLSearchParams(query) };
  // Created on the first body chunk: most requests (GET, DELETE) have no body to record.
  let requestTap: BodyTap | undefined;
  let requestEnded = false;

  const upstream = httpRequest({
    ...upstreamConnectOptions(context.target),
    agent: context.agent,
    method,
    path: context.target.basePath + url,
    headers: endToEndHeaders(req.rawHeaders, { host: upstreamHost(context.target) }),
  });

  let state: 'open' | 'done' = 'open';
  let responseTap: BodyTap | undefined;

  const finish = async (ending: Ending) => {
    if (state === 'done') return;
    state = 'done';
    try {
      if (!requestEnded) await requestTap?.end(false);
      await responseTap?.end(ending.outcome === 'complete');
      exchange.end({ outcome: ending.outcome, errorCode: ending.code, errorMessage: ending.message });
    } finally {
      // Only now: shutdown waits for tracked exchanges, so the recording stays open until this one is handed on.
      untrack();
    }
  };

  const untrack = context.track(() => {
    // Shutdown: a finished exchange ends on its own; a stream still running is ended cleanly
    // for the client (a proper end of the body) and the upstream request is stopped.
    if (res.writableFinished || state === 'done') return;
    upstream.destroy();
    if (res.headersSent) res.end();
    else res.destroy();
    void finish({ outcome: 'aborted', code: 'E_PROXY_SHUTDOWN', message: 'the proxy shut down before the response finished' });
  });

  req.pipe(upstream);
  req.on('data', (chunk: Buffer) => {
    requestTap ??= exchange.tap({
      kind: bodyKindOf(req.headers['content-type']) === 'other' ? 'other' : 'json',
      sender: 'client',
      contentEncoding: rawHeader(req.rawHeaders, 'content-encoding'),
      http: requestContext,
    });
    requestTap.push(chunk);
  });
  req.on('end', () => {
    requestEnded = true;
    void requestTap?.end(true);
    exchange.classify({ transport: 'http', method, path });
  });

  // The client went away before the response finished: stop the upstream at once,
  // so an agent does not keep generating for nobody.
  res.on('close', () => {
    if (res.writableFinished || state === 'done') return;
    upstream.destroy();
    void finish({ outcome: 'aborted', code: 'E_CLIENT_ABORTED', message: 'the client disconnected before the response finished' });
  });

  upstream.on('error', (error: NodeJS.ErrnoException) => {
    if (state !== 'open') return;
    if (!res.headersSent) {
      const message = `cannot reach ${context.target.display}: ${error.code ?? error.message}`;
      const body = JSON.stringify({ error: { code: 'upstream_unreachable', message, target: context.target.display } });
      exchange.update({ status: 502 });
      res.writeHead(502, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      void finish({ outcome: 'error', code: 'E_UPSTREAM_UNREACHABLE', message });
      return;
    }
    res.destroy();
    void finish({ outcome: 'aborted', code: 'E_UPSTREAM_RESET', message: `the upstream failed mid-response: ${error.code ?? error.message}` });
  });

  upstream.on('response', (upstreamRes) => {
    const status = upstreamRes.statusCode ?? 502;
    const contentType = upstreamRes.headers['content-type'];
    const kind = bodyKindOf(contentType);
    const transport = kind === 'sse' ? 'sse' : kind === 'proto' ? 'proto' : 'http';
    exchange.update({ status, transport, responseHeaders: headerRecord(context.redactor.redact(upstreamRes.rawHeaders)) });
    exchange.classify({ transport, method, path, contentType });
    responseTap = exchange.tap({
      kind,
      sender: 'server',
      contentEncoding: rawHeader(upstreamRes.rawHeaders, 'content-encoding'),
      http: { ...requestContext, status },
    });
    const tap = responseTap;

    res.writeHead(status, upstreamRes.statusMessage, endToEndHeaders(upstreamRes.rawHeaders));
    // Streams must reach the client event by event: send their head now rather than with the first
    // event. Other responses keep head and body in one write.
    if (kind === 'sse' || kind === 'proto') res.flushHeaders();
    const gate = new FlowGate<'client' | 'recorder'>(
      () => upstreamRes.pause(),
      () => upstreamRes.resume(),
    );
    res.on('drain', () => gate.release('client'));
    upstreamRes.on('data', (chunk: Buffer) => {
      // Forward first, then hand the copy to the recorder.
      if (!res.write(chunk)) gate.hold('client');
      tap.push(chunk);
      // Recording lags far behind (a flood of events): stop reading until it catches up, so memory stays flat.
      if (recorder.overloaded && gate.hold('recorder')) recorder.onDrain(() => gate.release('recorder'));
    });
    upstreamRes.on('end', () => {
      res.end();
      void finish({ outcome: 'complete' });
    });
    upstreamRes.on('close', () => {
      if (upstreamRes.complete || state !== 'open') return;
      // The upstream reset mid-stream: end the client's stream just as abruptly.
      res.destroy();
      void finish({ outcome: 'aborted', code: 'E_UPSTREAM_RESET', message: 'the upstream closed the connection mid-response' });
    });
  });
}
