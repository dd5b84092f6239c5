import type { SecureContext } from 'node:tls';
import { caSigner, mintLeafCertificate, type CaSigner } from './leaf-certificate.js';
import { leafHost, type LeafHost } from './leaf-host.js';
import { leafKey } from './leaf-key.js';
import type { LocalCa } from './local-ca.js';
import { DAY_MS, systemWallClock, type WallClock } from './wall-clock.js';

/** A server certificate for one host, with its key and a TLS context that serves it. */
export interface Leaf {
  /** The host as the certificate names it (lower case, no brackets). */
  host: string;
  certPem: string;
  keyPem: string;
  validFrom: Date;
  validTo: Date;
  secureContext: SecureContext;
}

export interface LeafIssuerOptions {
  clock?: WallClock;
  /** Hosts kept in memory; the least recently minted is dropped past it. */
  maxHosts?: number;
}

/** A cached leaf this close to its end is minted again. */
const RENEW_BEFORE_END_MS = DAY_MS;

/**
 * Mints the leaf certificates a CA signs for the hosts a client asks for, and keeps each host's in
 * memory: the first handshake for a host mints (two at once mint once), later ones are served the
 * same leaf and TLS context until it nears its end.
 */
export class LeafIssuer {
  private readonly clock: WallClock;
  private readonly maxHosts: number;
  private readonly leaves = new Map<string, Promise<Leaf>>();
  private signer: Promise<CaSigner> | undefined;

  constructor(
    readonly ca: LocalCa,
    options: LeafIssuerOptions = {},
  ) {
    this.clock = options.clock ?? systemWallClock;
    this.maxHosts = options.maxHosts ?? 10_000;
  }

  /** The leaf for `host` (a DNS name or an IP address); a CaError E_CA_HOST_NAME for anything else. */
  async leafFor(host: string): Promise<Leaf> {
    const named = leafHost(host);
    const cached = this.leaves.get(named.name);
    if (cached !== undefined) {
      const leaf = await cached;
      if (leaf.validTo.getTime() - this.clock.now() > RENEW_BEFORE_END_MS) return leaf;
      // Near its end: the first to see it mints again, later ones wait for that.
      if (this.leaves.get(named.name) !== cached) return this.leafFor(host);
      this.leaves.delete(named.name);
    }
    return this.mint(named);
  }

  /** The TLS context that serves `host`'s leaf, for an SNICallback. */
  async secureContextFor(host: string): Promise<SecureContext> {
    return (await this.leafFor(host)).secureContext;
  }

  /**
   * An SNICallback for a TLS server or socket: the client's server name's leaf. Node calls it only
   * when the client sent a name (an IP address client sends none): give the server or socket
   * `secureContextFor(connectHost)` as its own context for those. A name no certificate can be made
   * for fails that handshake with the CaError (the server's `tlsClientError`), nothing more.
   */
  sniCallback(): (servername: string, callback: (error: Error | null, context?: SecureContext) => void) => void {
    return (servername, callback) => {
      this.secureContextFor(servername).then(
        (context) => callback(null, context),
        (error: Error) => callback(error),
      );
    };
  }

  /** How many hosts have a leaf (or one being minted) in memory. */
  get size(): number {
    return this.leaves.size;
  }

  private mint(host: LeafHost): Promise<Leaf> {
    const minting = this.mintNow(host);
    this.leaves.set(host.name, minting);
    // A failed mint is not kept: the next handshake tries again.
    minting.catch(() => {
      if (this.leaves.get(host.name) === minting) this.leaves.delete(host.name);
    });
    if (this.leaves.size > this.maxHosts) this.leaves.delete(this.leaves.keys().next().value!);
    return minting;
  }

  private async mintNow(host: LeafHost): Promise<Leaf> {
    this.signer ??= caSigner(this.ca);
    const [signer, key] = await Promise.all([this.signer, leafKey()]);
    const minted = await mintLeafCertificate(signer, [host], key.keys.publicKey, this.clock);
    const secureContext = process.getBuiltinModule('node:tls').createSecureContext({ cert: minted.certPem, key: key.keyPem });
    return { host: host.name, ...minted, keyPem: key.keyPem, secureContext };
  }
}
