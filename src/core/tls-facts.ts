/**
 * What the proxy learnt of an upstream's TLS connection: the negotiated protocol and cipher, and
 * the certificate the upstream presented. Stored once per exchange (`exchanges.tls`, JSON); an
 * exchange that reused a keep-alive connection gets the facts of that connection. For a failed
 * certificate check only what the failure told is known (at least the check's code).
 * Type-only: the inspector page imports it.
 */
export interface TlsFacts {
  /** `TLSv1.3`, `TLSv1.2` …; absent when the handshake did not complete. */
  protocol?: string;
  /** The cipher suite's OpenSSL name (`TLS_AES_256_GCM_SHA384`). */
  cipher?: string;
  /** The certificate's subject as `CN=localhost, O=Example`. */
  subject?: string;
  /** Its issuer, written the same way. */
  issuer?: string;
  /** ISO 8601. */
  validFrom?: string;
  /** ISO 8601. */
  validTo?: string;
  /** SHA-256 of the certificate (DER), as colon-separated hex pairs. */
  fingerprint256?: string;
  /** Whether the certificate passed the check: false for a failure, and with --insecure for one that would have failed. */
  authorized: boolean;
  /** Node's code of the check that failed (`CERT_HAS_EXPIRED`, `ERR_TLS_CERT_ALTNAME_INVALID` …). */
  authorizationError?: string;
}
