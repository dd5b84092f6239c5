import { UsageError } from '../core/errors.js';
import { readPemFile } from './pem-file.js';

/** Files of the certificate (chain) and key the listener serves HTTPS with (`--tls-cert`, `--tls-key`). */
export interface ListenTlsOptions {
  cert: string;
  key: string;
}

/** The PEM contents, read and checked at start. */
export interface ListenTls {
  cert: Buffer;
  key: Buffer;
}

/** Reads both files and checks that they make a TLS context (the key belongs to the certificate); else a usage error. */
export function loadListenTls(options: ListenTlsOptions): ListenTls {
  const cert = readPem(options.cert, '--tls-cert');
  const key = readPem(options.key, '--tls-key');
  try {
    // node:tls is loaded here, by the listeners that serve TLS, not by every one that might.
    process.getBuiltinModule('node:tls').createSecureContext({ cert, key });
  } catch (error) {
    throw new UsageError(`--tls-cert '${options.cert}' and --tls-key '${options.key}' cannot serve TLS: ${(error as Error).message}`);
  }
  return { cert, key };
}

function readPem(file: string, flag: string): Buffer {
  return readPemFile(file, flag);
}
