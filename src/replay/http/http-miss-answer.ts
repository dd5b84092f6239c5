import type { IncomingHttpHeaders } from 'node:http';
import { classifyForReplay, factsOf, type ProtocolId } from '../../protocols/catalog.js';
import type { ProtocolFacts } from '../../protocols/protocol.js';
import { jsonAnswer, type HttpMissAnswer, type MissFacts } from '../../protocols/miss-answer.js';
import type { ReplayContext, ReplayMiss } from '../replay-context.js';
import { missMessage } from '../miss-message.js';
import { parseJsonBody } from './request-body.js';
import { hostInstanceIdOf } from '../line/stdio-miss.js';

/** The recorded daemon's hostInstanceId, per replay: found once, on the first miss that needs it. */
const hostIds = new WeakMap<ReplayContext, { id: string | undefined }>();

/**
 * The answer to an HTTP request (or WebSocket upgrade) that matched nothing, in the error shape of
 * the protocol the request belongs to (its module's `replay.missAnswers.http`: the Pi daemon's
 * error envelope, an AG-UI RUN_ERROR …); a request no protocol claims gets the replay's own 404
 * `{"error":{"code":"replay_miss",…}}`. Every answer carries the sentence and the full report.
 */
export function httpMissAnswer(context: ReplayContext, request: { method: string; path: string; headers: IncomingHttpHeaders; body?: Buffer }, miss: ReplayMiss, protocol?: ProtocolId): HttpMissAnswer {
  const facts = missFacts(miss);
  const body = request.body === undefined || request.body.length === 0 ? undefined : parseJsonBody(request.body);
  // A request of a live session is its protocol's, whatever its route says.
  const module = protocol !== undefined ? factsOf(protocol) : protocolOfRequest(request, body);
  const answer = module?.replay?.missAnswers?.http;
  if (!answer) return jsonAnswer(404, { error: { code: 'replay_miss', message: facts.message, ...facts.details } });
  return answer({ method: request.method, path: request.path, headers: request.headers, body }, facts, { hostInstanceId: recordedHostId(context) });
}

/** The protocol a live request belongs to, by its route and body, as a recording would classify it; undefined when none claims it. */
export function protocolOfRequest(request: { method: string; path: string; body?: Buffer }, body = request.body === undefined || request.body.length === 0 ? undefined : parseJsonBody(request.body)): ProtocolFacts<ProtocolId> | undefined {
  return classifyForReplay({ transport: 'http', method: request.method, path: request.path, ...(body === undefined ? {} : { requestBody: body }) });
}

/** What a protocol's miss answer is told: the sentence, and the report as data. */
export function missFacts(miss: ReplayMiss): MissFacts {
  return { message: missMessage(miss), details: reportOf(miss) };
}

/** The miss as data: what the replay log prints, minus how it travelled and what the replay did. */
function reportOf(miss: ReplayMiss): Record<string, unknown> {
  const { transport: _transport, action: _action, ...report } = miss;
  return report;
}

function recordedHostId(context: ReplayContext): string | undefined {
  let found = hostIds.get(context);
  if (!found) {
    found = { id: undefined };
    for (const exchange of context.script.exchanges) {
      found.id = hostInstanceIdOf(exchange.messages);
      if (found.id !== undefined) break;
    }
    hostIds.set(context, found);
  }
  return found.id;
}
