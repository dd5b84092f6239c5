import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { tempDir } from './temp-dir.js';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';

/**
 * Certificates made for the test run by `openssl` (nothing committed), and a TLS front that puts
 * any plain stand-in behind TLS: it terminates TLS and passes the bytes on as they are, so the
 * stand-in's HTTP, SSE and WebSocket traffic reaches the proxy over a real TLS server.
 */

/** True when `openssl` can be run: the TLS tests need it to make their certificates. */
export const HAS_OPENSSL = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

export interface CertPair {
  /** PEM file paths. */
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
}

export interface TestCertificates {
  dir: string;
  /** The test CA's certificate: what --ca is given. */
  caFile: string;
  /** For localhost and 127.0.0.1, signed by the test CA, valid for two days. */
  valid: CertPair;
  /** For other.test only, signed by the test CA. */
  otherHost: CertPair;
  /** For localhost and 127.0.0.1, signed by the test CA, expired yesterday. */
  expired: CertPair;
  /** For localhost and 127.0.0.1, signed by itself. */
  selfSigned: CertPair;
  remove(): void;
}

/** Makes a CA and the leaf certificates above in a temp folder (EC P-256 keys: fast). */
export function makeTestCertificates(): TestCertificates {
  const { dir, file, cleanup } = tempDir('agent-proxy-tls-');
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...newKey, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=agent-proxy test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...newKey, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=localhost');
  const leaf = (name: string, altNames: string, validity: string[]): CertPair => {
    writeFileSync(file(`${name}.ext`), `subjectAltName=${altNames}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
    openssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, ...validity, '-extfile', `${name}.ext`);
    return pair(`${name}.pem`, 'leaf.key');
  };
  const pair = (cert: string, key: string): CertPair => ({ certFile: file(cert), keyFile: file(key), cert: readFileSync(file(cert)), key: readFileSync(file(key)) });
  const local = 'DNS:localhost,IP:127.0.0.1';
  const valid = leaf('valid', local, ['-days', '2']);
  const otherHost = leaf('other-host', 'DNS:other.test', ['-days', '2']);
  const expired = expiredLeaf(() => leaf('expired', local, ['-days', '-1']), () => leaf('expired', local, ['-not_before', '20200101000000Z', '-not_after', '20200102000000Z']));
  openssl('req', '-x509', ...newKey, '-keyout', 'self.key', '-out', 'self.pem', '-days', '2', '-subj', '/CN=localhost', '-addext', `subjectAltName=${local}`);
  const selfSigned = pair('self.pem', 'self.key');
  return { dir, caFile: file('ca.pem'), valid, otherHost, expired, selfSigned, remove: cleanup };
}

/**
 * OpenSSL 3.0 takes a negative validity (notAfter a day before notBefore, now); newer ones may refuse
 * it but take explicit dates (3.4+). Whichever works, the certificate must really have expired.
 */
function expiredLeaf(...attempts: Array<() => CertPair>): CertPair {
  for (const attempt of attempts) {
    try {
      const made = attempt();
      if (new Date(new X509Certificate(made.cert).validTo).getTime() < Date.now()) return made;
    } catch {
      // the next way
    }
  }
  throw new Error('openssl made no expired certificate');
}

export interface TlsFront {
  /** The port the TLS server listens on (127.0.0.1). */
  port: number;
  /** The SNI host names clients sent, in order (empty string: none, as for an IP address). */
  serverNames: string[];
  close(): Promise<void>;
}

/** A TLS server on 127.0.0.1 that passes every connection's bytes on to the plain server at `plainPort`. */
export async function startTlsFront(pair: CertPair, plainPort: number): Promise<TlsFront> {
  const serverNames: string[] = [];
  const sockets = new Set<Socket>();
  const server = createTlsServer({ cert: pair.cert, key: pair.key }, (clear: TLSSocket) => {
    serverNames.push(typeof clear.servername === 'string' ? clear.servername : '');
    const plain = connect(plainPort, '127.0.0.1');
    for (const socket of [clear, plain]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    clear.pipe(plain).pipe(clear);
    clear.on('close', () => plain.destroy());
    plain.on('close', () => clear.destroy());
  });
  // A client that refuses the certificate ends the handshake: nothing to relay, nothing to report.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    serverNames,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
