import { error, type Finding } from '../../core/finding.js';
import type { HttpContext } from '../../core/message.js';
import type { EnvelopeLike } from './envelope.js';
import { headerValue } from '../../core/header-value.js';
import { stringField } from './json-value.js';
import { PI_REST_RULES } from './rule-ids.js';

/**
 * A mutating body's `requestId` must equal the `X-Request-Id` header when both are sent
 * (OpenAPI `components/parameters/RequestId`); the daemon refuses the request otherwise.
 */
export function requestIdConflict(http: HttpContext, body: unknown): Finding[] {
  const header = headerValue(http.requestHeaders, 'x-request-id');
  const inBody = stringField(body, 'requestId');
  if (header === undefined || inBody === undefined || header === inBody) return [];
  return [
    error(
      PI_REST_RULES.requestIdConflict,
      '/requestId',
      `the body's requestId '${inBody}' differs from the X-Request-Id header '${header}'; the daemon requires them to match`,
    ),
  ];
}

/**
 * The envelope's `requestId` echoes the request's `X-Request-Id`. Without that header the daemon uses
 * the body's `requestId` once it has read the body, else it makes up `http-<uuid>`.
 *
 * The body's id is only expected on success envelopes: a request refused before its body is read
 * (400 missing Idempotency-Key, 412 stale If-Match, 401) gets a generated id, as the captured daemon shows.
 */
export function requestIdEcho(http: HttpContext, envelope: EnvelopeLike, bodyRequestId: string | undefined): Finding[] {
  const header = headerValue(http.requestHeaders, 'x-request-id');
  const actual = envelope.requestId;
  if (header !== undefined) {
    if (actual === header) return [];
    return [error(PI_REST_RULES.requestIdEcho, '/requestId', notEchoed(actual, `the request's X-Request-Id '${header}'`))];
  }
  if (bodyRequestId === undefined || envelope.ok !== true || actual === bodyRequestId) return [];
  return [
    error(
      PI_REST_RULES.requestIdEcho,
      '/requestId',
      notEchoed(actual, `the request body's requestId '${bodyRequestId}' (the request had no X-Request-Id header)`),
    ),
  ];
}

function notEchoed(actual: unknown, expected: string): string {
  if (typeof actual === 'string') return `the envelope's requestId '${actual}' does not echo ${expected}`;
  return `the envelope has no string requestId, so it does not echo ${expected}`;
}
