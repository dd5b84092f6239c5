import type { ChannelHint } from '../protocol.js';
import { isEnvelope } from './envelope.js';
import { apiRelativePath, matchRoute, routesForPath } from './route-matcher.js';
import { describeRoute } from './route-table.js';
import { isJsonObject } from '../../core/json.js';

/**
 * HTTP on one of the daemon's route templates (route-table.ts, from its OpenAPI) is ours; a path that
 * merely starts with `/v1/` is not (`/v1/chat/completions` is OpenAI's, `/v1/messages` Anthropic's). WebSocket attachments (`/rpc`, `/apc`, `/tui`)
 * belong to the framed-RPC and ACP modules; only a refused upgrade answered over plain HTTP (426 with a
 * JSON error envelope) is worth a middling claim here.
 */
export function classifyPiRest(hint: ChannelHint): number {
  if (hint.transport !== 'http' || !hint.path) return 0;
  if (hint.contentType?.toLowerCase().startsWith('text/event-stream')) return 0;
  if (apiRelativePath(hint.path) === undefined) return 0;
  const routes = routesForPath(hint.path);
  if (routes.length === 0) return 0;
  if (routes.every((r) => r.success[101]?.kind === 'upgrade')) return 0.4;
  if (hint.method && matchRoute(hint.method, hint.path)) return 0.95;
  return 0.8;
}

/** The route that made classifyPiRest claim a channel, for `show`. */
export function piRestChannelEvidence(hint: ChannelHint): string {
  const matched = hint.method && hint.path ? matchRoute(hint.method, hint.path) : undefined;
  if (matched) return `route ${describeRoute(matched.route)}`;
  const routes = hint.path ? routesForPath(hint.path) : [];
  return routes.length > 0 ? `path of route ${describeRoute(routes[0])}` : 'Pi daemon route';
}

/** What made sniffPiRest claim a lone message, for `show`. */
export function piRestMessageEvidence(value: unknown): string {
  return isEnvelope(value) ? 'Pi daemon envelope (apiVersion, ok)' : 'Pi daemon request body';
}

/** An envelope (`apiVersion` + boolean `ok`) is almost surely ours; a create/update/blob request body less so. */
export function sniffPiRest(value: unknown): number {
  if (isEnvelope(value)) return 0.9;
  if (!isJsonObject(value) || typeof value.requestId !== 'string') return 0;
  // sessionCreateRequest / sessionUpdateRequest: {requestId, spec: {cwd, target, ...}}.
  if (isJsonObject(value.spec) && 'cwd' in value.spec && !('idempotencyKey' in value)) return 0.6;
  // blobReservationRequest / blobMaterializationRequest.
  if (typeof value.expectedGeneration === 'number' && ('blobId' in value || 'sha256' in value)) return 0.5;
  return 0;
}

/** Envelopes come from the daemon; everything else is a request body. */
export function guessPiRestSender(value: unknown): 'client' | 'server' {
  return isEnvelope(value) ? 'server' : 'client';
}
