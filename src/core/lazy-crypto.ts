import type * as Crypto from 'node:crypto';

let loaded: typeof Crypto | undefined;

/**
 * node:crypto, loaded on first use. Loading it takes ~2.5 ms of a command's start on Node 20, and
 * the commands that start often (`replay` above all) need it only on a rare path: a body that is
 * not JSON, a request the recording cannot answer.
 */
export function lazyCrypto(): typeof Crypto {
  return (loaded ??= process.getBuiltinModule('node:crypto'));
}
