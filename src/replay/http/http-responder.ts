import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../../net/proxy-answers.js';
import { HttpMatcher, type LiveRequest, type MatchResult } from '../match/http-matcher.js';
import { httpMissAnswer, protocolOfRequest } from './http-miss-answer.js';
import { factsOf } from '../../protocols/catalog.js';
import { answerEndedSession, answerOnStream, answerUnknownSession } from './session-misses.js';
import { missMessage } from '../miss-message.js';
import { reportedRequest } from '../miss-report.js';
import { correlationPairs, playRecordedResponse, type SessionPlayback } from './recorded-response.js';
import { anySessionProtocol, planSessions } from './recorded-sessions.js';
import { LiveSessions, type SessionRoute } from './live-sessions.js';
import { recordingCut, reportMiss, type ReplayContext, type ReplayMiss } from '../replay-context.js';
import { httpExchanges } from '../replay-script.js';
import { readBoundedBody, type BoundedBody } from './bounded-body.js';
import { MAX_REQUEST_FLAG } from './request-limits.js';
import { holdAnswer, sendFaultStatus } from './fault-answer.js';
import { faultStatusServed } from '../fault/fault-notice.js';
import { NO_FAULTS, type ChosenFaults } from '../fault/fault-plan.js';
import { allowOriginOnAnswers, answerPreflight, isPreflight, isRecordedPreflight } from './cors.js';

/**
 * The HTTP side of the replay server: reads each request in full, matches it to a recorded
 * exchange and plays that exchange back; a miss gets an answer that explains itself, in the error
 * shape of the request's protocol (http-miss-answer.ts), or is forwarded to the real upstream with
 * `--on-miss passthrough`. `--fault` specs are asked once per request, before matching, so a
 * status fault answers in place of the recording without using it up.
 *
 * With `--cors on`, a browser's preflight is never a miss nor selected by a fault: a recorded
 * preflight for the route is played (again, if need be: how often a browser asks depends on its
 * cache), else the replay allows what it asks; recorded preflights are matched only by preflights.
 */
export function createHttpResponder(context: ReplayContext): (req: IncomingMessage, res: ServerResponse) => void {
  const exchanges = httpExchanges(context.script);
  const requests = context.cors ? exchanges.filter((e) => !isRecordedPreflight(e)) : exchanges;
  // A protocol's HTTP sessions (MCP) are played per live session, each from the start of a recorded one.
  const { sessions, rest } = anySessionProtocol() ? planSessions(requests) : { sessions: [], rest: requests };
  const matchers: Matchers = {
    requests: new HttpMatcher(rest, context.ignore, context.reuse),
    ...(context.cors ? { preflights: new HttpMatcher(exchanges.filter(isRecordedPreflight), context.ignore, true) } : {}),
    ...(sessions.length > 0 ? { sessions: new LiveSessions(sessions, context.ignore, context.reuse, { clock: context.clock }) } : {}),
  };
  return (req, res) => {
    if (context.cors) allowOriginOnAnswers(req, res);
    readBoundedBody(req, context.maxRequestBytes, (read) => {
      if (read.kind === 'too-large') return refuseTooLarge(context, req, read, res);
      respond(matchers, context, req, read.body, res).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { code: 'replay_failed', message: error instanceof Error ? error.message : String(error) } });
        else res.destroy();
      });
    });
  };
}

/**
 * A body longer than `--max-request-body` is never held whole: it is a miss, answered 413 at once,
 * or with passthrough streamed on to the upstream. No recording made with the default `--max-body`
 * could match it anyway: it keeps at most that much of a body.
 */
function refuseTooLarge(context: ReplayContext, req: IncomingMessage, read: Extract<BoundedBody, { kind: 'too-large' }>, res: ServerResponse): void {
  const miss: ReplayMiss = {
    transport: 'http',
    reason: 'too-large',
    // A streamed body was read only up to the limit: `bodyTruncated` says its size is only what had arrived.
    request: reportedRequest({ ...requestLine(req), bodyBytes: read.bytes, ...(read.declared ? {} : { bodyTruncated: true as const }) }),
    differences: [],
    limit: context.maxRequestBytes,
    action: context.onMiss,
  };
  reportMiss(context, miss);
  if (context.passthrough) return context.passthrough.forwardHttp(req, { head: read.head }, res);
  const body = JSON.stringify({ error: { code: 'request_too_large', message: missMessage(miss), reason: miss.reason, request: miss.request, limit: miss.limit, flag: MAX_REQUEST_FLAG } });
  res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  discardRest(req);
}

/** How much more of a refused body is read (and dropped) before the connection is cut. */
const DISCARD_BYTES = 64 * 1024 * 1024;

/**
 * Reads the rest of a refused body and drops it, so a client still sending gets to read the 413
 * (closing a socket with unread bytes resets it, and the reset can destroy the answer in flight),
 * and the connection can serve the next request. Past DISCARD_BYTES more the connection is cut.
 */
function discardRest(req: IncomingMessage): void {
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DISCARD_BYTES) req.socket.destroy();
  });
  req.resume();
}

function requestLine(req: IncomingMessage): { method: string; path: string; query: string } {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  return { method: req.method ?? 'GET', path: queryAt < 0 ? url : url.slice(0, queryAt), query: queryAt < 0 ? '' : url.slice(queryAt + 1) };
}

