/**
 * The one line that words an exchange's TLS facts: `show --exchange` prints core/tls-text.ts's, the
 * inspector's page draws its twin in ui/web/tls-line.ts (the page's scripts import only each
 * other). Both must say the same, for every kind of facts a recording holds.
 */
import { describe, expect, it } from 'vitest';
import type { TlsFacts } from '../../src/core/tls-facts.js';
import { tlsText } from '../../src/core/tls-text.js';
import { tlsLine } from '../../src/ui/web/tls-line.js';

const certificate = {
  subject: 'CN=localhost',
  issuer: 'CN=Test CA',
  validFrom: '2026-12-02T05:59:59.000Z',
  validTo: '2027-12-02T05:59:59.000Z',
  fingerprint256: 'AB:CD:EF',
};

const cases: Array<[name: string, facts: TlsFacts, text: string]> = [
  [
    'a checked connection',
    { protocol: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', ...certificate, authorized: true },
    'TLS 1.3 TLS_AES_256_GCM_SHA384 · CN=localhost issued by CN=Test CA · valid 2026-12-02T05:59:59Z→2027-12-02T05:59:59Z · sha256 AB:CD:EF',
  ],
  [
    'an unchecked one (--insecure)',
    { protocol: 'TLSv1.2', cipher: 'ECDHE-ECDSA-AES128-GCM-SHA256', ...certificate, authorized: false, authorizationError: 'CERT_HAS_EXPIRED' },
    'TLS 1.2 ECDHE-ECDSA-AES128-GCM-SHA256 · CN=localhost issued by CN=Test CA · valid 2026-12-02T05:59:59Z→2027-12-02T05:59:59Z · sha256 AB:CD:EF · not authorized: CERT_HAS_EXPIRED',
  ],
  ['a failed chain check: the code alone', { authorized: false, authorizationError: 'CERT_HAS_EXPIRED' }, 'TLS not authorized: CERT_HAS_EXPIRED'],
  [
    'a failed host-name check: with the certificate',
    { ...certificate, authorized: false, authorizationError: 'ERR_TLS_CERT_ALTNAME_INVALID' },
    'TLS CN=localhost issued by CN=Test CA · valid 2026-12-02T05:59:59Z→2027-12-02T05:59:59Z · sha256 AB:CD:EF · not authorized: ERR_TLS_CERT_ALTNAME_INVALID',
  ],
];

describe('the TLS line', () => {
  for (const [name, facts, text] of cases) {
    it(`${name}: show and the inspector word it the same`, () => {
      expect(tlsText(facts)).toBe(text);
      expect(tlsLine(facts)).toBe(text);
    });
  }
});
