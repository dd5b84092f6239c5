import { isJsonObject } from '../../core/json.js';

/** The fields every Pi REST response body shares (`$defs/apiEnvelopeBase`). */
export interface EnvelopeLike {
  apiVersion: unknown;
  ok: boolean;
  requestId?: unknown;
  data?: unknown;
  error?: unknown;
  [key: string]: unknown;
}

/** `{apiVersion, ok: boolean, ...}`: how every daemon response body starts, success or error. */
export function isEnvelope(value: unknown): value is EnvelopeLike {
  return isJsonObject(value) && 'apiVersion' in value && typeof value.ok === 'boolean';
}
