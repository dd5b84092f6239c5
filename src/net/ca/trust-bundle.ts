import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalCa } from './local-ca.js';

/** Where Linux distributions and macOS keep the system's CA bundle, most common first. */
export const SYSTEM_CA_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt', // Debian, Ubuntu, Arch, Gentoo
  '/etc/pki/tls/certs/ca-bundle.crt', // Fedora, RHEL, CentOS
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem', // RHEL's extracted bundle
  '/etc/ssl/ca-bundle.pem', // openSUSE
  '/etc/ssl/cert.pem', // macOS, Alpine, the BSDs
];

/** The bundle written: the CA's certificate after the system's CAs. */
export interface TrustBundle {
  file: string;
  /** Where the system's CAs were taken from: a bundle file, or Node's own copy of Mozilla's list when none was found. */
  systemSource: string;
}

export const NODE_ROOTS_SOURCE = "Node's built-in root certificates";

/**
 * Writes `ca-bundle.pem` in the CA's folder: the system's CAs followed by the local CA. SSL_CERT_FILE,
 * REQUESTS_CA_BUNDLE and CURL_CA_BUNDLE replace a client's CA list rather than add to it, so they
 * are given this file: the client then trusts what it trusted before, and the proxy's leaves too.
 * An SSL_CERT_FILE already set (and not this bundle) is taken as the system's list.
 */
export function writeTrustBundle(ca: LocalCa, env: NodeJS.ProcessEnv = process.env, candidates: readonly string[] = SYSTEM_CA_BUNDLES): TrustBundle {
  const file = join(ca.dir, 'ca-bundle.pem');
  const fromEnv = env.SSL_CERT_FILE !== undefined && env.SSL_CERT_FILE !== '' && env.SSL_CERT_FILE !== file ? [env.SSL_CERT_FILE] : [];
  let system: { source: string; text: string } | undefined;
  for (const candidate of [...fromEnv, ...candidates]) {
    const text = readCertificates(candidate);
    if (text !== undefined) {
      system = { source: candidate, text };
      break;
    }
  }
  system ??= { source: NODE_ROOTS_SOURCE, text: process.getBuiltinModule('node:tls').rootCertificates.join('\n') };
  const content = `${system.text.trimEnd()}\n\n# ${ca.subject.replace(/\n/g, ', ')}\n${ca.certPem}`;
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // written below
  }
  if (current !== content) {
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, content, { mode: 0o644 });
    renameSync(temp, file);
  }
  return { file, systemSource: system.source };
}

/** A readable file that holds at least one certificate, else undefined. */
function readCertificates(file: string): string | undefined {
  try {
    const text = readFileSync(file, 'utf8');
    return text.includes('-----BEGIN CERTIFICATE-----') ? text : undefined;
  } catch {
    return undefined;
  }
}
