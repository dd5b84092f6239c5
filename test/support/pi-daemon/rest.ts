/**
 * REST half of the Pi daemon stand-in: /v1/capabilities, /v1/session[/{ref}], /v1/ticket[/{id}].
 * Envelopes, headers, status codes and error codes follow the daemon's documented behaviour
 * (pi-daemon-notes §1.3–1.4); bodies come from our scenario (scenario.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorEnvelope, header, okEnvelope, readBody, sendJson, type ApiErrorBody } from './http-util.js';
import { splitSpec, type DaemonState, type PiReceivedHttp, type SessionRecord, type TicketRecord } from './state.js';

type Json = Record<string, unknown>;

const SESSION_PATH = /^\/v1\/session\/([^/]+)$/;
const TICKET_PATH = /^\/v1\/ticket\/([^/]+)$/;
const ATTACH_PATH = /^\/v1\/session\/([^/]+)\/(rpc|apc)$/;

export function requestIdFor(state: DaemonState, req: IncomingMessage): string {
  const given = header(req, 'x-request-id');
  if (given && given.length >= 1 && given.length <= 128) return given;
  return `http-${state.uuid()}`;
}

export function isAuthorized(state: DaemonState, req: IncomingMessage): boolean {
  return header(req, 'authorization') === `Bearer ${state.settings.token}`;
}

export const UNAUTHORIZED: ApiErrorBody = { code: 'unauthorized', message: 'missing or invalid service bearer' };
export const UNAUTHORIZED_HEADERS = { 'www-authenticate': 'Bearer', connection: 'close' };

export function sessionNotFound(): ApiErrorBody {
  return { code: 'session_not_found', message: 'session not found' };
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export async function handleRest(state: DaemonState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://pi-daemon');
  const method = req.method ?? 'GET';
  const text = await readBody(req);
  const record: PiReceivedHttp = {
    method,
    path: req.url ?? '/',
    headers: req.headers,
    body: parseJson(text),
    upgrade: false,
    status: undefined,
    at: Date.now(),
  };
  state.received.http.push(record);

  // The envelope echoes X-Request-Id; without it, a success envelope carries the body's requestId
  // (the daemon has read the body by then), anything else a generated `http-<uuid>`.
  const requestId = requestIdFor(state, req);
  const bodyRequestId = isObject(record.body) && typeof record.body.requestId === 'string' ? record.body.requestId : undefined;
  const okRequestId = header(req, 'x-request-id') === requestId ? requestId : (bodyRequestId ?? requestId);
  const host = state.hostInstanceId;
  const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    record.status = status;
    sendJson(res, status, body, headers);
  };
  const ok = (status: number, data: unknown, headers: Record<string, string> = {}) => reply(status, okEnvelope(okRequestId, host, data), headers);
  const fail = (status: number, error: ApiErrorBody, headers: Record<string, string> = {}) => reply(status, errorEnvelope(requestId, host, error), headers);

  // The daemon authenticates before reading anything else or revealing existence.
  if (!isAuthorized(state, req)) return fail(401, UNAUTHORIZED, UNAUTHORIZED_HEADERS);

  const path = url.pathname;
  const notAllowed = () => fail(405, { code: 'method_not_allowed', message: `${method} is not allowed on ${path}` });

  if (path === '/v1/capabilities') {
    if (method !== 'GET') return notAllowed();
    return ok(200, state.scenario.capabilities);
  }

  if (ATTACH_PATH.test(path)) {
    const route = ATTACH_PATH.exec(path)![2];
    return route === 'rpc'
      ? fail(426, { code: 'rpc_subprotocol_required', message: 'one supported RPC subprotocol is required: pi-rpc.v1, pi-daemon-rpc.v1' }, { 'sec-websocket-protocol': 'pi-rpc.v1, pi-daemon-rpc.v1', connection: 'close' })
      : fail(426, { code: 'acp_subprotocol_required', message: 'the ACP subprotocol is required: agent-client-protocol.v1' }, { 'sec-websocket-protocol': 'agent-client-protocol.v1', connection: 'close' });
  }

  if (path === '/v1/session') {
    if (method === 'GET') return listSessions(state, url, ok, fail);
    if (method === 'POST') return createSession(state, req, url, record.body, ok, fail);
    return notAllowed();
  }

  const sessionMatch = SESSION_PATH.exec(path);
  if (sessionMatch) {
    const ref = decodeURIComponent(sessionMatch[1]!);
    const session = state.findSession(ref);
    if (method === 'GET') {
      if (!session) return fail(404, sessionNotFound());
      return ok(200, state.sessionResource(session), { etag: state.etag(session) });
    }
    if (method === 'PUT' || method === 'DELETE') {
      const key = header(req, 'idempotency-key');
      if (!key || key.length > 512) return fail(400, { code: 'invalid_idempotency_key', message: 'Idempotency-Key is required and must be at most 512 characters' });
      if (!session) return fail(404, sessionNotFound());
      const ifMatch = header(req, 'if-match');
      if (ifMatch !== state.etag(session)) {
        return fail(412, { code: 'session_precondition_failed', message: ifMatch ? 'If-Match does not match the current session revision' : 'If-Match is required' });
      }
      if (method === 'PUT') return updateSession(state, session, key, record.body, ok, fail);
      return deleteSession(state, session, key, url, requestId, ok);
    }
    return notAllowed();
  }

  if (path === '/v1/ticket') {
    if (method !== 'GET') return notAllowed();
    const key = header(req, 'idempotency-key');
    const lookupMethod = url.searchParams.get('method');
    const target = url.searchParams.get('target');
    if (!key || !lookupMethod || !target) return fail(400, { code: 'invalid_request', message: 'method, target and Idempotency-Key are required' });
    const ticketId = state.idempotency.get(`${lookupMethod.toUpperCase()} ${target} ${key}`);
    const ticket = ticketId ? state.tickets.get(ticketId) : undefined;
    if (!ticket) return fail(404, { code: 'ticket_not_found', message: 'ticket not found' });
    return ok(200, ticket.data);
  }

  const ticketMatch = TICKET_PATH.exec(path);
  if (ticketMatch) {
    if (method !== 'GET') return notAllowed();
    const ticket = state.tickets.get(decodeURIComponent(ticketMatch[1]!));
    if (!ticket) return fail(404, { code: 'ticket_not_found', message: 'ticket not found' });
    pollTicket(state, ticket);
    return ok(200, ticket.data);
  }

  return fail(404, { code: 'not_found', message: `no route for ${method} ${path}` });
}

type Ok = (status: number, data: unknown, headers?: Record<string, string>) => void;
type Fail = (status: number, error: ApiErrorBody, headers?: Record<string, string>) => void;

function listSessions(state: DaemonState, url: URL, ok: Ok, fail: Fail): void {
  const limitText = url.searchParams.get('limit');
  const limit = limitText === null ? 50 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return fail(400, { code: 'invalid_request', message: 'limit must be an integer from 1 to 100' });
  const stateFilter = url.searchParams.get('state');
  const cursor = url.searchParams.get('cursor');
  let offset = 0;
  if (cursor) {
    offset = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0) return fail(400, { code: 'invalid_cursor', message: 'cursor is not valid' });
  }
  const all = [...state.sessions.values()].filter(() => !stateFilter || stateFilter === 'idle');
  const page = all.slice(offset, offset + limit).map((s) => state.sessionResource(s));
  const data: Json = { sessions: page };
  if (offset + limit < all.length) data.nextCursor = Buffer.from(String(offset + limit)).toString('base64url');
  ok(200, data);
}

function newTicket(state: DaemonState, init: { requestId: string; key: string; operation: string; sessionId: string; generation: number; method: string; target: string; fingerprint: string; apply: () => unknown }): TicketRecord {
  const ticketId = state.ticketId();
  const at = state.now();
  const ticket: TicketRecord = {
    data: {
      ticketId,
      requestId: init.requestId,
      idempotencyKey: init.key,
      operation: init.operation,
      state: 'queued',
      submittedAt: at,
      updatedAt: at,
      sessionId: init.sessionId,
      generation: init.generation,
      links: { self: `/v1/ticket/${ticketId}`, session: `/v1/session/${encodeURIComponent(init.sessionId)}` },
    },
    polls: 0,
    method: init.method,
    target: init.target,
    fingerprint: init.fingerprint,
    apply: init.apply,
  };
  state.tickets.set(ticketId, ticket);
  state.idempotency.set(`${init.method} ${init.target} ${init.key}`, ticketId);
  return ticket;
}

function succeed(state: DaemonState, ticket: TicketRecord): void {
  const result = ticket.apply();
  const { links, ...rest } = ticket.data;
  ticket.data = { ...rest, state: 'succeeded', updatedAt: state.now(), result, links };
}

/** queued → running → … → succeeded, one step per GET. */
function pollTicket(state: DaemonState, ticket: TicketRecord): void {
  const current = ticket.data.state;
  if (current === 'succeeded' || current === 'failed' || current === 'indeterminate') return;
  ticket.polls++;
  if (ticket.polls >= state.settings.ticketPollsToSucceed) succeed(state, ticket);
  else ticket.data = { ...ticket.data, state: 'running', updatedAt: state.now() };
}

