import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forwardChildEnvironment } from '../../src/cli/forward-child.js';
import { scratch } from '../support/temp-dir.js';

describe('forwardChildEnvironment', () => {
  it('gives the command the variables `ca --env` prints, over ours: the proxy, only itself in NO_PROXY, and the trust bundle', async () => {
    const dir = join(scratch().dir, 'ca');
    const env = await forwardChildEnvironment('http://127.0.0.1:40123', dir, { PATH: '/bin', NO_PROXY: 'localhost', KEEP: 'me' });
    expect(env).toMatchObject({
      PATH: '/bin',
      KEEP: 'me',
      HTTPS_PROXY: 'http://127.0.0.1:40123',
      http_proxy: 'http://127.0.0.1:40123',
      NO_PROXY: '127.0.0.1:40123',
      NODE_USE_ENV_PROXY: '1',
      NODE_EXTRA_CA_CERTS: join(dir, 'ca-cert.pem'),
      SSL_CERT_FILE: join(dir, 'ca-bundle.pem'),
    });
    // The bundle ends with the local CA, after the system's CAs.
    expect(readFileSync(join(dir, 'ca-bundle.pem'), 'utf8').trimEnd().endsWith(readFileSync(join(dir, 'ca-cert.pem'), 'utf8').trimEnd())).toBe(true);
  });
});
