import { stringifyJson } from '../../core/json-text.js';
import type { RecordingSecrets } from '../recording-secrets.js';
import { isJsonObject } from '../../core/json.js';

/**
 * Where a create/update body keeps its environment: `sessionCreateRequest` and `sessionUpdateRequest`
 * both carry `spec: sessionSpecInput`, whose `env` (`$defs/sessionEnvironment`) is write-only: the daemon
 * keeps the values in memory and answers only with `environment: {keys, digest?, persistence, provisioned}`.
 */
export const SESSION_ENV_POINTER = '/spec/env';

/** Each value of that `env`, in the notation of field specs. */
export const SESSION_ENV_VALUES = '/spec/env/*';

/** The `spec.env` object of a create/update body, when there is one. */
export function sessionEnvOf(body: unknown): Record<string, unknown> | undefined {
  if (!isJsonObject(body) || !isJsonObject(body.spec)) return undefined;
  const env = body.spec.env;
  return isJsonObject(env) ? env : undefined;
}

/**
 * A value that is also a JSON literal or number (`"true"`, `"null"`, `"8080"`, `"4096"`) matches the
 * syntax of every server message, not just its strings: `"ok":true`, `"maxBlobs":256`. The tracker
 * matches text, so such a value would be reported as leaked by every message carrying that literal,
 * and replacing it in the JSON text leaves a document that no longer parses.
 */
const JSON_LITERAL = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;

/**
 * Tells the tracker about every env value of a create/update body, so a server echo is caught.
 * Values that read as JSON literals are left out (see JSON_LITERAL); like every env value they are
 * still never stored with the request (`redactSessionEnv`).
 */
export function registerSessionEnv(body: unknown, secrets: RecordingSecrets): void {
  const env = sessionEnvOf(body);
  if (!env) return;
  secrets.registerEnv(Object.fromEntries(Object.entries(env).filter(([, value]) => !(typeof value === 'string' && JSON_LITERAL.test(value)))));
}

/**
 * A copy of a create/update body that is safe to store: each `spec.env` value becomes
 * `secrets.digest(value)` (`hmac-sha256:<hex>`, keyed per recording session), the keys stay. Only the
 * path to `env` is copied; other parts are shared with the input, which is never modified. Bodies
 * without `spec.env` come back as they are. A non-string value (invalid, but maybe still sensitive) is
 * digested from its JSON text.
 */
export function redactSessionEnv<T>(body: T, secrets: Pick<RecordingSecrets, 'digest'>): T {
  const env = sessionEnvOf(body);
  if (!env) return body;
  const redacted: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    redacted[key] = secrets.digest(typeof value === 'string' ? value : stringifyJson(value) ?? String(value));
  }
  const outer = body as Record<string, unknown> & { spec: Record<string, unknown> };
  return { ...outer, spec: { ...outer.spec, env: redacted } } as T;
}
