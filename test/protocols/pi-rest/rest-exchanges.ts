/**
 * REST exchanges of a Pi daemon session lifecycle, written for the pi-rest tests: the bodies come
 * from the stand-in daemon's scenario (test/support/pi-daemon/scenario.ts), the envelopes, headers
 * and status codes follow the daemon's documented REST API. Each exchange has a label the tests
 * look it up by.
 */
import { piScenario } from '../../support/pi-daemon/scenario.js';
import type { CapturedExchange } from './pi-rest-helpers.js';

type Json = Record<string, unknown>;
type Headers = Record<string, string>;

const HOST = '00000000-0000-4000-8000-0000000000d1';
const AUTH = { Authorization: 'Bearer <redacted>' };
const JSON_HEADERS: Headers = { 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff' };
const AT = '2026-01-15T09:00:00.100Z';

const ok = (requestId: string, data: unknown): Json => ({ apiVersion: '1.0', requestId, hostInstanceId: HOST, ok: true, data });
const failed = (requestId: string, code: string, message: string): Json => ({ apiVersion: '1.0', requestId, hostInstanceId: HOST, ok: false, error: { code, message, retryable: false } });

function ticket(requestId: string, idempotencyKey: string, operation: string, generation: number, n: number): Json {
  const ticketId = `ticket-standin-${n}`;
  return {
    ticketId,
    requestId,
    idempotencyKey,
    operation,
    state: 'queued',
    submittedAt: AT,
    updatedAt: AT,
    sessionId: 'agent-a',
    generation,
    links: { self: `/v1/ticket/${ticketId}`, session: '/v1/session/agent-a' },
  };
}

/** GET /v1/ticket/{id}: `queued`, or `succeeded` with the session it produced. */
function poll(seq: number, requestId: string, base: Json, result?: Json): CapturedExchange {
  const data = result ? { ...base, state: 'succeeded', updatedAt: '2026-01-15T09:00:00.200Z', result } : base;
  return exchange(seq, 'ticket.poll', { method: 'GET', path: (base.links as Json).self as string, headers: { ...AUTH } }, 200, ok(requestId, data));
}

function exchange(seq: number, label: string, request: CapturedExchange['request'], status: number, body: Json, headers: Headers = {}): CapturedExchange {
  return { kind: 'http', seq, label, request, response: { status, headers: { ...JSON_HEADERS, ...headers }, body } };
}

/**
 * The lifecycle: capabilities, create (and its 400), the create ticket polled until it succeeds,
 * get, list, 404, a stale PUT, an update whose ticket is polled until it succeeds, get after
 * update, blob reserve, delete.
 */
export function restExchanges(): CapturedExchange[] {
  const scenario = piScenario();
  const session = scenario.session;
  const renamed = (scenario.attachReady.snapshot as Json).session as Json;
  const createBody = scenario.createRequest;
  const createHeaders = { 'Idempotency-Key': 'create-agent-a-1', 'X-Request-Id': 'req-create-1', ...AUTH, 'Content-Type': 'application/json' };
  const blobBody = { requestId: 'req-blob-reserve-1', expectedGeneration: 2, metadata: { name: 'notes.txt', mediaType: 'text/plain' }, sizeBytes: 6, sha256: '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03' };
  const createTicket = ticket('req-create-1', 'create-agent-a-1', 'create', 1, 1);
  const updateTicket = ticket('req-update-1', 'update-1', 'update', 2, 2);
  const staleUpdate = { requestId: 'req-update-stale', expectedGeneration: 1, expectedRevision: 1, spec: { ...(createBody.spec as Json), name: 'fixture-agent-renamed' } };
  return [
    exchange(1, 'capabilities', { method: 'GET', path: '/v1/capabilities', headers: { 'X-Request-Id': 'req-capabilities-1', ...AUTH } }, 200, ok('req-capabilities-1', scenario.capabilities)),
    exchange(2, 'session.create', { method: 'POST', path: '/v1/session', headers: createHeaders, body: createBody }, 202, ok('req-create-1', createTicket), {
      location: '/v1/ticket/ticket-standin-1',
    }),
    exchange(
      3,
      'session.create.missing-idempotency-key',
      { method: 'POST', path: '/v1/session', headers: { ...AUTH, 'Content-Type': 'application/json' }, body: createBody },
      400,
      failed('http-00000000-0000-4000-8000-000000000003', 'invalid_idempotency_key', 'Idempotency-Key is required and must be at most 512 characters'),
    ),
    poll(11, 'http-00000000-0000-4000-8000-000000000011', createTicket),
    poll(12, 'http-00000000-0000-4000-8000-000000000012', createTicket, session),
    exchange(4, 'session.get', { method: 'GET', path: '/v1/session/agent-a', headers: { ...AUTH } }, 200, ok('http-00000000-0000-4000-8000-000000000004', session), { etag: '"YWdlbnQtYQ:1"' }),
    exchange(5, 'session.list', { method: 'GET', path: '/v1/session?limit=10', headers: { ...AUTH } }, 200, ok('http-00000000-0000-4000-8000-000000000005', { sessions: [session] })),
    exchange(
      6,
      'session.get.not-found',
      { method: 'GET', path: '/v1/session/no-such-session', headers: { ...AUTH } },
      404,
      failed('http-00000000-0000-4000-8000-000000000006', 'session_not_found', 'session not found'),
    ),
    exchange(
      7,
      'session.update.precondition-failed',
      { method: 'PUT', path: '/v1/session/agent-a', headers: { 'Idempotency-Key': 'update-stale-1', 'If-Match': '"stale:0"', ...AUTH, 'Content-Type': 'application/json' }, body: staleUpdate },
      412,
      failed('http-00000000-0000-4000-8000-000000000007', 'session_precondition_failed', 'If-Match does not match the current session revision'),
    ),
    poll(13, 'http-00000000-0000-4000-8000-000000000013', updateTicket),
    poll(14, 'http-00000000-0000-4000-8000-000000000014', updateTicket, renamed),
    exchange(8, 'session.get.after-update', { method: 'GET', path: '/v1/session/agent-a', headers: { ...AUTH } }, 200, ok('http-00000000-0000-4000-8000-000000000008', renamed), {
      etag: '"YWdlbnQtYQ:3"',
    }),
    exchange(
      9,
      'blob.reserve',
      { method: 'POST', path: '/v1/session/agent-a/blob', headers: { 'Idempotency-Key': 'blob-reserve-1', ...AUTH, 'Content-Type': 'application/json' }, body: blobBody },
      202,
      ok('req-blob-reserve-1', ticket('req-blob-reserve-1', 'blob-reserve-1', 'reserve_blob', 2, 9)),
      { location: '/v1/ticket/ticket-standin-9' },
    ),
    exchange(
      10,
      'session.delete',
      { method: 'DELETE', path: '/v1/session/agent-a?retainArtifacts=false', headers: { 'Idempotency-Key': 'delete-1', 'If-Match': '"YWdlbnQtYQ:3"', ...AUTH } },
      202,
      ok('http-00000000-0000-4000-8000-00000000000a', ticket('http-00000000-0000-4000-8000-00000000000a', 'delete-1', 'delete', 2, 10)),
      { location: '/v1/ticket/ticket-standin-10' },
    ),
  ];
}

/** A PUT /v1/session/{ref} body (sessionUpdateRequest), with env. */
export function updateRequest(): { requestId: string; expectedGeneration: number; expectedRevision: number; spec: Json & { env: Record<string, string> } } {
  const spec = piScenario().createRequest.spec as Json;
  return { requestId: 'req-update-agent-a', expectedGeneration: 1, expectedRevision: 1, spec: { ...spec, name: 'fixture-agent-renamed', env: { CI: '1' } } };
}
