import type { Socket } from 'node:net';

/** Which check an upstream's TLS failed, as the 502 and the recording say it. */
export type TlsCheck = 'expired' | 'not-yet-valid' | 'host-name' | 'untrusted' | 'certificate' | 'handshake';

export interface TlsFailure {
  check: TlsCheck;
  /** Node's (OpenSSL's) code: CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID … */
  nodeCode: string;
  /** One sentence: what failed, for which upstream, and what to do about it. */
  message: string;
}

const UNTRUSTED_HINT = "add its CA with --ca <pem> (or NODE_EXTRA_CA_CERTS), or skip the check with --insecure";

const CERTIFICATE_CHECKS: Readonly<Record<string, { check: TlsCheck; text: string }>> = {
  CERT_HAS_EXPIRED: { check: 'expired', text: 'its certificate has expired' },
  CERT_NOT_YET_VALID: { check: 'not-yet-valid', text: 'its certificate is not valid yet' },
  ERR_TLS_CERT_ALTNAME_INVALID: { check: 'host-name', text: 'its certificate is for another host name' },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: { check: 'untrusted', text: `its certificate's issuer is unknown; ${UNTRUSTED_HINT}` },
  UNABLE_TO_GET_ISSUER_CERT: { check: 'untrusted', text: `its certificate's issuer is unknown; ${UNTRUSTED_HINT}` },
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: { check: 'untrusted', text: `its certificate's issuer is unknown; ${UNTRUSTED_HINT}` },
  SELF_SIGNED_CERT_IN_CHAIN: { check: 'untrusted', text: `its certificate chain ends in an untrusted self-signed CA; ${UNTRUSTED_HINT}` },
  DEPTH_ZERO_SELF_SIGNED_CERT: { check: 'untrusted', text: `its certificate is self-signed and not trusted; ${UNTRUSTED_HINT}` },
  CERT_UNTRUSTED: { check: 'untrusted', text: `its certificate is not trusted; ${UNTRUSTED_HINT}` },
  CERT_REVOKED: { check: 'certificate', text: 'its certificate has been revoked' },
  CERT_SIGNATURE_FAILURE: { check: 'certificate', text: "its certificate's signature is invalid" },
  CERT_CHAIN_TOO_LONG: { check: 'certificate', text: 'its certificate chain is too long' },
  INVALID_CA: { check: 'certificate', text: 'a CA certificate in its chain is invalid' },
  INVALID_PURPOSE: { check: 'certificate', text: 'its certificate may not be used for a TLS server' },
  HOSTNAME_MISMATCH: { check: 'host-name', text: 'its certificate is for another host name' },
};

/**
 * What an upstream connection error says about TLS, or undefined when it is no TLS failure (a
 * refused connection stays "unreachable"). Certificate codes come from Node's verification; a
 * handshake that fails before that (an upstream that does not speak TLS) has an OpenSSL code.
 */
export function tlsFailureOf(error: NodeJS.ErrnoException & { reason?: string }, upstream: string): TlsFailure | undefined {
  const code = error.code;
  if (code === undefined) return undefined;
  const known = CERTIFICATE_CHECKS[code];
  if (known) {
    // For a wrong host name Node says which names the certificate has: "Host: x. is not in the cert's altnames: DNS:y".
    const detail = known.check === 'host-name' && error.reason ? ` (${error.reason})` : '';
    return { check: known.check, nodeCode: code, message: `TLS certificate check of ${upstream} failed: ${known.text}${detail} [${code}]` };
  }
  if (code.startsWith('ERR_SSL_') || (code === 'EPROTO' && /SSL routines|TLS/i.test(error.message))) {
    const reason = /:([a-z0-9 _]+):[^:]*:\d+:?\s*$/i.exec(error.message)?.[1] ?? error.message;
    const hint = /wrong version number|packet length too long|http request/i.test(reason) ? ' (does it speak TLS on that port? try http://)' : '';
    return { check: 'handshake', nodeCode: code, message: `TLS handshake with ${upstream} failed: ${reason}${hint} [${code}]` };
  }
  return undefined;
}

/** The `tls` field of the proxy's 502 for a TLS failure. */
export function tlsAnswerFields(failure: Pick<TlsFailure, 'check' | 'nodeCode'>): { tls: { check: TlsCheck; code: string } } {
  return { tls: { check: failure.check, code: failure.nodeCode } };
}

/**
 * The same field again from a stored error message (replay sends the recorded 502 again, and the
 * recording keeps only the message): its trailing `[CODE]` names the check.
 */
export function tlsAnswerFieldsOfMessage(message: string | null | undefined): { tls: { check: TlsCheck; code: string } } | Record<string, never> {
  const code = message ? /\[([A-Z0-9_]+)\]$/.exec(message)?.[1] : undefined;
  if (code === undefined) return {};
  const check = CERTIFICATE_CHECKS[code]?.check ?? 'handshake';
  return tlsAnswerFields({ check, nodeCode: code });
}

/**
 * Follows an upstream request's socket through its TCP connect and TLS handshake. The returned check
 * is true once the upstream was reached but before its TLS was set up: an error then (a reset or a
 * close right after the client hello) is a failed handshake, not an upstream that cannot be reached.
 */
export function watchHandshake(request: { once(event: 'socket', listener: (socket: Socket) => void): unknown }): () => boolean {
  let reached = false;
  let secured = false;
  request.once('socket', (socket) => {
    // A kept-alive socket was reached and secured on an earlier request.
    if (!socket.connecting) {
      reached = secured = true;
      return;
    }
    socket.once('connect', () => (reached = true));
    socket.once('secureConnect', () => (secured = true));
  });
  return () => reached && !secured;
}

/** The failure of a handshake the upstream cut short after it was reached (see watchHandshake). */
export function handshakeCutFailure(error: NodeJS.ErrnoException, upstream: string): TlsFailure {
  const code = error.code ?? 'ECONNRESET';
  return {
    check: 'handshake',
    nodeCode: code,
    message: `TLS handshake with ${upstream} failed: the upstream closed the connection before the handshake completed (does it speak TLS on that port?) [${code}]`,
  };
}