/** The recorded requests, and with `--cors on` apart from them the recorded preflights; the live HTTP sessions, when the recording has any. */
interface Matchers {
  requests: HttpMatcher;
  preflights?: HttpMatcher;
  sessions?: LiveSessions;
}

async function respond({ requests, preflights, sessions }: Matchers, context: ReplayContext, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  const request: LiveRequest = { ...requestLine(req), body };
  if (preflights && isPreflight(request.method, req.headers)) {
    const recorded = preflights.match(request);
    if (recorded.kind === 'hit') return play(recorded, context, request, { req, body, res }, NO_FAULTS);
    return answerPreflight(req, res);
  }
  // A request of a live session is matched against its recorded session alone.
  const routed = sessions?.route(req.headers, request);
  if (routed && 'unknown' in routed) return answerUnknownSession(routed.unknown, context, request, req, res);
  const route = routed;
  const matcher = route?.session.matcher ?? requests;
  const faults = context.faults.choose({ transport: 'http', method: request.method, path: request.path });
  if (faults.status !== undefined) return answerFaultStatus(matcher, context, route?.request ?? request, res, faults, faults.status);
  const resumed = route?.session.resume(req.headers);
  if (route && resumed) return play({ kind: 'hit', exchange: resumed.exchange, reused: false, redacted: 0 }, context, request, { req, body, res }, faults, { route, from: resumed.from });
  const result = matcher.match(route?.request ?? request);
  if (result.kind === 'miss') {
    const miss: ReplayMiss = { transport: 'http', ...result.miss, action: context.onMiss, ...(faults.specs.length > 0 ? { faults: faults.specs } : {}) };
    reportMiss(context, miss);
    if (route && !route.opening && request.method === 'DELETE') sessions?.end(route.session);
    if (!(await holdAnswer(context, res, faults.latencyMs))) return;
    if (context.passthrough) context.passthrough.forwardHttp(req, body, res);
    else if (route?.session.ended.aborted && route.session.recorded.via === 'header') answerEndedSession(route.session.recorded, request, req, miss, res);
    else if (route?.session.recorded.via === 'query' && request.method === 'POST') answerOnStream(route, request, miss, res);
    else {
      const answer = httpMissAnswer(context, { ...request, headers: req.headers }, miss, route?.session.recorded.protocol);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    }
    return;
  }
  if (route?.opening) sessions?.register(route.session);
  const played = play(result, context, request, { req, body, res }, faults, route && { route });
  // DELETE ends the session once its recorded answer is on its way: what the session held open ends.
  if (route && request.method === 'DELETE') await played.finally(() => sessions?.end(route.session));
  return played;
}

/** Plays the recorded exchange a request matched, and says so in the log. */
async function play(
  hit: Extract<MatchResult, { kind: 'hit' }>,
  context: ReplayContext,
  request: LiveRequest,
  live: { req: IncomingMessage; body: Buffer; res: ServerResponse },
  faults: ChosenFaults,
  inSession?: { route: SessionRoute; from?: number },
): Promise<void> {
  const { exchange, reused, redacted } = hit;
  context.ledger.markUsed(exchange.id);
  let session: SessionPlayback | undefined;
  if (inSession) {
    const liveSession = inSession.route.session;
    liveSession.arrive(exchange, correlationPairs(exchange, live));
    if (exchange.id === liveSession.recorded.opener.id && liveSession.recorded.via === 'query') liveSession.attachStream(live.res);
    session = { substitution: liveSession.substitution, gate: liveSession.gateFor(exchange), ended: liveSession.ended, holdsOpen: liveSession.holdsOpen(exchange), from: inSession.from };
  }
  const playing = playRecordedResponse(exchange, live, context, faults, session);
  // A session is in use while one of its answers plays (a stream held open): it is not freed meanwhile.
  const played = await (inSession ? inSession.route.session.whilePlaying(playing) : playing);
  context.log.served({
    exchangeId: exchange.id,
    transport: exchange.transport,
    method: request.method,
    path: request.path,
    status: exchange.status ?? undefined,
    messages: played.messages,
    substitutions: played.substitutions,
    redacted,
    reused,
    ...recordingCut(exchange.errorCode),
    ...(faults.specs.length > 0 ? { faults: faults.specs } : {}),
  });
}

/**
 * A status fault: its error answer instead of the recorded one, which is left for the next
 * request (a client that retries gets it). The served line names the exchange it stood in for.
 */
async function answerFaultStatus(matcher: HttpMatcher, context: ReplayContext, request: LiveRequest, res: ServerResponse, faults: ChosenFaults, status: number): Promise<void> {
  const would = matcher.match(request, false);
  if (!(await holdAnswer(context, res, faults.latencyMs))) return;
  // In the error shape of the protocol the request belongs to, as its misses are (http-miss-answer.ts).
  const protocol = would.kind === 'hit' && would.exchange.protocol !== undefined ? factsOf(would.exchange.protocol) : protocolOfRequest(request);
  sendFaultStatus(res, status, faults.statusSpec ?? faults.specs[0], protocol?.replay?.faultAnswers, faults);
  context.log.served(faultStatusServed(would.kind === 'hit' ? would.exchange : undefined, { transport: 'http', method: request.method, path: request.path }, status, faults));
}
