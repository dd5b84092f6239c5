import { request } from 'node:http';

/** A GET in absolute form (`GET http://host/path`) through the forward proxy at `proxyUrl`, as a proxy-aware client sends it. */
export function viaProxy(proxyUrl: string, absoluteUrl: string): Promise<{ status: number; body: string }> {
  const proxy = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: proxy.hostname, port: proxy.port, path: absoluteUrl, headers: { host: new URL(absoluteUrl).host }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}
