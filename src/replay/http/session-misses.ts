import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeRequest, type LiveRequest } from '../match/http-matcher.js';
import { missFacts } from './http-miss-answer.js';
import { messageMissAnswer } from '../line/stdio-miss.js';
import { parseJsonBody } from './request-body.js';
import type { HttpMissAnswer } from '../../protocols/miss-answer.js';
import { isJsonObject } from '../../core/json.js';
import { reportMiss, type ReplayContext, type ReplayMiss } from '../replay-context.js';
import type { RecordedSession } from './recorded-sessions.js';
import type { SessionRoute } from './live-sessions.js';

/*
 * How the misses of an HTTP session (live-sessions.ts) are answered where the protocol's plain HTTP
 * miss answer would not reach its client: a session it does not know, and the older transport whose
 * answers all travel on one stream.
 */

/**
 * A request naming a session id no live session has (never issued here): a miss, answered as its
 * protocol answers an unknown session (MCP: 404, and the client starts anew).
 */
export function answerUnknownSession(recorded: RecordedSession, context: ReplayContext, request: LiveRequest, req: IncomingMessage, res: ServerResponse): void {
  const miss: ReplayMiss = { transport: 'http', reason: 'no-match', request: describeRequest(request), differences: [`header:${recorded.hints.header}`], action: 'error' };
  reportMiss(context, miss);
  answerEndedSession(recorded, request, req, miss, res);
}

/** A miss of a session that has ended (DELETE): answered as an unknown session is. */
export function answerEndedSession(recorded: RecordedSession, request: LiveRequest, req: IncomingMessage, miss: ReplayMiss, res: ServerResponse): void {
  send(recorded.hints.unknownSession({ method: request.method, path: request.path, headers: req.headers, body: parseJsonBody(request.body) }, missFacts(miss)), res);
}

/**
 * A POST of a legacy session (HTTP+SSE) that matched nothing: taken with 202 as every POST there is,
 * and its protocol's answer (a JSON-RPC error with the request's id and the report) sent on the
 * session's stream, where the client reads every answer.
 */
export function answerOnStream(route: SessionRoute, request: LiveRequest, miss: ReplayMiss, res: ServerResponse): void {
  const { message, details } = missFacts(miss);
  const value = parseJsonBody(request.body);
  // Near a recorded request: invalid (-32600); nothing near it: a method never recorded (-32601).
  const method = isJsonObject(value) && typeof value.method === 'string' ? value.method : '';
  const answer = messageMissAnswer(route.session.recorded.protocol, value, { message, details, recordedMethods: new Set(miss.nearest === undefined ? [] : [method]) });
  if (answer !== undefined) route.session.push(answer);
  res.writeHead(202, { 'content-type': 'text/plain; charset=utf-8', 'content-length': '8' });
  res.end('Accepted');
}

function send(answer: HttpMissAnswer, res: ServerResponse): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}
