import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, get } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServerOnCleanup, useCleanups } from './cleanups.js';
import { makeTestCa, type TestCa } from './test-ca.js';

useCleanups();

let testCa: TestCa;
beforeAll(async () => void (testCa = await makeTestCa()));
afterAll(() => testCa.remove());

function getText(url: string, ca?: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { ca, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe('makeTestCa', () => {
  it('signs a stand-in certificate for names and addresses that a client trusting its CA file accepts, and no other client', async () => {
    const server = createServer(await testCa.serverCertificate('localhost', '127.0.0.1'), (_req, res) => res.end('stand-in'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closeServerOnCleanup(server);
    const { port } = server.address() as AddressInfo;
    const ca = readFileSync(testCa.caFile);
    expect(await getText(`https://127.0.0.1:${port}/`, ca)).toBe('stand-in');
    expect(await getText(`https://localhost:${port}/`, ca)).toBe('stand-in');
    await expect(getText(`https://127.0.0.1:${port}/`)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  });
});
