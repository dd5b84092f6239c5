import { jsonAnswer, type HttpMissAnswer, type MissedHttpRequest, type MissFacts, type RecordedServer } from '../miss-answer.js';
import { isJsonObject } from '../../core/json.js';
import { lazyCrypto } from '../../core/lazy-crypto.js';
import { matchRoute } from './route-matcher.js';

/** The daemon's limit on `error.message` (apiError in the session API schema). */
const MAX_MESSAGE_CHARS = 4096;

/** One daemon start's hostInstanceId, for a replay of a recording that holds none: made at the first miss. */
let replayHostInstanceId: string | undefined;

/**
 * A miss as the daemon answers a request for something it does not have (`session_not_found`,
 * `ticket_not_found`): status 404 with its error envelope, which the daemon's own CLI and clients
 * print. `requestId` echoes `X-Request-Id`, else the body's `requestId`, else is made as the daemon
 * makes one (`http-<uuid>`).
 */
export function answerPiRestMiss(request: MissedHttpRequest, miss: MissFacts, server: RecordedServer): HttpMissAnswer {
  const header = request.headers['x-request-id'];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  const fromBody = isJsonObject(request.body) && typeof request.body.requestId === 'string' ? request.body.requestId : undefined;
  const envelope = {
    apiVersion: '1.0',
    requestId: fromHeader || fromBody || `http-${lazyCrypto().randomUUID()}`,
    hostInstanceId: server.hostInstanceId ?? (replayHostInstanceId ??= lazyCrypto().randomUUID()),
    ok: false,
    error: { code: 'replay_miss', message: miss.message.slice(0, MAX_MESSAGE_CHARS), retryable: false, details: miss.details },
  };
  return jsonAnswer(404, envelope, { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
}

/** The route template a path is an instance of (`/session/{sessionRef}`), so misses find the nearest route. */
export function piRestRouteTemplate(method: string, path: string): string | undefined {
  const match = matchRoute(method, path);
  return match && `/v1${match.route.template}`;
}
