import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HttpContext } from '../../core/message.js';
import { bodyKindOf, CollectedBodyTap } from '../pipeline/body-taps.js';
import { upstreamHost, upstreamRequestOptions, type CaptureContext } from '../capture-context.js';
import { endToEndHeaders, rawHeader } from '../../net/headers.js';
import { proxyAnswerCode, sendJson, type ProxyAnswerErrorCode } from '../../net/proxy-answers.js';
import type { BodyTap, BodyTapSpec, ExchangeSink } from '../pipeline/recording-sink.js';
import { FlowGate } from './flow-gate.js';
import { ReadBatch } from './read-batch.js';
import { headersProblem, invalidStatusLineMessage, isParserError, LENIENT_HTTP_PARSER, parserErrorMessage, statusLineProblem } from '../../net/response-head-check.js';
import { ExchangeErrorCode } from '../../core/errors.js';
import { handshakeCutFailure, tlsAnswerFields, tlsFailureOf, watchHandshake } from '../../net/tls-failure.js';
import { tlsFactsOf, tlsFactsOfFailure } from '../../net/tls-facts.js';
import type { TlsFacts } from '../../core/tls-facts.js';

type Ending = { outcome: 'complete' | 'aborted' | 'error'; code?: ExchangeErrorCode; message?: string };

