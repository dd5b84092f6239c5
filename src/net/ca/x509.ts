import type { webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as X509 from '@peculiar/x509';

export type X509Module = typeof X509;

let loaded: X509Module | undefined;

/**
 * @peculiar/x509, loaded on first use and set to sign with Node's WebCrypto. It is the one module
 * that loads it: the library's decorators need `reflect-metadata` loaded before it (it throws
 * otherwise), which a require here orders, and only the commands that mint certificates pay for
 * loading it (it is CommonJS, so it loads synchronously, bundled CLI or not).
 */
export function x509(): X509Module {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  require('reflect-metadata');
  const library = require('@peculiar/x509') as X509Module;
  library.cryptoProvider.set(process.getBuiltinModule('node:crypto').webcrypto as unknown as Parameters<X509Module['cryptoProvider']['set']>[0]);
  return (loaded = library);
}

/** ECDSA on P-256 for every key: fast to make and to sign with, accepted by Node, curl, Python and browsers. */
export const EC_KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };

/** What every certificate is signed with. */
export const SIGNING_ALGORITHM: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };
