import type { webcrypto } from 'node:crypto';
import type { X509Certificate as PeculiarCertificate } from '@peculiar/x509';
import { randomSerialNumber } from './ca-certificate.js';
import type { LeafHost } from './leaf-host.js';
import type { LocalCa } from './local-ca.js';
import { DAY_MS, type WallClock } from './wall-clock.js';
import { EC_KEY_ALGORITHM, SIGNING_ALGORITHM, x509 } from './x509.js';

/** A leaf lives this long; a process re-mints one that is near its end (leaf-issuer.ts). */
export const LEAF_LIFETIME_DAYS = 30;

/** Dated this far back, so a client whose clock is behind the proxy's still takes it. */
export const LEAF_BACKDATE_MS = DAY_MS;

/** The CA, imported for signing once. */
export interface CaSigner {
  certificate: PeculiarCertificate;
  privateKey: webcrypto.CryptoKey;
}

export async function caSigner(ca: LocalCa): Promise<CaSigner> {
  const { webcrypto: { subtle }, createPrivateKey } = process.getBuiltinModule('node:crypto');
  const der = createPrivateKey(ca.keyPem).export({ type: 'pkcs8', format: 'der' });
  const privateKey = await subtle.importKey('pkcs8', der, EC_KEY_ALGORITHM, false, ['sign']);
  return { certificate: new (x509().X509Certificate)(ca.certPem), privateKey };
}

export interface MintedLeaf {
  certPem: string;
  validFrom: Date;
  validTo: Date;
}

/**
 * A server certificate for `hosts` (each in the subjectAltName by its kind, DNS name or IP address),
 * signed by the CA, carrying `publicKey`, with a random serial number.
 */
export async function mintLeafCertificate(signer: CaSigner, hosts: readonly LeafHost[], publicKey: webcrypto.CryptoKey, clock: WallClock): Promise<MintedLeaf> {
  const lib = x509();
  const now = clock.now();
  const validFrom = new Date(now - LEAF_BACKDATE_MS);
  const validTo = new Date(now + LEAF_LIFETIME_DAYS * DAY_MS);
  const first = hosts[0].name;
  const certificate = await lib.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    // A common name is at most 64 characters; the subjectAltName is what clients check anyway.
    subject: first.length <= 64 ? [{ CN: [first] }, { O: ['agent-proxy'] }] : [{ O: ['agent-proxy'] }],
    issuer: signer.certificate.subjectName,
    notBefore: validFrom,
    notAfter: validTo,
    publicKey,
    signingKey: signer.privateKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new lib.BasicConstraintsExtension(false, undefined, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature, true),
      new lib.ExtendedKeyUsageExtension([lib.ExtendedKeyUsage.serverAuth]),
      new lib.SubjectAlternativeNameExtension(hosts.map((host) => ({ type: host.kind, value: host.name }))),
      await lib.AuthorityKeyIdentifierExtension.create(signer.certificate.publicKey),
    ],
  });
  return { certPem: `${certificate.toString('pem')}\n`, validFrom, validTo };
}
