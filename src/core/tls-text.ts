import type { TlsFacts } from './tls-facts.js';

/**
 * An exchange's TLS facts on one line, as `show --exchange` prints them (the inspector's page has
 * its twin in ui/web/tls-line.ts, as its scripts import only each other; a test keeps them equal):
 * `TLS 1.3 TLS_AES_256_GCM_SHA384 · CN=localhost issued by CN=Test CA · valid …→… · sha256 AB:…`,
 * ending in `not authorized: CODE` for a certificate that failed the check.
 */
export function tlsText(tls: TlsFacts): string {
  const head = tls.protocol === undefined ? 'TLS' : [tls.protocol.replace(/^TLSv/, 'TLS '), tls.cipher].filter(Boolean).join(' ');
  const parts: string[] = [];
  if (tls.subject !== undefined) parts.push(tls.issuer === undefined ? tls.subject : `${tls.subject} issued by ${tls.issuer}`);
  if (tls.validFrom !== undefined && tls.validTo !== undefined) parts.push(`valid ${tls.validFrom.replace(/\.000Z$/, 'Z')}→${tls.validTo.replace(/\.000Z$/, 'Z')}`);
  if (tls.fingerprint256 !== undefined) parts.push(`sha256 ${tls.fingerprint256}`);
  if (!tls.authorized) parts.push(`not authorized${tls.authorizationError ? `: ${tls.authorizationError}` : ''}`);
  if (parts.length === 0) return head;
  return `${head}${tls.protocol === undefined ? ' ' : ' · '}${parts.join(' · ')}`;
}
