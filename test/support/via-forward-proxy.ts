import { readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/** A GET in absolute form (`GET http://host/path`) through the forward proxy at `proxyUrl`, as a proxy-aware client sends it. */
export function viaProxy(proxyUrl: string, absoluteUrl: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const proxy = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: proxy.hostname, port: proxy.port, path: absoluteUrl, headers: { host: new URL(absoluteUrl).host, ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A GET of an `https://` URL through the forward proxy at `proxyUrl`, as a proxy-aware client sends
 * it: a CONNECT to its host, then TLS inside trusting only the CA in `caFile` (the NODE_EXTRA_CA_CERTS
 * that `ca --env` prints), then the request. A CONNECT the proxy refuses is its status and body.
 */
export function viaConnect(proxyUrl: string, absoluteUrl: string, caFile: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const proxy = new URL(proxyUrl);
  const { host, pathname, search } = new URL(absoluteUrl);
  return new Promise((resolve, reject) => {
    const connect = request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: host, headers, agent: false });
    connect.on('connect', (res: IncomingMessage, socket: Socket, head: Buffer) => {
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [head];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
        return;
      }
      const secure = tlsConnect({ socket, servername: 'localhost', ca: readFileSync(caFile) });
      const get = httpsRequest({ createConnection: () => secure, path: pathname + search, headers: { host } }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          secure.destroy();
          resolve({ status: answer.statusCode!, body: Buffer.concat(chunks).toString() });
        });
      });
      get.on('error', reject);
      get.end();
    });
    connect.on('error', reject);
    connect.end();
  });
}
