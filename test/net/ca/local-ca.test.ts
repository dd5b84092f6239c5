/**
 * The local CA in its folder: made on first use with the modes that keep its key private, read back
 * by later processes, refused when exposed or broken, replaced on request, and one CA when two
 * openers race to make it.
 */
import { chmodSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaError } from '../../../src/core/errors.js';
import { caFiles, defaultCaDir } from '../../../src/net/ca/ca-folder.js';
import { CA_BACKDATE_MS, CA_LIFETIME_YEARS } from '../../../src/net/ca/ca-certificate.js';
import { openLocalCa } from '../../../src/net/ca/local-ca.js';
import { x509 } from '../../../src/net/ca/x509.js';
import { useCleanups } from '../../support/cleanups.js';
import { ManualClock } from '../../support/manual-clock.js';
import { scratch } from '../../support/temp-dir.js';

useCleanups();

const mode = (path: string) => statSync(path).mode & 0o777;

describe('openLocalCa', () => {
  it('makes the CA on first use: folder 0700, key 0600, the certificate beside it, a CA that says what it is', async () => {
    const dir = join(scratch().dir, 'config', 'ca');
    const ca = await openLocalCa({ dir });
    expect(ca).toMatchObject({ created: true, ...caFiles(dir) });
    expect(mode(dir)).toBe(0o700);
    expect(mode(ca.keyFile)).toBe(0o600);
    expect(readFileSync(ca.certFile, 'utf8')).toBe(ca.certPem);
    expect(readFileSync(ca.keyFile, 'utf8')).toContain('PRIVATE KEY');
    expect(ca.certPem).not.toContain('PRIVATE KEY');
    expect(ca.subject).toMatch(/^CN=agent-proxy local CA \(.+@.+\)\nO=agent-proxy$/);
    expect(ca.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

    const lib = x509();
    const certificate = new lib.X509Certificate(ca.certPem);
    const basic = certificate.getExtension(lib.BasicConstraintsExtension)!;
    expect(basic).toMatchObject({ ca: true, pathLength: 0, critical: true });
    const usages = certificate.getExtension(lib.KeyUsagesExtension)!;
    expect(usages.usages).toBe(lib.KeyUsageFlags.keyCertSign | lib.KeyUsageFlags.cRLSign);
    expect(certificate.publicKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
  });

  it('reads the same CA back, and writes its certificate file again when it is missing', async () => {
    const { dir } = scratch();
    const first = await openLocalCa({ dir });
    writeFileSync(first.certFile, 'stale');
    const again = await openLocalCa({ dir });
    expect(again).toMatchObject({ created: false, fingerprint256: first.fingerprint256, keyPem: first.keyPem });
    expect(readFileSync(again.certFile, 'utf8')).toBe(first.certPem);
  });

  it('dates the CA on the clock it is given: backdated, valid for its lifetime in years', async () => {
    const clock = new ManualClock();
    const now = Date.parse('2031-03-15T12:00:00Z');
    clock.advanceTo(now);
    const ca = await openLocalCa({ dir: scratch().dir, clock });
    expect(ca.validFrom.getTime()).toBe(now - CA_BACKDATE_MS);
    expect(ca.validTo.toISOString()).toBe(`${2031 + CA_LIFETIME_YEARS}-03-15T12:00:00.000Z`);
  });

  it('refuses a key file other users can read, and a folder they can write to, with E_CA_KEY_EXPOSED', async () => {
    const { dir } = scratch();
    const ca = await openLocalCa({ dir });
    chmodSync(ca.keyFile, 0o644);
    await expect(openLocalCa({ dir })).rejects.toMatchObject({ name: 'CaError', code: 'E_CA_KEY_EXPOSED', message: expect.stringContaining('can be read by other users (mode 0644)') });
    chmodSync(ca.keyFile, 0o600);
    chmodSync(dir, 0o777);
    await expect(openLocalCa({ dir })).rejects.toMatchObject({ code: 'E_CA_KEY_EXPOSED', message: expect.stringContaining('can be written by other users') });
    chmodSync(dir, 0o700);
    await expect(openLocalCa({ dir })).resolves.toMatchObject({ fingerprint256: ca.fingerprint256 });
  });

  it('refuses a key file that is not a CA with E_CA_INVALID, naming how to make a new one', async () => {
    const { dir } = scratch();
    const ca = await openLocalCa({ dir });
    writeFileSync(ca.keyFile, ca.keyPem);
    const error = await openLocalCa({ dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CaError);
    expect(error).toMatchObject({ code: 'E_CA_INVALID', message: expect.stringContaining('agent-proxy ca --regenerate') });

    const other = await openLocalCa({ dir: scratch().dir });
    writeFileSync(ca.keyFile, other.keyPem + ca.certPem);
    await expect(openLocalCa({ dir })).rejects.toMatchObject({ code: 'E_CA_INVALID', message: expect.stringContaining('not a CA certificate for its key') });
  });

  it('regenerates: a new key and certificate replace the old ones, with the same modes', async () => {
    const { dir } = scratch();
    const old = await openLocalCa({ dir });
    const renewed = await openLocalCa({ dir, regenerate: true });
    expect(renewed.created).toBe(true);
    expect(renewed.fingerprint256).not.toBe(old.fingerprint256);
    expect(renewed.keyPem).not.toBe(old.keyPem);
    expect(readFileSync(renewed.certFile, 'utf8')).toBe(renewed.certPem);
    expect(mode(renewed.keyFile)).toBe(0o600);
    expect((await openLocalCa({ dir })).fingerprint256).toBe(renewed.fingerprint256);
    expect(readdirSync(dir).sort()).toEqual(['ca-cert.pem', 'ca-key.pem']);
  });

  it('makes one CA when two openers race to make it: the second reads the first one’s', async () => {
    const { dir } = scratch();
    const [a, b, c] = await Promise.all([openLocalCa({ dir }), openLocalCa({ dir }), openLocalCa({ dir })]);
    expect(new Set([a.fingerprint256, b.fingerprint256, c.fingerprint256]).size).toBe(1);
    expect([a, b, c].filter((ca) => ca.created)).toHaveLength(1);
    expect(readdirSync(dir).sort()).toEqual(['ca-cert.pem', 'ca-key.pem']);
  });
});

describe('defaultCaDir', () => {
  it('is under $XDG_CONFIG_HOME when it is an absolute path, else under ~/.config', () => {
    expect(defaultCaDir({ XDG_CONFIG_HOME: '/cfg' }, '/home/u')).toBe('/cfg/agent-proxy/ca');
    expect(defaultCaDir({}, '/home/u')).toBe('/home/u/.config/agent-proxy/ca');
    expect(defaultCaDir({ XDG_CONFIG_HOME: 'relative' }, '/home/u')).toBe('/home/u/.config/agent-proxy/ca');
  });
});
