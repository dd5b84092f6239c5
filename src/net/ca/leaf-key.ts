import type { webcrypto } from 'node:crypto';
import { EC_KEY_ALGORITHM } from './x509.js';

/** The key pair every leaf certificate of this process carries. */
export interface LeafKey {
  keys: webcrypto.CryptoKeyPair;
  /** The private key as PKCS#8 PEM, for a TLS context. */
  keyPem: string;
}

let processLeafKey: Promise<LeafKey> | undefined;

/**
 * One key for all the leaves this process mints (as mitmproxy does): a leaf then costs one
 * signature, not a key generation too (bench/forward-certs.js). The key never leaves memory and
 * every leaf names one host, so sharing it costs nothing a per-host key would protect.
 */
export function leafKey(): Promise<LeafKey> {
  processLeafKey ??= makeLeafKey();
  return processLeafKey;
}

async function makeLeafKey(): Promise<LeafKey> {
  const { webcrypto: { subtle }, KeyObject } = process.getBuiltinModule('node:crypto');
  const keys = (await subtle.generateKey(EC_KEY_ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  return { keys, keyPem: KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string };
}
