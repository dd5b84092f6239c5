import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { ExchangeErrorCode } from '../core/errors.js';

/**
 * Exchange error codes of the answers the proxy gives in the upstream's place, with the
 * `error.code` of the JSON error it sends. Such an exchange stores the proxy's status and no
 * response headers; replay sends the same JSON error again.
 */
const ANSWER_CODES = {
  E_INVALID_UPGRADE: 'invalid_upgrade',
  E_UPSTREAM_UNREACHABLE: 'upstream_unreachable',
  E_UPSTREAM_INVALID_RESPONSE: 'upstream_invalid_response',
  E_UPSTREAM_HANDSHAKE: 'upstream_handshake_failed',
  E_UPSTREAM_TLS: 'upstream_tls_failed',
  E_PROXY_SHUTDOWN: 'proxy_shutting_down',
} as const satisfies Partial<Record<ExchangeErrorCode, string>>;

/** The exchange codes of the answers the proxy gives in the upstream's place. */
export type ProxyAnswerErrorCode = keyof typeof ANSWER_CODES;

/** For replay, which looks up a stored code: the JSON error's code, or undefined for a code of no proxy answer. */
export const PROXY_ANSWER_CODES: Readonly<Record<string, string>> = ANSWER_CODES;

/**
 * The answers that stand for a failed upstream: their JSON error names the target. Listed, not
 * matched by prefix, so that a new `E_UPSTREAM…` code (E_UPSTREAM_RESET is one, and no answer of
 * the proxy's) is added here on purpose or not at all.
 */
const UPSTREAM_FAILURES: ReadonlySet<string> = new Set<ProxyAnswerErrorCode>(['E_UPSTREAM_UNREACHABLE', 'E_UPSTREAM_INVALID_RESPONSE', 'E_UPSTREAM_HANDSHAKE', 'E_UPSTREAM_TLS']);

/** True when a stored code is one of the proxy's answers for a failed upstream (whose JSON error names the target). */
export function isUpstreamFailureAnswer(errorCode: string | null | undefined): boolean {
  return errorCode != null && UPSTREAM_FAILURES.has(errorCode);
}

/** The `error.code` of the JSON error the proxy answers with, for the exchange code it stores. */
export function proxyAnswerCode(errorCode: ProxyAnswerErrorCode): string {
  return ANSWER_CODES[errorCode];
}

/**
 * Answers with a JSON document of the proxy's own. Anything already set on the response for
 * another answer (a writeHead that threw leaves its status, reason and some headers behind) is
 * replaced, so the client gets exactly this.
 */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  const body = JSON.stringify(value);
  res.writeHead(status, STATUS_CODES[status] ?? 'Error', { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
