/**
 * TLS interception of a CONNECT tunnel, as the forward proxy does it: a real HTTP proxy answers
 * CONNECT, hands the socket to interceptTls and the TLS socket to an inner http.Server; the clients
 * are Node's own https and tls. Every failed handshake is a ClientTlsError, and the proxy goes on.
 */
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeafIssuer } from '../../src/net/ca/leaf-issuer.js';
import { openLocalCa, type LocalCa } from '../../src/net/ca/local-ca.js';
import { ClientTlsError, interceptTls } from '../../src/net/intercepted-tls.js';
import { closeServerOnCleanup, onCleanup, useCleanups } from '../support/cleanups.js';
import { tempDir } from '../support/temp-dir.js';
import { HAS_OPENSSL } from '../support/tls-fixtures.js';
import { waitFor, within } from '../support/waits.js';

useCleanups();

let ca: LocalCa;
const folder = tempDir('agent-proxy-ca-');
beforeAll(async () => void (ca = await openLocalCa({ dir: folder.dir })));
afterAll(() => folder.cleanup());

interface Proxy {
  port: number;
  failures: ClientTlsError[];
  /** The ALPN protocol of each intercepted connection. */
  protocols: Array<string | false | null>;
}

/** A forward proxy that intercepts every CONNECT; its inner server answers with the Host it was asked for. */
async function startProxy(): Promise<Proxy> {
  const issuer = new LeafIssuer(ca);
  const failures: ClientTlsError[] = [];
  const protocols: Array<string | false | null> = [];
  const inner = createServer((req, res) => res.end(`inner saw ${req.headers.host}`));
  const proxy = createServer();
  proxy.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const host = new URL(`http://${req.url}`).hostname;
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    interceptTls(socket, { issuer, connectHost: host, head }).then(
      (tls) => {
        protocols.push(tls.alpnProtocol);
        inner.emit('connection', tls);
      },
      (error: ClientTlsError) => failures.push(error),
    );
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  closeServerOnCleanup(proxy);
  onCleanup(() => void inner.closeAllConnections());
  return { port: (proxy.address() as AddressInfo).port, failures, protocols };
}

/** A socket tunnelled through the proxy's CONNECT to `authority`. */
async function tunnel(proxy: Proxy, authority: string): Promise<Socket> {
  const connecting = request({ host: '127.0.0.1', port: proxy.port, method: 'CONNECT', path: authority, agent: false }).end();
  const [res, socket] = (await within(once(connecting, 'connect'), `CONNECT ${authority}`)) as [IncomingMessage, Socket];
  expect(res.statusCode).toBe(200);
  onCleanup(() => void socket.destroy());
  return socket;
}

/** GET / over TLS through the tunnel; resolves with the body and the certificate the client was shown. */
async function getThrough(proxy: Proxy, authority: string, tlsOptions: { servername?: string; ca?: string; ALPNProtocols?: string[] }): Promise<{ body: string; peer: X509Certificate }> {
  const socket = await tunnel(proxy, authority);
  return new Promise((resolve, reject) => {
    const host = authority.replace(/:\d+$/, '');
    let secured: TLSSocket | undefined;
    // No agent: the request takes the connection made here, the TLS client over the tunnel.
    const req = httpsGet({ host, port: 443, path: '/', createConnection: () => (secured = tlsConnect({ socket, host, ...tlsOptions })) }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ body, peer: secured!.getPeerX509Certificate()! }));
    });
    req.on('error', reject);
  });
}

describe('interceptTls', () => {
  it('serves the SNI host a leaf from the local CA, speaks HTTP/1.1 by ALPN, and hands the socket to an http.Server', async () => {
    const proxy = await startProxy();
    const { body, peer } = await getThrough(proxy, 'api.example.test:443', { servername: 'api.example.test', ca: ca.certPem, ALPNProtocols: ['h2', 'http/1.1'] });
    expect(body).toBe('inner saw api.example.test:443');
    expect(peer.subjectAltName).toBe('DNS:api.example.test');
    expect(proxy.protocols).toEqual(['http/1.1']);
  });

  it('serves the CONNECT host when the client sends no SNI, as for an IP address', async () => {
    const proxy = await startProxy();
    const { body, peer } = await getThrough(proxy, '10.9.8.7:443', { ca: ca.certPem });
    expect(body).toBe('inner saw 10.9.8.7:443');
    expect(peer.subjectAltName).toBe('IP Address:10.9.8.7');
  });

  it('fails the handshake of a client that does not trust the CA, reports it, and goes on serving', async () => {
    const proxy = await startProxy();
    await expect(getThrough(proxy, 'api.example.test:443', { servername: 'api.example.test' })).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    await waitFor(() => proxy.failures.length === 1, 'the failed handshake to be reported');
    expect(proxy.failures[0]).toBeInstanceOf(ClientTlsError);
    expect(proxy.failures[0]).toMatchObject({ code: 'E_CLIENT_TLS', host: 'api.example.test' });
    expect(['untrusted', 'closed']).toContain(proxy.failures[0].check);
    expect((await getThrough(proxy, 'api.example.test:443', { servername: 'api.example.test', ca: ca.certPem })).body).toBe('inner saw api.example.test:443');
  });

  it.skipIf(!HAS_OPENSSL)('names a client that refuses the certificate with an alert (openssl s_client, as curl and Python do) untrusted', async () => {
    const proxy = await startProxy();
    const client = spawn('openssl', ['s_client', '-proxy', `127.0.0.1:${proxy.port}`, '-connect', 'api.example.test:443', '-servername', 'api.example.test', '-verify_return_error', '-no-CAfile', '-no-CApath', '-no-CAstore'], { stdio: ['ignore', 'ignore', 'ignore'] });
    await within(once(client, 'close'), 'openssl s_client to end');
    await waitFor(() => proxy.failures.length === 1, 'the refused certificate to be reported');
    expect(proxy.failures[0]).toMatchObject({ code: 'E_CLIENT_TLS', check: 'untrusted', nodeCode: 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', host: 'api.example.test' });
    expect(proxy.failures[0].message).toContain("refused the proxy's certificate (tlsv1 alert unknown ca)");
  });

  it('reports a client that speaks plain HTTP into the tunnel as a failed handshake', async () => {
    const proxy = await startProxy();
    const socket = await tunnel(proxy, 'api.example.test:443');
    socket.on('error', () => undefined);
    socket.end('GET / HTTP/1.1\r\nHost: api.example.test\r\n\r\n');
    await waitFor(() => proxy.failures.length === 1, 'the failed handshake to be reported');
    expect(proxy.failures[0]).toMatchObject({ code: 'E_CLIENT_TLS', check: 'handshake', message: expect.stringContaining('CONNECT api.example.test') });
  });

  it('reports a name no certificate can be made for, and a client that closes before its hello', async () => {
    const proxy = await startProxy();
    await expect(getThrough(proxy, 'api.example.test:443', { servername: 'bad_-name-.test', ca: ca.certPem })).rejects.toThrow();
    await waitFor(() => proxy.failures.length === 1, 'the failed handshake to be reported');
    expect(proxy.failures[0]).toMatchObject({ code: 'E_CLIENT_TLS' });

    (await tunnel(proxy, 'quiet.test:443')).end();
    await waitFor(() => proxy.failures.length === 2, 'the closed tunnel to be reported');
    expect(proxy.failures[1]).toMatchObject({ check: 'closed', host: 'quiet.test' });
  });
});
