/** Stable ids of the behavioural findings this module produces (schema findings use `schema`). */
export const PI_REST_RULES = {
  /** error: the envelope's `requestId` is not the request's `X-Request-Id` (or, without one, the body's `requestId`). */
  requestIdEcho: 'request-id-not-echoed',
  /** error: a mutating request's `X-Request-Id` header and body `requestId` differ; the daemon refuses it. */
  requestIdConflict: 'request-id-header-body-mismatch',
  /** warning: a POST/PUT/DELETE without `Idempotency-Key`; the daemon answers 400 `invalid_idempotency_key`. */
  idempotencyKey: 'idempotency-key-missing',
  /** error: a ticket left a terminal state (succeeded/failed, or indeterminate back to queued/running). */
  ticketState: 'ticket-state-regressed',
  /** error: a session's `generation` went down for the same session id. */
  sessionGeneration: 'session-generation-decreased',
  /** error: a session's `revision` went down for the same session id. */
  sessionRevision: 'session-revision-decreased',
  /** warning: a 2xx status the route table does not declare for this route. */
  undeclaredStatus: 'status-not-declared',
} as const;

export type PiRestRuleId = (typeof PI_REST_RULES)[keyof typeof PI_REST_RULES];