/** Same key + same payload joins the retained ticket; a different payload is a conflict. */
function replayIdempotent(state: DaemonState, method: string, target: string, key: string, fingerprint: string, ok: Ok, fail: Fail): boolean {
  const existingId = state.idempotency.get(`${method} ${target} ${key}`);
  if (!existingId) return false;
  const existing = state.tickets.get(existingId)!;
  if (existing.fingerprint !== fingerprint) {
    fail(409, { code: 'idempotency_conflict', message: 'Idempotency-Key was already used with a different request' });
  } else {
    ok(202, existing.data, { location: `/v1/ticket/${existingId}` });
  }
  return true;
}

function createSession(state: DaemonState, req: IncomingMessage, url: URL, body: unknown, ok: Ok, fail: Fail): void {
  const key = header(req, 'idempotency-key');
  if (!key || key.length > 512) return fail(400, { code: 'invalid_idempotency_key', message: 'Idempotency-Key is required and must be at most 512 characters' });
  if (!isObject(body) || !isObject(body.spec) || typeof body.spec.cwd !== 'string' || !isObject(body.spec.target) || typeof body.requestId !== 'string') {
    return fail(400, { code: 'invalid_request', message: 'body must be a sessionCreateRequest with requestId and spec {cwd, target}' });
  }
  const headerRequestId = header(req, 'x-request-id');
  if (headerRequestId && headerRequestId !== body.requestId) return fail(400, { code: 'request_id_mismatch', message: 'body requestId does not match X-Request-Id' });
  const target = '/v1/session';
  const fingerprint = canonical(body);
  if (replayIdempotent(state, 'POST', target, key, fingerprint, ok, fail)) return;

  const sessionId = typeof body.sessionId === 'string' ? body.sessionId : `session-${state.sessions.size + state.tickets.size + 1}`;
  const { spec, env } = splitSpec(body.spec);
  const name = typeof spec.name === 'string' ? spec.name : undefined;
  const pending = [...state.tickets.values()].some((t) => t.data.operation === 'create' && t.data.sessionId === sessionId && t.data.state !== 'succeeded');
  const nameTaken = name !== undefined && [...state.sessions.values()].some((s) => s.name === name);
  if (state.sessions.has(sessionId) || pending || nameTaken) {
    return fail(409, { code: 'session_conflict', message: 'a session with this id or name already exists' });
  }
  const ticket = newTicket(state, {
    requestId: body.requestId,
    key,
    operation: 'create',
    sessionId,
    generation: 1,
    method: 'POST',
    target,
    fingerprint,
    apply: () => {
      const at = state.now();
      const session: SessionRecord = { sessionId, name, generation: 1, revision: 1, createdAt: at, updatedAt: at, lastUsedAt: at, spec, env };
      state.sessions.set(sessionId, session);
      return state.sessionResource(session);
    },
  });
  if (url.searchParams.get('waitForTerminal') === 'true' || state.settings.ticketPollsToSucceed <= 0) succeed(state, ticket);
  ok(202, ticket.data, { location: `/v1/ticket/${ticket.data.ticketId as string}` });
}

