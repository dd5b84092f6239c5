/**
 * Leaf certificates from the local CA, served by a real HTTPS server through its SNICallback: a
 * client that trusts only the CA connects, one that does not gets a TLS error; names and addresses
 * each get their kind of subjectAltName; a host is minted once however many handshakes ask at once.
 */
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer, get, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { beforeAll, describe, expect, it } from 'vitest';
import { LEAF_BACKDATE_MS, LEAF_LIFETIME_DAYS } from '../../../src/net/ca/leaf-certificate.js';
import { LeafIssuer } from '../../../src/net/ca/leaf-issuer.js';
import { openLocalCa, type LocalCa } from '../../../src/net/ca/local-ca.js';
import { DAY_MS } from '../../../src/net/ca/wall-clock.js';
import { closeServerOnCleanup, useCleanups } from '../../support/cleanups.js';
import { ManualClock } from '../../support/manual-clock.js';
import { tempDir } from '../../support/temp-dir.js';
import { afterAll } from 'vitest';

useCleanups();

let ca: LocalCa;
const folder = tempDir('agent-proxy-ca-');
beforeAll(async () => {
  ca = await openLocalCa({ dir: folder.dir });
});
afterAll(() => folder.cleanup());

/** An HTTPS server that answers with the host its certificate was minted for. */
async function httpsServer(issuer: LeafIssuer): Promise<{ server: Server; port: number; tlsErrors: Error[] }> {
  const tlsErrors: Error[] = [];
  // A client that sends no server name (as for an IP address) gets the server's own context.
  const fallback = await issuer.leafFor('127.0.0.1');
  const server = createServer({ SNICallback: issuer.sniCallback(), cert: fallback.certPem, key: fallback.keyPem }, (req, res) => res.end(`hello ${(req.socket as TLSSocket).servername || 'no-sni'}`));
  server.on('tlsClientError', (error) => tlsErrors.push(error));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closeServerOnCleanup(server);
  return { server, port: (server.address() as AddressInfo).port, tlsErrors };
}

function fetchOver(port: number, options: { servername?: string; ca?: string }): Promise<{ body: string; peer: X509Certificate }> {
  return new Promise((resolve, reject) => {
    const request = get({ host: '127.0.0.1', port, path: '/', agent: false, ...options }, (res) => {
      const peer = (res.socket as TLSSocket).getPeerX509Certificate()!;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ body, peer }));
    });
    request.on('error', reject);
  });
}

