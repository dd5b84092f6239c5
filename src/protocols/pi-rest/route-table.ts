import { PI_SESSION_API_ID } from './schemas.js';

/**
 * The Pi daemon REST route table (base path `/v1`), transcribed by hand from
 * harryaskham/pi-daemon@v0.3.0:session-api.openapi.json (saved as schemas-extra/session-api.openapi.json).
 * It is code, not loaded at runtime: users who never pass `--schemas` have no OpenAPI file, yet their
 * REST bodies still need a `$def` per route.
 */

export const DASHBOARD_API_ID = 'https://a.skh.am/pi-daemon/dashboard-api.schema.json';
export const DASHBOARD_SESSION_DRAFT_ID = 'https://a.skh.am/pi-daemon/dashboard-session-draft.schema.json';
export const SCHEDULE_SCHEMA_ID = 'https://a.skh.am/pi-daemon/schedule.schema.json';

/** The versioned base path every route lives under. */
export const API_BASE_PATH = '/v1';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a body is checked against. */
export type SchemaSpec =
  /** One `$def` of a loaded schema document. */
  | { readonly kind: 'def'; readonly doc: string; readonly name: string }
  /** An OpenAPI inline `allOf: [apiEnvelopeBase, {ok: true, data: <def>}]` (the dashboard draft routes). */
  | { readonly kind: 'envelope'; readonly data: { readonly doc: string; readonly name: string } }
  /** The inline request body of `POST /ticket/{ticketId}/reconcile`. */
  | { readonly kind: 'reconcile' }
  /** The OpenAPI says only `type: object` (schedule create/update bodies). */
  | { readonly kind: 'any-object' };

/** What travels in one direction of one route. */
export type BodySpec =
  | { readonly kind: 'json'; readonly schema: SchemaSpec }
  /** No body is declared (GET requests, schedule mutations' success responses). */
  | { readonly kind: 'none' }
  /** Raw bytes (blob content); never JSON, never checked. */
  | { readonly kind: 'octet-stream' }
  /** 101 Switching Protocols: the channel becomes a WebSocket owned by another module. */
  | { readonly kind: 'upgrade' };

export interface RouteSpec {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Path template below `/v1`, e.g. `/session/{sessionRef}/blob/{blobId}`. */
  readonly template: string;
  readonly request: BodySpec;
  /** Declared success (1xx/2xx) statuses and their bodies. */
  readonly success: Readonly<Record<number, BodySpec>>;
  /** Declared error statuses; every one of them carries `apiErrorEnvelope`. */
  readonly errors: readonly number[];
}

const api = (name: string): SchemaSpec => ({ kind: 'def', doc: PI_SESSION_API_ID, name });
const dash = (name: string): SchemaSpec => ({ kind: 'def', doc: DASHBOARD_API_ID, name });
const draftEnvelope = (name: string): SchemaSpec => ({ kind: 'envelope', data: { doc: DASHBOARD_SESSION_DRAFT_ID, name } });
const draft = (name: string): SchemaSpec => ({ kind: 'def', doc: DASHBOARD_SESSION_DRAFT_ID, name });
const json = (schema: SchemaSpec): BodySpec => ({ kind: 'json', schema });
const NONE: BodySpec = { kind: 'none' };
const OCTET: BodySpec = { kind: 'octet-stream' };
const UPGRADE: BodySpec = { kind: 'upgrade' };
const RECONCILE: SchemaSpec = { kind: 'reconcile' };
const ANY_OBJECT: SchemaSpec = { kind: 'any-object' };

/** Every error status of every route uses this envelope (OpenAPI `components/responses/*`). */
export const API_ERROR_ENVELOPE: SchemaSpec = api('apiErrorEnvelope');

function route(
  method: HttpMethod,
  template: string,
  operationId: string,
  request: BodySpec,
  success: Record<number, BodySpec>,
  errors: number[],
): RouteSpec {
  return Object.freeze({ operationId, method, template, request, success: Object.freeze(success), errors: Object.freeze(errors) });
}

let routes: readonly RouteSpec[] | undefined;

/**
 * Every route, made on the first ask, not at import: the table is the largest literal of the
 * protocol catalog, which every command loads, and only a Pi REST exchange reads it.
 */
