import { readFileSync } from 'node:fs';
import type * as Tls from 'node:tls';
import { UsageError } from '../core/errors.js';
import { readPemFile } from './pem-file.js';
import { isTlsTarget, type TargetAddress } from './addresses.js';

/** How the proxy checks an `https://` / `wss://` upstream's certificate (public API and CLI flags). */
export interface UpstreamTlsOptions {
  /** PEM files of more certificate authorities to trust, besides Node's and NODE_EXTRA_CA_CERTS (`--ca`, repeatable). */
  ca?: string[];
  /** Do not check the upstream's certificate at all (`--insecure`): anyone on the path can read the traffic. */
  insecure?: boolean;
}

/** The options node:https and ws take for the upstream leg, read once at start. */
export interface UpstreamTls {
  /**
   * Node's CAs plus the --ca ones, built into one context at start; undefined keeps Node's default store.
   * Passing `ca` instead would build the trust store again for every new upstream connection.
   */
  secureContext?: Tls.SecureContext;
  rejectUnauthorized: boolean;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** --ca and --insecure say how to check a certificate: an http:// or unix: target has none. */
export function checkUpstreamTlsTarget(target: TargetAddress, options: UpstreamTlsOptions | undefined): void {
  if (isTlsTarget(target) || options === undefined) return;
  const flag = (options.ca?.length ?? 0) > 0 ? '--ca' : options.insecure ? '--insecure' : undefined;
  if (flag) throw new UsageError(`${flag} goes with an https:// target, not '${target.display}'`);
}

// node:tls and node:crypto are loaded only with --ca: a recorder of an http:// target never needs
// them, and loading them (with node:https) costs ~5 ms of every `record` start on Node 20.

/** Reads the --ca files at start; an unreadable file or one without a certificate is a usage error. */
export function loadUpstreamTls(options: UpstreamTlsOptions = {}): UpstreamTls {
  const insecure = Boolean(options.insecure);
  const files = options.ca ?? [];
  if (files.length === 0) return { rejectUnauthorized: !insecure };
  const extra = files.flatMap(readCaFile);
  // A `ca` option replaces Node's store, so the default CAs are listed with the added ones.
  return { secureContext: process.getBuiltinModule('node:tls').createSecureContext({ ca: [...defaultCertificates(), ...extra] }), rejectUnauthorized: !insecure };
}

function readCaFile(file: string): string[] {
  const text = readPemFile(file, '--ca').toString('utf8');
  const certificates = text.match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0) throw new UsageError(`--ca '${file}' holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)`);
  const { X509Certificate } = process.getBuiltinModule('node:crypto');
  for (const pem of certificates) {
    try {
      new X509Certificate(pem);
    } catch (error) {
      throw new UsageError(`--ca '${file}' holds a certificate that cannot be parsed: ${(error as Error).message}`);
    }
  }
  return certificates;
}

/** Node's default trust: its bundled CAs and NODE_EXTRA_CA_CERTS (what a request without `ca` trusts). */
function defaultCertificates(): string[] {
  const tls = process.getBuiltinModule('node:tls');
  const getCACertificates = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
  if (getCACertificates) return getCACertificates('default');
  // Node before 22.15: the bundled list, and the extra file read as Node reads it (a missing one is Node's warning, not ours).
  const extraFile = process.env.NODE_EXTRA_CA_CERTS;
  let extra: string[] = [];
  if (extraFile) {
    try {
      extra = readFileSync(extraFile, 'utf8').match(PEM_CERTIFICATE) ?? [];
    } catch {
      extra = [];
    }
  }
  return [...tls.rootCertificates, ...extra];
}