describe('LeafIssuer over a real HTTPS server', () => {
  it('serves a leaf for the SNI host that a client trusting only the CA accepts', async () => {
    const { port } = await httpsServer(new LeafIssuer(ca));
    const { body, peer } = await fetchOver(port, { servername: 'api.example.test', ca: ca.certPem });
    expect(body).toBe('hello api.example.test');
    expect(peer.subjectAltName).toBe('DNS:api.example.test');
    expect(peer.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
  });

  it('fails the handshake of a client that does not trust the CA, and goes on serving', async () => {
    const { port, tlsErrors } = await httpsServer(new LeafIssuer(ca));
    await expect(fetchOver(port, { servername: 'api.example.test' })).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect((await fetchOver(port, { servername: 'api.example.test', ca: ca.certPem })).body).toBe('hello api.example.test');
    expect(tlsErrors.length).toBeGreaterThan(0);
  });

  it('serves an IP address its own kind of name, to a client that sends no SNI', async () => {
    const { port } = await httpsServer(new LeafIssuer(ca));
    // Node sends no SNI for an IP address.
    const { body, peer } = await fetchOver(port, { ca: ca.certPem });
    expect(body).toBe('hello no-sni');
    expect(peer.subjectAltName).toBe('IP Address:127.0.0.1');
  });

  it('fails the handshake for a server name no certificate can be made for, without ending the server', async () => {
    const { port, tlsErrors } = await httpsServer(new LeafIssuer(ca));
    await expect(fetchOver(port, { servername: 'bad_name-.test', ca: ca.certPem })).rejects.toThrow();
    expect(tlsErrors.some((e) => /bad_name-\.test/.test(e.message))).toBe(true);
    expect((await fetchOver(port, { servername: 'ok.test', ca: ca.certPem })).body).toBe('hello ok.test');
  });
});

describe('LeafIssuer', () => {
  it('names a DNS host, an IPv4 and an IPv6 address each by its kind, in one normal form', async () => {
    const issuer = new LeafIssuer(ca);
    const san = async (host: string) => new X509Certificate((await issuer.leafFor(host)).certPem).subjectAltName;
    expect(await san('API.Example.TEST.')).toBe('DNS:api.example.test');
    expect(await san('10.1.2.3')).toBe('IP Address:10.1.2.3');
    expect(await san('[::1]')).toBe('IP Address:0:0:0:0:0:0:0:1');
    expect(await san('*.example.test')).toBe('DNS:*.example.test');
    expect((await issuer.leafFor('api.example.test')).host).toBe('api.example.test');
  });

  it('refuses a host that is no DNS name or address with E_CA_HOST_NAME', async () => {
    const issuer = new LeafIssuer(ca);
    for (const host of ['', 'a b.test', 'x..test', '-x.test', 'a.*.test', 'a'.repeat(64) + '.test', 'host:443']) {
      await expect(issuer.leafFor(host), host).rejects.toMatchObject({ name: 'CaError', code: 'E_CA_HOST_NAME' });
    }
    expect(issuer.size).toBe(0);
  });

  it('mints a new host once, however many ask at once, and serves it from memory after', async () => {
    const issuer = new LeafIssuer(ca);
    const leaves = await Promise.all([issuer.leafFor('one.test'), issuer.leafFor('ONE.test'), issuer.leafFor('one.test.')]);
    expect(leaves[1]).toBe(leaves[0]);
    expect(leaves[2]).toBe(leaves[0]);
    expect(await issuer.leafFor('one.test')).toBe(leaves[0]);
    expect(await issuer.secureContextFor('one.test')).toBe(leaves[0].secureContext);
    expect(issuer.size).toBe(1);
  });

  it('gives each leaf a random serial number and the one key of the process', async () => {
    const issuer = new LeafIssuer(ca);
    const [a, b] = await Promise.all([issuer.leafFor('a.test'), issuer.leafFor('b.test')]);
    const serial = (pem: string) => new X509Certificate(pem).serialNumber;
    expect(serial(a.certPem)).not.toBe(serial(b.certPem));
    expect(serial(a.certPem)).toMatch(/^[0-9A-F]{32}$/);
    expect(a.keyPem).toBe(b.keyPem);
    expect((await new LeafIssuer(ca).leafFor('a.test')).keyPem).toBe(a.keyPem);
  });

  it('dates leaves on its clock, backdated and valid for days, and mints again once one nears its end', async () => {
    const clock = new ManualClock();
    const start = Date.parse('2030-06-01T00:00:00Z');
    clock.advanceTo(start);
    const issuer = new LeafIssuer(ca, { clock });
    const first = await issuer.leafFor('dated.test');
    expect(first.validFrom.getTime()).toBe(start - LEAF_BACKDATE_MS);
    expect(first.validTo.getTime()).toBe(start + LEAF_LIFETIME_DAYS * DAY_MS);
    const peer = new X509Certificate(first.certPem);
    expect(new Date(peer.validFrom).getTime()).toBe(first.validFrom.getTime());
    expect(new Date(peer.validTo).getTime()).toBe(first.validTo.getTime());

    clock.advanceTo(start + (LEAF_LIFETIME_DAYS - 2) * DAY_MS);
    expect(await issuer.leafFor('dated.test')).toBe(first);
    clock.advanceTo(start + (LEAF_LIFETIME_DAYS - 1) * DAY_MS);
    const [second, alsoSecond] = await Promise.all([issuer.leafFor('dated.test'), issuer.leafFor('dated.test')]);
    expect(second).not.toBe(first);
    expect(alsoSecond).toBe(second);
    expect(second.validFrom.getTime()).toBe(clock.now() - LEAF_BACKDATE_MS);
  });

  it('keeps at most maxHosts hosts, dropping the oldest', async () => {
    const issuer = new LeafIssuer(ca, { maxHosts: 2 });
    const first = await issuer.leafFor('1.test');
    await issuer.leafFor('2.test');
    await issuer.leafFor('3.test');
    expect(issuer.size).toBe(2);
    expect(await issuer.leafFor('1.test')).not.toBe(first);
  });
});