export function routeTable(): readonly RouteSpec[] {
  return (routes ??= Object.freeze([
    route('GET', '/capabilities', 'getCapabilities', NONE, { 200: json(api('capabilitiesEnvelope')) }, [401, 503]),

    route('GET', '/session', 'listSessions', NONE, { 200: json(api('sessionListEnvelope')) }, [400, 401]),
    route('POST', '/session', 'createSession', json(api('sessionCreateRequest')), { 202: json(api('ticketEnvelope')) }, [400, 401, 409, 413, 422, 429, 503]),
    route('GET', '/session/{sessionRef}', 'getSession', NONE, { 200: json(api('sessionEnvelope')) }, [401, 404, 409]),
    route('PUT', '/session/{sessionRef}', 'replaceSessionSpec', json(api('sessionUpdateRequest')), { 202: json(api('ticketEnvelope')) }, [400, 401, 404, 409, 412, 413, 422, 503]),
    route('DELETE', '/session/{sessionRef}', 'deleteSession', NONE, { 202: json(api('ticketEnvelope')) }, [401, 404, 409, 412, 503]),

    route('POST', '/session/{sessionRef}/blob', 'reserveSessionBlob', json(api('blobReservationRequest')), { 202: json(api('ticketEnvelope')) }, [400, 401, 404, 409, 412, 413, 422, 429, 503]),
    route('GET', '/session/{sessionRef}/blob/{blobId}', 'getSessionBlob', NONE, { 200: json(api('blobTransferEnvelope')) }, [400, 401, 404, 409, 412, 413, 422, 429, 503]),
    route('DELETE', '/session/{sessionRef}/blob/{blobId}', 'deleteSessionBlob', NONE, { 202: json(api('ticketEnvelope')) }, [400, 401, 404, 409, 412, 413, 422, 429, 503]),
    route('PUT', '/session/{sessionRef}/blob/{blobId}/content', 'uploadSessionBlobContent', OCTET, { 200: json(api('blobTransferEnvelope')) }, [400, 401, 404, 409, 412, 413, 422, 429, 503]),
    route('GET', '/session/{sessionRef}/blob/{blobId}/content', 'downloadSessionBlobContent', NONE, { 200: OCTET }, [400, 401, 404, 409, 412, 413, 422, 429, 503]),

    route('POST', '/session/{sessionRef}/file', 'materializeSessionBlob', json(api('blobMaterializationRequest')), { 202: json(api('ticketEnvelope')) }, [400, 401, 404, 409, 412, 413, 422, 429, 503]),
    route('GET', '/session/{sessionRef}/file/{fileId}', 'getSessionUpload', NONE, { 200: json(api('sessionUploadEnvelope')) }, [400, 401, 404, 409, 412, 413, 422, 429, 503]),
    route('DELETE', '/session/{sessionRef}/file/{fileId}', 'deleteSessionUpload', NONE, { 202: json(api('ticketEnvelope')) }, [400, 401, 404, 409, 412, 413, 422, 429, 503]),
    route('GET', '/session/{sessionRef}/file/{fileId}/content', 'downloadSessionUploadContent', NONE, { 200: OCTET }, [400, 401, 404, 409, 412, 413, 422, 429, 503]),

    // WebSocket attachments: the frames belong to other modules; only a refused upgrade (JSON error) is ours.
    route('GET', '/session/{sessionRef}/rpc', 'attachPiRpc', NONE, { 101: UPGRADE }, [400, 401, 404, 409, 426, 429, 503]),
    route('GET', '/session/{sessionRef}/apc', 'attachAgentClientProtocol', NONE, { 101: UPGRADE }, [400, 401, 404, 426, 429, 503]),

    route('GET', '/schedule', 'listSchedules', NONE, { 200: json(api('scheduleListEnvelope')) }, [401]),
    route('GET', '/schedule/status', 'getScheduleStatus', NONE, { 200: json(api('scheduleStatusEnvelope')) }, [401]),
    route('GET', '/schedule/{scheduleId}', 'getSchedule', NONE, { 200: json(api('scheduleResourceEnvelope')) }, [401, 404]),
    route('POST', '/schedule/{scheduleId}', 'createSchedule', json(ANY_OBJECT), { 201: NONE }, [401, 409]),
    route('PUT', '/schedule/{scheduleId}', 'updateSchedule', json(ANY_OBJECT), { 200: NONE }, [401, 412]),
    route('DELETE', '/schedule/{scheduleId}', 'deleteSchedule', NONE, { 200: NONE }, [401, 412]),
    route('POST', '/schedule/{scheduleId}/enable', 'enableSchedule', NONE, { 200: NONE }, [401, 412]),
    route('POST', '/schedule/{scheduleId}/disable', 'disableSchedule', NONE, { 200: NONE }, [401, 412]),

    route('GET', '/dashboard/capabilities', 'getDashboardServiceCapabilities', NONE, { 200: json(api('dashboardServiceCapabilitiesEnvelope')) }, [401]),
    route('GET', '/dashboard/diagnostics', 'getDashboardServiceDiagnostics', NONE, { 200: json(api('dashboardDiagnosticsEnvelope')) }, [401, 501]),
    route('GET', '/dashboard/inventory', 'listDashboardInventory', NONE, { 200: json(api('dashboardInventoryEnvelope')) }, [400, 401]),
    route('GET', '/dashboard/inventory/{inventoryId}', 'getDashboardInventoryInfo', NONE, { 200: json(api('dashboardSessionInfoEnvelope')) }, [401, 404]),
    route('GET', '/dashboard/inventory/{inventoryId}/transcript', 'getDashboardInventoryTranscript', NONE, { 200: json(api('dashboardTranscriptEnvelope')) }, [401, 404, 409, 413]),
    route('POST', '/dashboard/inventory/{inventoryId}/activate', 'activateDashboardInventorySession', json(dash('activationRequest')), { 202: json(api('dashboardActivationEnvelope')) }, [400, 401, 409, 413, 429]),
    route('GET', '/dashboard/activation/{ticketId}', 'getDashboardActivationTicket', NONE, { 200: json(api('dashboardActivationEnvelope')) }, [401, 404]),
    route('POST', '/dashboard/session/{sessionRef}/export', 'exportDashboardSession', json(dash('exportRequest')), { 202: json(api('dashboardExportEnvelope')) }, [400, 401, 409, 413]),
    route('GET', '/dashboard/export/{ticketId}', 'getDashboardExportTicket', NONE, { 200: json(api('dashboardExportEnvelope')) }, [401, 404]),
    route('POST', '/dashboard/session/{sessionRef}/lease', 'renewDashboardOwnershipLease', json(dash('dashboardLeaseRequest')), { 200: json(api('dashboardLeaseEnvelope')) }, [400, 401, 409]),
    route('GET', '/dashboard/session/{sessionRef}/tui', 'attachDashboardTuiChannel', NONE, { 101: UPGRADE }, [401, 404, 409, 426, 501]),
    route('POST', '/dashboard/session-drafts', 'createServiceDashboardSessionDraft', json(draft('createRequest')), { 201: json(draftEnvelope('resource')) }, [400, 401, 409, 429]),
    route('GET', '/dashboard/session-drafts/{draftId}', 'getServiceDashboardSessionDraft', NONE, { 200: json(draftEnvelope('resource')) }, [401, 404]),
    route('DELETE', '/dashboard/session-drafts/{draftId}', 'cancelServiceDashboardSessionDraft', json(draft('cancelRequest')), { 200: json(draftEnvelope('resource')) }, [400, 401, 409, 412]),
    route('POST', '/dashboard/session-drafts/{draftId}/send', 'sendServiceDashboardSessionDraft', json(draft('sendRequest')), { 202: json(draftEnvelope('sendTicket')) }, [400, 401, 409, 412, 503]),
    route('GET', '/dashboard/session-draft-send/{ticketId}', 'getServiceDashboardSessionDraftSend', NONE, { 200: json(draftEnvelope('sendTicket')) }, [401, 404]),

    route('GET', '/ticket', 'getTicketByIdempotency', NONE, { 200: json(api('ticketEnvelope')) }, [400, 401, 404]),
    route('GET', '/ticket/{ticketId}', 'getTicket', NONE, { 200: json(api('ticketEnvelope')) }, [401, 404]),
    route('POST', '/ticket/{ticketId}/reconcile', 'reconcileTicket', json(RECONCILE), { 200: json(api('ticketEnvelope')) }, [400, 401, 404, 409]),
  ]));
}

/** POST, PUT and DELETE change state; the daemon requires an `Idempotency-Key` on each (400 `invalid_idempotency_key`). */
export function isMutating(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'DELETE';
}

/** `<METHOD> /v1<template>`, for messages. */
export function describeRoute(route: RouteSpec): string {
  return `${route.method} ${API_BASE_PATH}${route.template}`;
}

/** Name of the `$def` a spec validates against, when it is one (`ticketEnvelope`, `sessionCreateRequest`, ...). */
export function defName(spec: SchemaSpec): string | undefined {
  return spec.kind === 'def' ? spec.name : undefined;
}
