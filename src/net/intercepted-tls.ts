import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { CaError, ExchangeErrorCode } from '../core/errors.js';
import type { LeafIssuer } from './ca/leaf-issuer.js';

/** Why an intercepted client's handshake failed. */
export type ClientTlsCheck =
  /** The client refused the proxy's certificate: it does not trust the local CA. */
  | 'untrusted'
  /** No certificate can be made for the name the client asked for (CaError E_CA_HOST_NAME). */
  | 'no-certificate'
  /** The client spoke something other than TLS, or TLS the proxy does not take. */
  | 'handshake'
  /** The client closed the connection (or never finished) before the handshake did. */
  | 'closed';

/**
 * An intercepted client's TLS handshake failed; the client's socket is destroyed. Never raised to a
 * caller: record --forward stores it on the CONNECT's exchange, hence a stored code (ExchangeErrorCode).
 */
export class ClientTlsError extends Error {
  readonly code = ExchangeErrorCode.E_CLIENT_TLS;
  constructor(
    readonly check: ClientTlsCheck,
    /** The CONNECT host. */
    readonly host: string,
    /** Node's (OpenSSL's) code, when there is one: ERR_SSL_TLSV1_ALERT_UNKNOWN_CA … */
    readonly nodeCode: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ClientTlsError';
  }
}

export interface InterceptTlsOptions {
  issuer: LeafIssuer;
  /** The host of the CONNECT request (no port): the certificate for a client that sends no SNI. */
  connectHost: string;
  /** Bytes read past the CONNECT request's head (the `connect` event's `head`): the start of the client's hello. */
  head?: Buffer;
  /** A client that has not finished its handshake by then is dropped (default 60 s). */
  handshakeTimeoutMs?: number;
}

/** The alerts a client sends when it does not accept the proxy's certificate. */
const REFUSED_CERTIFICATE = new Set([
  'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
  'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
  'ERR_SSL_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE',
  'ERR_SSL_TLSV1_ALERT_ACCESS_DENIED',
]);

const TRUST_HINT = 'make it trust the local CA: eval "$(agent-proxy ca --env)", or see docs/forward.md';

/**
 * Serves TLS on a client socket that was just answered `200` to its CONNECT: the leaf for the name
 * it sends by SNI (else for the CONNECT host), HTTP/1.1 by ALPN. Resolves with the TLS socket once
 * the handshake is done, ready for `httpServer.emit('connection', socket)` (in the same callback: until
 * then nothing listens for its errors); a failed handshake
 * rejects with a ClientTlsError saying why, and the socket is destroyed. Nothing the client sends
 * throws past this function.
 *
 * A client that verifies the certificate only after the handshake (Node's does) and then closes
 * is not seen here: its handshake succeeds, and its connection ends without a request.
 */
export async function interceptTls(socket: Socket, options: InterceptTlsOptions): Promise<TLSSocket> {
  const { issuer, connectHost } = options;
  // The TLS socket reports what happens to the connection (as a failure below, or to its owner):
  // an error the raw socket still emits (a reset while the leaf is minted) must not end the process.
  socket.on('error', () => undefined);
  let fallback;
  try {
    fallback = await issuer.secureContextFor(connectHost);
  } catch (error) {
    socket.destroy();
    throw failureOf(error, connectHost);
  }
  // Ended while the leaf was minted: a TLS socket put on it now would wait for bytes that never come.
  if (socket.destroyed || socket.readableEnded) {
    socket.destroy();
    throw new ClientTlsError('closed', connectHost, undefined, `the client of CONNECT ${connectHost} closed the connection before its TLS handshake`);
  }
  if (options.head !== undefined && options.head.length > 0) socket.unshift(options.head);
  const { TLSSocket } = process.getBuiltinModule('node:tls');
  const tls = new TLSSocket(socket, {
    isServer: true,
    secureContext: fallback,
    SNICallback: issuer.sniCallback(),
    ALPNProtocols: ['http/1.1'],
  });
  return new Promise<TLSSocket>((resolve, reject) => {
    const fail = (error: ClientTlsError) => {
      clearTimeout(timer);
      tls.off('secure', onSecure);
      tls.off('close', onClose);
      tls.off('end', onClose);
      // Later errors of this dead socket (a write after the peer's reset) stay here.
      tls.on('error', () => undefined);
      tls.destroy();
      socket.destroy();
      reject(error);
    };
    const onSecure = () => {
      clearTimeout(timer);
      tls.off('error', onError);
      tls.off('close', onClose);
      tls.off('end', onClose);
      resolve(tls);
    };
    const onError = (error: Error) => fail(failureOf(error, connectHost));
    // A client that refuses the certificate may just close (Node's does, with no alert): 'end' on a
    // half-open socket (http.Server's CONNECT sockets are), 'close' otherwise.
    const onClose = () =>
      fail(new ClientTlsError('closed', connectHost, undefined, `the client of CONNECT ${connectHost} closed the connection before its TLS handshake finished (a client that does not trust the local CA does that: ${TRUST_HINT})`));
    const timer = setTimeout(
      () => fail(new ClientTlsError('closed', connectHost, undefined, `the client of CONNECT ${connectHost} did not finish its TLS handshake in ${options.handshakeTimeoutMs ?? 60_000} ms`)),
      options.handshakeTimeoutMs ?? 60_000,
    );
    timer.unref();
    tls.once('secure', onSecure);
    tls.once('error', onError);
    tls.once('close', onClose);
    tls.once('end', onClose);
  });
}

function failureOf(error: unknown, host: string): ClientTlsError {
  if (error instanceof CaError) return new ClientTlsError('no-certificate', host, error.code, `no certificate for the client of CONNECT ${host}: ${error.message}`, { cause: error });
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && REFUSED_CERTIFICATE.has(code)) {
    return new ClientTlsError('untrusted', host, code, `the client of CONNECT ${host} does not trust the local CA: it refused the proxy's certificate (${alertOf(error as Error)}); ${TRUST_HINT} [${code}]`, { cause: error });
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    return new ClientTlsError('closed', host, code, `the client of CONNECT ${host} closed the connection during its TLS handshake (a client that does not trust the local CA may do that: ${TRUST_HINT}) [${code}]`, { cause: error });
  }
  return new ClientTlsError('handshake', host, code, `the TLS handshake with the client of CONNECT ${host} failed: ${alertOf(error as Error)}${code ? ` [${code}]` : ''}`, { cause: error });
}

/** OpenSSL's reason in a TLS error message ("tlsv1 alert unknown ca"), else the message. */
function alertOf(error: Error): string {
  return /routines:[^:]*:([^:]+):/.exec(error.message)?.[1] ?? error.message;
}