function updateSession(state: DaemonState, session: SessionRecord, key: string, body: unknown, ok: Ok, fail: Fail): void {
  if (!isObject(body) || !isObject(body.spec) || typeof body.spec.cwd !== 'string' || !isObject(body.spec.target) || typeof body.requestId !== 'string') {
    return fail(400, { code: 'invalid_request', message: 'body must be a sessionUpdateRequest with requestId, expectedGeneration, expectedRevision and spec' });
  }
  if (body.expectedGeneration !== session.generation) return fail(409, { code: 'stale_generation', message: 'expectedGeneration does not match the current session generation' });
  if (body.expectedRevision !== session.revision) return fail(412, { code: 'session_precondition_failed', message: 'expectedRevision does not match the current session revision' });
  const target = `/v1/session/${session.sessionId}`;
  const fingerprint = canonical(body);
  if (replayIdempotent(state, 'PUT', target, key, fingerprint, ok, fail)) return;
  const { spec, env } = splitSpec(body.spec);
  const hadEnv = isObject(body.spec.env);
  const ticket = newTicket(state, {
    requestId: body.requestId,
    key,
    operation: 'update',
    sessionId: session.sessionId,
    generation: session.generation + 1,
    method: 'PUT',
    target,
    fingerprint,
    apply: () => {
      session.spec = spec;
      if (hadEnv) session.env = env;
      session.name = typeof spec.name === 'string' ? spec.name : session.name;
      session.generation += 1;
      session.revision += 1;
      session.updatedAt = state.now();
      return state.sessionResource(session);
    },
  });
  if (state.settings.ticketPollsToSucceed <= 0) succeed(state, ticket);
  ok(202, ticket.data, { location: `/v1/ticket/${ticket.data.ticketId as string}` });
}

function deleteSession(state: DaemonState, session: SessionRecord, key: string, url: URL, requestId: string, ok: Ok): void {
  const target = `/v1/session/${session.sessionId}`;
  const retained = url.searchParams.get('retainArtifacts') === 'true';
  const existingId = state.idempotency.get(`DELETE ${target} ${key}`);
  if (existingId) return ok(202, state.tickets.get(existingId)!.data, { location: `/v1/ticket/${existingId}` });
  const ticket = newTicket(state, {
    requestId,
    key,
    operation: 'delete',
    sessionId: session.sessionId,
    generation: session.generation,
    method: 'DELETE',
    target,
    fingerprint: String(retained),
    apply: () => {
      state.sessions.delete(session.sessionId);
      const hub = state.hubs.get(session.sessionId);
      if (hub) {
        for (const att of hub.attachments) att.ws.close(1012, 'session attachment closed');
        state.hubs.delete(session.sessionId);
      }
      return { sessionId: session.sessionId, retained, deleted: true };
    },
  });
  if (state.settings.ticketPollsToSucceed <= 0) succeed(state, ticket);
  ok(202, ticket.data, { location: `/v1/ticket/${ticket.data.ticketId as string}` });
}
