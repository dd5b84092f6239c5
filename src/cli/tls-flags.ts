import { Option } from 'commander';
import { UsageError } from '../core/errors.js';
import { LINE_PREFIX } from '../core/program-name.js';
import type { ListenTlsOptions } from '../net/listen-tls.js';
import type { UpstreamTlsOptions } from '../net/upstream-tls.js';
import { collect } from './option-parsers.js';

/** The TLS flags as commander hands them over. */
export interface TlsFlags {
  ca: string[];
  insecure?: boolean;
  tlsCert?: string;
  tlsKey?: string;
}

/** --ca, --insecure (the upstream) and --tls-cert, --tls-key (the listener), for record and replay. */
export function tlsFlagOptions(upstream: string): Option[] {
  return [
    new Option('--ca <pem>', `another CA certificate (PEM file) to trust for ${upstream}, besides Node's and NODE_EXTRA_CA_CERTS (repeatable)`).argParser(collect).default([]),
    new Option('--insecure', `do not check the certificate of ${upstream} (prints a warning on every start)`),
    new Option('--tls-cert <pem>', 'serve HTTPS and WSS with this certificate (chain), for clients that insist on https:// (with --tls-key)'),
    new Option('--tls-key <pem>', 'the private key for --tls-cert'),
  ];
}

/** The API options the flags stand for; refused when they cannot apply (`mode` names what was asked instead). */
export function tlsOptionsOf(flags: TlsFlags, mode?: string): { upstreamTls?: UpstreamTlsOptions; listenTls?: ListenTlsOptions } {
  const given = [flags.ca.length > 0 && '--ca', flags.insecure && '--insecure', flags.tlsCert !== undefined && '--tls-cert', flags.tlsKey !== undefined && '--tls-key'].filter(Boolean);
  if (mode && given.length > 0) throw new UsageError(`${given[0]} goes with the HTTP proxy, not ${mode}`);
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new UsageError(flags.tlsCert === undefined ? '--tls-key needs --tls-cert, the certificate it belongs to' : '--tls-cert needs --tls-key, its private key');
  }
  return {
    ...(flags.ca.length > 0 || flags.insecure ? { upstreamTls: { ca: flags.ca, insecure: Boolean(flags.insecure) } } : {}),
    ...(flags.tlsCert !== undefined && flags.tlsKey !== undefined ? { listenTls: { cert: flags.tlsCert, key: flags.tlsKey } } : {}),
  };
}

/** --insecure is said loudly on every start, so a forgotten one in a script does not go unnoticed. */
export function warnIfInsecure(flags: TlsFlags, target: string | undefined): void {
  if (!flags.insecure) return;
  process.stderr.write(`${LINE_PREFIX}WARNING: --insecure: the TLS certificate of ${target ?? 'the target'} is NOT checked; anyone on the network path can read and change this traffic\n`);
}