/**
 * Forwards one HTTP request to the target and streams the response back unchanged and unbuffered.
 * Taps get each chunk only after it has been written onward; what they do with it (framing,
 * judging, storing) happens off this path.
 *
 * This runs for every request, so it keeps per-request work small: listeners and the flow gate
 * are added only when they are needed, and a small body goes to the recorder as one message.
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
    url: context.origin === undefined ? url : context.origin + url,
    requestHeaders: context.redactor.recordPairs(req.rawHeaders),
  });
  // Headers reach checkers from the exchange itself (as stored); the context names the route only.
  // No query is the same to checkers as an empty one.
  const requestContext: HttpContext = query ? { method, path, query: new URLSearchParams(query) } : { method, path };
  // Created on the first body chunk: most requests (GET, DELETE) have no body to record.
  let requestTap: BodyTap | undefined;
  let requestEnded = false;

  // An https:// target: the agent carries the CA and verification settings; SNI and the host-name
  // check follow the Host header, which names the target.
  const overTls = context.target.kind === 'tcp' && context.target.protocol === 'https:';
  const upstream = (overTls ? process.getBuiltinModule('node:https').request : httpRequest)(
    upstreamRequestOptions(context.target, context.agent, method, context.target.basePath + url, endToEndHeaders(req.rawHeaders, { host: upstreamHost(context.target) })),
  );
  const handshakeCut = overTls ? watchHandshake(upstream) : () => false;

  let done = false;
  let responseTap: BodyTap | undefined;
  /** The answer is an event stream (SSE or protobuf), which shutdown ends rather than waits for. */
  let streaming = false;
  /** The proxy is shutting down: this exchange may finish, but a cut is the shutdown's doing. */
  let stopping = false;

  // Taps end in order, then the exchange. Only a decoder (a compressed body) makes a tap's end wait.
  const finish = (ending: Ending): void => {
    if (done) return;
    done = true;
    const endExchange = () => {
      try {
        exchange.end({ outcome: ending.outcome, errorCode: ending.code, errorMessage: ending.message });
      } finally {
        // Only now: shutdown waits for tracked exchanges, so the recording stays open until this one is handed on.
        untrack();
      }
    };
    const endResponse = () => after(responseTap?.end(ending.outcome === 'complete'), endExchange, untrack);
    after(requestEnded ? undefined : requestTap?.end(false), endResponse, untrack);
  };

  // Shutdown: a stream still running is ended cleanly for the client (a proper end of the body)
  // and its upstream request stopped. A plain answer is let finish, on a connection that closes
  // after it; whatever is still open when the server's grace period ends is cut there.
  const endStreamForShutdown = () => {
    upstream.destroy();
    res.end();
    finish({ outcome: 'aborted', code: ExchangeErrorCode.E_PROXY_SHUTDOWN, message: 'the proxy shut down before the response finished' });
  };
  const untrack = context.track(() => {
    if (res.writableFinished || done) return;
    stopping = true;
    if (streaming) endStreamForShutdown();
    else if (!res.headersSent) res.shouldKeepAlive = false;
  });

  /** The proxy answers in the upstream's place with a 502 of its own; the exchange ends as an error. */
  const answerBadGateway = (errorCode: ProxyAnswerErrorCode, message: string, extra?: Record<string, unknown>, tls?: TlsFacts) => {
    exchange.update({ status: 502, tls });
    sendJson(res, 502, { error: { code: proxyAnswerCode(errorCode), message, target: context.target.display, ...extra } });
    finish({ outcome: 'error', code: errorCode, message });
  };

  // The request body goes on as pipe() would send it (until the upstream is gone), with the
  // recorder's copy taken in the same listener; cheaper than pipe() for the usual body-less request.
  req.on('data', (chunk: Buffer) => {
    if (!upstream.destroyed && !upstream.write(chunk)) {
      req.pause();
      upstream.once('drain', () => req.resume());
    }
    requestTap ??= bodyTap(exchange, {
      kind: bodyKindOf(rawHeader(req.rawHeaders, 'content-type')) === 'other' ? 'other' : 'json',
      sender: 'client',
      contentEncoding: rawHeader(req.rawHeaders, 'content-encoding'),
      http: requestContext,
    });
    requestTap.push(chunk);
  });
  req.on('end', () => {
    if (!upstream.destroyed) upstream.end();
    requestEnded = true;
    void requestTap?.end(true);
    exchange.classify({ transport: 'http', method, path });
  });

  // The client went away before the response finished: stop the upstream at once,
  // so an agent does not keep generating for nobody.
  res.on('close', () => {
    if (res.writableFinished || done) return;
    upstream.destroy();
    if (stopping) finish({ outcome: 'aborted', code: ExchangeErrorCode.E_PROXY_SHUTDOWN, message: 'the proxy shut down before the response finished' });
    else finish({ outcome: 'aborted', code: ExchangeErrorCode.E_CLIENT_ABORTED, message: 'the client disconnected before the response finished' });
  });

  upstream.on('error', (error: NodeJS.ErrnoException) => {
    if (done) return;
    if (!res.headersSent) {
      // Node's parser refused what the upstream sent: it was reached, but its answer is not HTTP.
      if (isParserError(error)) return answerBadGateway(ExchangeErrorCode.E_UPSTREAM_INVALID_RESPONSE, parserErrorMessage(error));
      const tls = tlsFailureOf(error, context.target.display) ?? (handshakeCut() ? handshakeCutFailure(error, context.target.display) : undefined);
      if (tls) answerBadGateway(ExchangeErrorCode.E_UPSTREAM_TLS, tls.message, tlsAnswerFields(tls), tlsFactsOfFailure(error, tls.nodeCode));
      else answerBadGateway(ExchangeErrorCode.E_UPSTREAM_UNREACHABLE, `cannot reach ${context.target.display}: ${error.code ?? error.message}`);
      return;
    }
    res.destroy();
    finish({ outcome: 'aborted', code: ExchangeErrorCode.E_UPSTREAM_RESET, message: `the upstream failed mid-response: ${error.code ?? error.message}` });
  });

  // The request never asks for an upgrade (those go to the WebSocket relay): a switch is no answer.
  upstream.on('upgrade', (upstreamRes: IncomingMessage, socket: Duplex) => {
    socket.destroy();
    refuseAnswer(statusLineProblem(101, undefined)!, upstreamRes);
  });

  /** The upstream's head cannot go to the client as it is: its connection is dropped, and the client gets a 502. */
  const refuseAnswer = (problem: string, upstreamRes: IncomingMessage) => {
    if (done) return;
    upstream.destroy();
    answerBadGateway(ExchangeErrorCode.E_UPSTREAM_INVALID_RESPONSE, invalidStatusLineMessage(problem, upstreamRes.statusCode ?? 0, upstreamRes.statusMessage), undefined, tlsFactsOf(upstreamRes.socket));
  };

  upstream.on('response', (upstreamRes) => {
    if (done) return;
    const status = upstreamRes.statusCode ?? 502;
    // A status or reason phrase no HTTP peer may send (writeHead would throw on most), or a 101; and
    // with a lenient parser, a header value a strict one refuses (Node 24 would send it as it came).
    const problem = statusLineProblem(status, upstreamRes.statusMessage) ?? (LENIENT_HTTP_PARSER ? headersProblem(upstreamRes.rawHeaders) : undefined);
    if (problem !== undefined) return refuseAnswer(problem, upstreamRes);
    try {
      res.writeHead(status, upstreamRes.statusMessage, endToEndHeaders(upstreamRes.rawHeaders));
    } catch (error) {
      // A header Node will not send (its parser can be made lenient, e.g. --insecure-http-parser).
      return refuseAnswer(`Node refuses to send its head: ${(error as Error).message}`, upstreamRes);
    }
    // Not `.headers`: node builds that whole object on first use.
    const contentType = rawHeader(upstreamRes.rawHeaders, 'content-type');
    const kind = bodyKindOf(contentType);
    const transport = kind === 'sse' ? 'sse' : kind === 'proto' ? 'proto' : 'http';
    // Once per exchange, not per chunk: a keep-alive connection's facts are read once and shared.
    exchange.update({ status, transport, responseHeaders: context.redactor.recordPairs(upstreamRes.rawHeaders), tls: tlsFactsOf(upstreamRes.socket) });
    exchange.classify({ transport, method, path, contentType });
    const recorded = bodyTap(exchange, {
      kind,
      sender: 'server',
      contentEncoding: rawHeader(upstreamRes.rawHeaders, 'content-encoding'),
      // Not a spread of requestContext: on Node 20 a spread with a property added takes µs.
      http: requestContext.query === undefined ? { method, path, status } : { method, path, query: requestContext.query, status },
    });
    // Streams must reach the client event by event: send their head now rather than with the first
    // event. Other responses keep head and body in one write. The recorder takes a stream's copy a
    // socket read at a time, however many events (HTTP chunks) the read held.
    streaming = kind === 'sse' || kind === 'proto';
    responseTap = streaming ? new ReadBatch(recorded) : recorded;
    const tap = responseTap;
    if (streaming) {
      res.flushHeaders();
      // A stream that starts while the proxy shuts down ends at once, as the ones already running did.
      if (stopping) return endStreamForShutdown();
    }
    let gate: FlowGate<'client' | 'recorder'> | undefined;
    const hold = (reason: 'client' | 'recorder') => {
      gate ??= new FlowGate(
        () => upstreamRes.pause(),
        () => upstreamRes.resume(),
      );
      return gate.hold(reason);
    };
    upstreamRes.on('data', (chunk: Buffer) => {
      // Forward first, then hand the copy to the recorder.
      if (!res.write(chunk) && hold('client')) res.once('drain', () => gate!.release('client'));
      tap.push(chunk);
      // Recording lags far behind (a flood of events): stop reading until it catches up, so memory stays flat.
      if (recorder.overloaded && hold('recorder')) recorder.onDrain(() => gate!.release('recorder'));
    });
    upstreamRes.on('end', () => {
      res.end();
      finish({ outcome: 'complete' });
    });
    upstreamRes.on('close', () => {
      if (upstreamRes.complete || done) return;
      // The upstream reset mid-stream: end the client's stream just as abruptly.
      res.destroy();
      finish({ outcome: 'aborted', code: ExchangeErrorCode.E_UPSTREAM_RESET, message: 'the upstream closed the connection mid-response' });
    });
  });
}

/** A small whole body is collected here and handed on as one message; anything else is tapped. */
function bodyTap(exchange: ExchangeSink, spec: BodyTapSpec): BodyTap {
  return CollectedBodyTap.fits(spec) ? new CollectedBodyTap(exchange, spec) : exchange.tap(spec);
}

/** Runs `next` once `pending` settles, or at once when there is nothing to wait for. */
function after(pending: Promise<void> | void, next: () => void, onFailure: () => void): void {
  if (!pending) return next();
  pending.then(next, (error: unknown) => {
    onFailure();
    throw error;
  });
}
