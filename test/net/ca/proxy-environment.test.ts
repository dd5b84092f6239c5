import { describe, expect, it } from 'vitest';
import type { LocalCa } from '../../../src/net/ca/local-ca.js';
import { proxyEnvironment, proxyUrl, shellExportLines } from '../../../src/net/ca/proxy-environment.js';

const ca = { certFile: '/home/u/.config/agent-proxy/ca/ca-cert.pem' } as LocalCa;

describe('proxyEnvironment', () => {
  it('sets both spellings of the proxy, names only the proxy itself in NO_PROXY, and gives each CA variable its file', () => {
    const variables = Object.fromEntries(proxyEnvironment({ proxyUrl: 'http://127.0.0.1:8788/', ca, bundleFile: '/b/ca-bundle.pem' }));
    expect(variables).toEqual({
      HTTPS_PROXY: 'http://127.0.0.1:8788',
      https_proxy: 'http://127.0.0.1:8788',
      HTTP_PROXY: 'http://127.0.0.1:8788',
      http_proxy: 'http://127.0.0.1:8788',
      NO_PROXY: '127.0.0.1:8788',
      no_proxy: '127.0.0.1:8788',
      NODE_USE_ENV_PROXY: '1',
      NODE_EXTRA_CA_CERTS: ca.certFile,
      SSL_CERT_FILE: '/b/ca-bundle.pem',
      REQUESTS_CA_BUNDLE: '/b/ca-bundle.pem',
      CURL_CA_BUNDLE: '/b/ca-bundle.pem',
    });
  });

  it('keeps the credentials of a proxy that asks for them, and an IPv6 host in brackets', () => {
    expect(proxyUrl('http://me:s%40cret@localhost:9000')).toBe('http://me:s%40cret@localhost:9000');
    expect(proxyUrl('http://[::1]:9000')).toBe('http://[::1]:9000');
  });

  it('refuses a proxy address that is not http://host:port', () => {
    for (const url of ['127.0.0.1:8788', 'https://127.0.0.1:8788', 'http://127.0.0.1:8788/path', 'http://h:1/?q', 'not a url']) {
      expect(() => proxyUrl(url), url).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    }
  });
});

describe('shellExportLines', () => {
  it('writes one export per variable, quoting what a shell would split or expand', () => {
    expect(shellExportLines([['A', '/plain/path.pem'], ['B', "/it's here/$HOME"]])).toBe("export A=/plain/path.pem\nexport B='/it'\\''s here/$HOME'\n");
  });
});
