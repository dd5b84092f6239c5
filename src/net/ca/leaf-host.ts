import { isIP } from 'node:net';
import { CaError } from '../../core/errors.js';

/** A host a leaf certificate is made for, in the one form it is cached and named by. */
export interface LeafHost {
  /** Lower case, without a trailing dot or an IPv6 address's brackets. */
  name: string;
  kind: 'dns' | 'ip';
}

const DNS_LABEL = /^(?:\*|[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)$/;

/**
 * Reads a host from SNI or a CONNECT line (peer input): a DNS name (a leading `*.` label allowed) or
 * an IPv4 or IPv6 address; anything else is a CaError E_CA_HOST_NAME, never a certificate.
 */
export function leafHost(host: string): LeafHost {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (isIP(name) !== 0) return { name, kind: 'ip' };
  if (name.endsWith('.')) name = name.slice(0, -1);
  const labels = name.split('.');
  const valid = name.length > 0 && name.length <= 253 && labels.every((label, i) => DNS_LABEL.test(label) && (label !== '*' || i === 0));
  if (!valid) throw new CaError('E_CA_HOST_NAME', `no certificate is made for '${host.slice(0, 300)}': it is neither a DNS name nor an IP address`);
  return { name, kind: 'dns' };
}
