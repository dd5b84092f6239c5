import { ExchangeErrorCode } from './errors.js';
import { error, type Finding } from './finding.js';
import type { TlsFacts } from './tls-facts.js';

/**
 * Findings of an exchange itself rather than of one of its messages: what went wrong has no message
 * to sit on (the proxy answered in the upstream's place, and stored no answer). They are made from
 * the stored exchange whenever a recording is read, so recordings made before a rule have it too;
 * `findings` lists them with seq 0, and `validate` of a recording reports them.
 */

/** The upstream's TLS failed (E_UPSTREAM_TLS): an error, saying which check failed. */
export const UPSTREAM_TLS_FAILED = 'upstream-tls-failed';

/**
 * The upstream could not be reached: an error, since the agent never answered. Over HTTP and
 * WebSocket (E_UPSTREAM_UNREACHABLE: connection refused, no such host, a timeout) the client got the
 * proxy's 502 instead; an NDJSON socket that is not there or refuses (E_UPSTREAM_UNREACHABLE, E_UPSTREAM
 * in older recordings); a stdio agent that could not be started (E_SPAWN) or exited before its first
 * line (E_AGENT_EXITED_EARLY).
 */
export const UPSTREAM_UNREACHABLE = 'upstream-unreachable';

/**
 * An intercepted client's TLS handshake with the forward proxy failed (E_CLIENT_TLS): an error, since
 * nothing that client sent reached the host or the recording. Almost always a client that does not
 * trust the local CA; the stored message names the host, says which failure it was and how to fix it.
 */
export const CLIENT_TLS_FAILED = 'client-tls-failed';

/** What the finding says for each stored code of an unreachable upstream. */
const UNREACHABLE_TEXT: Readonly<Record<string, string>> = {
  [ExchangeErrorCode.E_UPSTREAM_UNREACHABLE]: 'the upstream could not be reached',
  [ExchangeErrorCode.E_UPSTREAM]: 'the upstream could not be reached',
  [ExchangeErrorCode.E_SPAWN]: 'the agent could not be started',
  [ExchangeErrorCode.E_AGENT_EXITED_EARLY]: 'the agent exited before it wrote a line',
};

/** What an exchange-level rule reads of the exchange. */
export interface ExchangeFindingInput {
  errorCode: string | null;
  errorMessage: string | null;
  tls: TlsFacts | null;
}

/** The stored codes that have an exchange-level finding, one each (queries pick those exchanges, and `show`'s totals count them). */
export const CODES_WITH_EXCHANGE_FINDINGS: readonly string[] = [ExchangeErrorCode.E_UPSTREAM_TLS, ExchangeErrorCode.E_CLIENT_TLS, ...Object.keys(UNREACHABLE_TEXT)];

/** Node's codes of a failed certificate check, by what the finding calls the failure. */
const FAILED_CHECK: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: 'expired certificate',
  CERT_NOT_YET_VALID: 'certificate not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'certificate for the wrong host',
  HOSTNAME_MISMATCH: 'certificate for the wrong host',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate from an unknown issuer',
  UNABLE_TO_GET_ISSUER_CERT: 'certificate from an unknown issuer',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate from an unknown issuer',
  SELF_SIGNED_CERT_IN_CHAIN: 'certificate from an unknown issuer (self-signed CA)',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'certificate from an unknown issuer (self-signed)',
  CERT_UNTRUSTED: 'certificate from an unknown issuer',
};

export function exchangeFindings(exchange: ExchangeFindingInput): Finding[] {
  const unreachable = exchange.errorCode !== null && Object.hasOwn(UNREACHABLE_TEXT, exchange.errorCode) ? UNREACHABLE_TEXT[exchange.errorCode] : undefined;
  if (unreachable !== undefined) return [error(UPSTREAM_UNREACHABLE, '', `${unreachable}${exchange.errorMessage ? ` (${exchange.errorMessage})` : ''}`)];
  if (exchange.errorCode === ExchangeErrorCode.E_CLIENT_TLS) {
    return [error(CLIENT_TLS_FAILED, '', `the client's TLS handshake with the forward proxy failed, so nothing it sent was forwarded or recorded: ${exchange.errorMessage ?? 'it probably does not trust the local CA (agent-proxy ca --env prints how to trust it)'}`)];
  }
  if (exchange.errorCode !== ExchangeErrorCode.E_UPSTREAM_TLS) return [];
  // The recorded facts name the code; a recording made before them has it at the end of the message.
  const code = exchange.tls?.authorizationError ?? (exchange.errorMessage ? /\[([A-Z0-9_]+)\]$/.exec(exchange.errorMessage)?.[1] : undefined);
  const failed = (code !== undefined ? FAILED_CHECK[code] : undefined) ?? 'TLS handshake or other certificate failure';
  return [error(UPSTREAM_TLS_FAILED, '', `the upstream's TLS failed: ${failed}${exchange.errorMessage ? ` (${exchange.errorMessage})` : ''}`)];
}
