import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLocalCa, type LocalCa } from '../../../src/net/ca/local-ca.js';
import { NODE_ROOTS_SOURCE, writeTrustBundle } from '../../../src/net/ca/trust-bundle.js';
import { useCleanups } from '../../support/cleanups.js';
import { scratch, tempDir } from '../../support/temp-dir.js';
import { afterAll } from 'vitest';

useCleanups();

let ca: LocalCa;
const folder = tempDir('agent-proxy-ca-');
beforeAll(async () => void (ca = await openLocalCa({ dir: folder.dir })));
afterAll(() => folder.cleanup());

const SYSTEM = `${rootCertificates[0]}\n${rootCertificates[1]}\n`;

describe('writeTrustBundle', () => {
  it("puts the CA after the first system bundle found, in the CA's folder", () => {
    const system = scratch();
    writeFileSync(system.file('bundle.crt'), SYSTEM);
    const bundle = writeTrustBundle(ca, {}, [system.file('missing.crt'), system.file('bundle.crt')]);
    expect(bundle).toEqual({ file: `${folder.dir}/ca-bundle.pem`, systemSource: system.file('bundle.crt') });
    const text = readFileSync(bundle.file, 'utf8');
    expect(text.startsWith(SYSTEM)).toBe(true);
    expect(text.endsWith(ca.certPem)).toBe(true);
    expect(statSync(bundle.file).mode & 0o777).toBe(0o644);
  });

  it('takes an SSL_CERT_FILE already set as the system list, but never the bundle itself', () => {
    const system = scratch();
    writeFileSync(system.file('mine.pem'), SYSTEM);
    expect(writeTrustBundle(ca, { SSL_CERT_FILE: system.file('mine.pem') }, []).systemSource).toBe(system.file('mine.pem'));
    const bundleFile = `${folder.dir}/ca-bundle.pem`;
    expect(writeTrustBundle(ca, { SSL_CERT_FILE: bundleFile }, [system.file('mine.pem')]).systemSource).toBe(system.file('mine.pem'));
    expect(readFileSync(bundleFile, 'utf8').split(ca.certPem)).toHaveLength(2);
  });

  it("falls back on Node's own root certificates when no system bundle is found", () => {
    const bundle = writeTrustBundle(ca, {}, ['/nonexistent/bundle.crt']);
    expect(bundle.systemSource).toBe(NODE_ROOTS_SOURCE);
    const text = readFileSync(bundle.file, 'utf8');
    expect(text).toContain(rootCertificates[0]);
    expect(text.endsWith(ca.certPem)).toBe(true);
  });
});
