import type { webcrypto } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { DAY_MS, type WallClock } from './wall-clock.js';
import { EC_KEY_ALGORITHM, SIGNING_ALGORITHM, x509 } from './x509.js';

/** How long a CA is valid: long enough never to expire under a user, short enough to end some day. */
export const CA_LIFETIME_YEARS = 10;

/** Dated this far back, so a client whose clock is behind the proxy's still takes it. */
export const CA_BACKDATE_MS = 2 * DAY_MS;

/** A new CA's key and certificate, as PEM. */
export interface CaMaterial {
  keyPem: string;
  certPem: string;
}

/** The CA's common name: what it is and whose, as a user sees it in a trust store's list. */
export function caCommonName(): string {
  return `agent-proxy local CA (${userName()}@${hostname()})`;
}

/**
 * Makes a new CA: an ECDSA P-256 key and a self-signed certificate that may sign server
 * certificates and nothing below them (basicConstraints CA, pathlen 0; keyCertSign and cRLSign).
 */
export async function createCaMaterial(clock: WallClock): Promise<CaMaterial> {
  const lib = x509();
  const { webcrypto: { subtle }, KeyObject } = process.getBuiltinModule('node:crypto');
  const keys = (await subtle.generateKey(EC_KEY_ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = clock.now();
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CA_LIFETIME_YEARS);
  const certificate = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialNumber(),
    name: [{ CN: [caCommonName()] }, { O: ['agent-proxy'] }],
    notBefore: new Date(now - CA_BACKDATE_MS),
    notAfter,
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new lib.BasicConstraintsExtension(true, 0, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.keyCertSign | lib.KeyUsageFlags.cRLSign, true),
      await lib.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const keyPem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string;
  return { keyPem, certPem: `${certificate.toString('pem')}\n` };
}

/** 16 random bytes as hex, the first bit clear so it stays positive and all 16 are kept. */
export function randomSerialNumber(): string {
  const bytes = process.getBuiltinModule('node:crypto').randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x40;
  return bytes.toString('hex');
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    // A container's uid without a passwd entry.
    return process.env.USER ?? process.env.LOGNAME ?? 'user';
  }
}
