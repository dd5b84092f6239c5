import type { DetailedPeerCertificate, PeerCertificate, TLSSocket } from 'node:tls';
import type { TlsFacts } from '../core/tls-facts.js';

/**
 * Reads the TLS facts of an upstream connection once: keep-alive connections serve many exchanges,
 * and each gets the same (shared, never mutated) object without asking OpenSSL again.
 */
const factsBySocket = new WeakMap<TLSSocket, TlsFacts>();

/** The facts of the connection an upstream answer came on; undefined when it is not TLS. */
export function tlsFactsOf(socket: unknown): TlsFacts | undefined {
  // `encrypted` is always true on a TLSSocket and absent on a plain one (Node's documented way to tell
  // them apart), which spares a plain-HTTP recorder loading node:tls for an instanceof.
  if ((socket as Partial<TLSSocket> | null | undefined)?.encrypted !== true) return undefined;
  const tlsSocket = socket as TLSSocket;
  let facts = factsBySocket.get(tlsSocket);
  if (facts === undefined) {
    facts = readFacts(tlsSocket);
    factsBySocket.set(tlsSocket, facts);
  }
  return facts;
}

/**
 * What a failed TLS connection tells: the failed check's code, and the certificate when the error
 * carries it (Node's host-name check does). A failed chain check ends the socket before its
 * certificate can be read, so for an expired or untrusted certificate the code is all there is.
 */
export function tlsFactsOfFailure(error: unknown, nodeCode: string): TlsFacts {
  const cert = (error as { cert?: PeerCertificate } | null)?.cert;
  return { ...(cert ? certificateFacts(cert) : {}), authorized: false, authorizationError: nodeCode };
}

function readFacts(socket: TLSSocket): TlsFacts {
  const facts: TlsFacts = { protocol: socket.getProtocol() ?? undefined, cipher: socket.getCipher()?.name, ...certificateFacts(socket.getPeerCertificate()), authorized: socket.authorized };
  const error = socket.authorizationError as unknown as Error | string | null | undefined;
  if (!socket.authorized && error) facts.authorizationError = typeof error === 'string' ? error : ((error as NodeJS.ErrnoException).code ?? error.message);
  return facts;
}

function certificateFacts(cert: PeerCertificate | DetailedPeerCertificate | null | undefined): Partial<TlsFacts> {
  // An empty object when the peer sent none.
  if (!cert || !cert.subject) return {};
  return {
    subject: distinguishedName(cert.subject),
    issuer: distinguishedName(cert.issuer),
    validFrom: isoDate(cert.valid_from),
    validTo: isoDate(cert.valid_to),
    fingerprint256: cert.fingerprint256,
  };
}

/** `{CN: 'localhost', O: ['a', 'b']}` → `CN=localhost, O=a, O=b`, in the certificate's order. */
function distinguishedName(name: object | undefined): string | undefined {
  if (!name) return undefined;
  const parts: string[] = [];
  for (const [key, value] of Object.entries(name) as Array<[string, string | string[]]>) {
    for (const one of Array.isArray(value) ? value : [value]) parts.push(`${key}=${one}`);
  }
  return parts.join(', ');
}

/** OpenSSL's `Dec  2 05:59:59 2026 GMT` as ISO 8601; kept as given if it does not parse. */
function isoDate(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? text : new Date(time).toISOString();
}
