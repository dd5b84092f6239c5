import { openLocalCa, type LocalCa } from '../../src/net/ca/local-ca.js';
import { caSigner, mintLeafCertificate } from '../../src/net/ca/leaf-certificate.js';
import { leafHost } from '../../src/net/ca/leaf-host.js';
import { leafKey } from '../../src/net/ca/leaf-key.js';
import { tempDir } from './temp-dir.js';

/**
 * A CA of agent-proxy's own kind (src/net/ca) in a temp folder, for stand-ins that serve HTTPS with
 * certificates it signed: a client trusting `caFile` (NODE_EXTRA_CA_CERTS, `--ca`) reaches them, one
 * that does not gets a TLS error. No openssl needed (compare tls-fixtures.ts).
 */
export interface TestCa {
  ca: LocalCa;
  /** The CA certificate's PEM file: what a client is told to trust. */
  caFile: string;
  /** A server certificate and key for `hosts` (DNS names and IP addresses), valid from yesterday for 30 days. */
  serverCertificate(...hosts: string[]): Promise<{ cert: string; key: string }>;
  /** Removes the folder. */
  remove(): void;
}

export async function makeTestCa(): Promise<TestCa> {
  const folder = tempDir('agent-proxy-test-ca-');
  const ca = await openLocalCa({ dir: folder.dir });
  const signer = caSigner(ca);
  return {
    ca,
    caFile: ca.certFile,
    async serverCertificate(...hosts) {
      const key = await leafKey();
      const minted = await mintLeafCertificate(await signer, hosts.map(leafHost), key.keys.publicKey, { now: () => Date.now() });
      return { cert: minted.certPem, key: key.keyPem };
    },
    remove: () => folder.cleanup(),
  };
}
