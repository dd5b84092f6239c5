/**
 * `record --forward` in-process: an HTTP forward proxy. Absolute-form requests and WebSocket
 * upgrades reach the origin they name, unchanged but for the proxy's own headers, and are recorded
 * with that origin; CONNECT tunnels carry bytes through unread and are logged; --proxy-auth guards it.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { startForwardRecorder } from '../../src/record/start-forward-recorder.js';
import { startForwardProxyServer } from '../../src/record/relay/forward-proxy-server.js';
import { SHUTDOWN_GRACE_MS } from '../../src/net/graceful-shutdown.js';
import { openRecordingSink } from '../../src/record/open-recording-sink.js';
import { RecordingClock } from '../../src/core/recording-clock.js';
import { exchangeFindings } from '../../src/core/exchange-findings.js';
import { parseListen } from '../../src/net/addresses.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { closeServerOnCleanup, onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { waitFor, within } from '../support/waits.js';
import { wsOpen } from '../support/ws-client.js';
import { makeTestCa, type TestCa } from '../support/test-ca.js';

useCleanups();

interface Seen {
  url: string;
  rawHeaders: string[];
  body: string;
}

/** An origin that answers every request with JSON naming itself, the path and the body, and keeps what reached it. */
async function startOrigin(name: string): Promise<{ port: number; origin: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ url: req.url!, rawHeaders: req.rawHeaders, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name, url: req.url, body }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closeServerOnCleanup(server);
  const port = (server.address() as AddressInfo).port;
  return { port, origin: `http://127.0.0.1:${port}`, seen, server };
}

async function startProxy(options: Parameters<typeof startForwardRecorder>[0] = {}) {
  const out = scratch().file('forward.db');
  const recorder = await startForwardRecorder({ listen: 0, out, pipeline: 'inline', ...options });
  onCleanup(() => recorder.close().then(() => undefined));
  const { port } = new URL(recorder.url);
  return { recorder, out, port: Number(port) };
}

function viaProxy(proxyPort: number, method: string, absoluteUrl: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; rawHeaders: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: proxyPort, method, path: absoluteUrl, headers: { host: absoluteUrl.startsWith('/') ? '127.0.0.1' : new URL(absoluteUrl).host, ...headers }, agent: false }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens a CONNECT tunnel through the proxy; resolves with the proxy's status line and the socket. */
function openTunnel(proxyPort: number, authority: string, headers: Record<string, string> = {}): Promise<{ status: number; socket: Socket; head: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: authority, headers, agent: false });
    req.on('connect', (res: IncomingMessage, socket: Socket, head: Buffer) => resolve({ status: res.statusCode!, socket, head }));
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, socket: undefined as unknown as Socket, head: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Waits until the recording holds `count` exchanges that have ended (the proxy saw both sides close). */
async function exchangesEnded(out: string, count: number): Promise<void> {
  await waitFor(() => {
    const reader = RecordingReader.open(out);
    try {
      return reader.exchanges().filter((e) => e.outcome !== null).length >= count;
    } finally {
      reader.close();
    }
  }, `${count} exchanges to end`);
}

function read(out: string) {
  const reader = RecordingReader.open(out);
  onCleanup(() => reader.close());
  return reader;
}

describe('record --forward: absolute-form HTTP', () => {
  it('forwards to the origin each request names, without the proxy headers, and records each with its origin and protocol', async () => {
    const a = await startOrigin('a');
    const b = await startOrigin('b');
    const { recorder, out, port } = await startProxy();
    const completion = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const first = await viaProxy(port, 'POST', `${a.origin}/v1/chat/completions?x=1`, { 'content-type': 'application/json', 'proxy-connection': 'keep-alive', 'x-kept': 'yes' }, completion);
    const second = await viaProxy(port, 'GET', `${b.origin}/v1/models`);
    expect(JSON.parse(first.body)).toEqual({ name: 'a', url: '/v1/chat/completions?x=1', body: completion });
    expect(JSON.parse(second.body)).toMatchObject({ name: 'b', url: '/v1/models' });
    const names = a.seen[0].rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names).toContain('x-kept');
    expect(names.filter((n) => n.startsWith('proxy-'))).toEqual([]);
    await recorder.close();

    const reader = read(out);
    expect(reader.recording().target).toBe('forward proxy');
    const [e1, e2] = reader.exchanges();
    expect(e1).toMatchObject({ method: 'POST', path: '/v1/chat/completions', query: 'x=1', url: `${a.origin}/v1/chat/completions?x=1`, status: 200, protocol: 'openai' });
    expect(e2).toMatchObject({ method: 'GET', path: '/v1/models', url: `${b.origin}/v1/models`, status: 200 });
    expect(Object.keys(e1.requestHeaders ?? {}).map((n) => n.toLowerCase())).not.toContain('proxy-connection');
  });

  it('refuses a request not in absolute form with a 400 that says what a forward proxy expects', async () => {
    const { port } = await startProxy();
    const answer = await viaProxy(port, 'GET', '/v1/models');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.message).toMatch(/absolute form/);
  });

  it('relays a WebSocket upgrade in absolute form to its origin and records its frames with the origin', async () => {
    const origin = await startOrigin('ws');
    const wss = new WebSocketServer({ server: origin.server });
    wss.on('connection', (ws) => ws.on('message', (data) => ws.send(`echo ${data.toString()}`)));
    const { recorder, out, port } = await startProxy();
    // A client configured with the proxy sends the upgrade to it with the origin's absolute URL.
    const session = await wsOpen(`ws://127.0.0.1:${port}/`, [], {
      finishRequest: (req) => {
        req.path = `${origin.origin}/chat`;
        req.end();
      },
    });
    session.ws.send('hello');
    expect(await session.take(1)).toEqual(['echo hello']);
    session.ws.close(1000);
    await session.closed;
    for (const ws of wss.clients) ws.terminate();
    await recorder.close();
    const [exchange] = read(out).exchanges();
    expect(exchange).toMatchObject({ transport: 'ws', status: 101, path: '/chat', url: `${origin.origin}/chat`, outcome: 'complete' });
  });
});

describe('record --forward: --proxy-auth', () => {
  it('answers 407 with a Basic challenge without the right credentials, records each refusal, forwards with them, and never stores them', async () => {
    const a = await startOrigin('a');
    const { recorder, out, port } = await startProxy({ proxyAuth: 'agent:s3cret' });
    const wrongCredentials = `Basic ${Buffer.from('agent:nope').toString('base64')}`;
    const missing = await viaProxy(port, 'GET', `${a.origin}/x?q=1`);
    const wrong = await viaProxy(port, 'POST', `${a.origin}/y`, { 'proxy-authorization': wrongCredentials, 'content-type': 'application/json' }, '{"n":1}');
    const tunnel = await openTunnel(port, `127.0.0.1:${a.port}`, { 'proxy-authorization': wrongCredentials });
    expect([missing.status, wrong.status, tunnel.status]).toEqual([407, 407, 407]);
    const challenge = missing.rawHeaders.findIndex((n) => n.toLowerCase() === 'proxy-authenticate');
    expect(missing.rawHeaders[challenge + 1]).toMatch(/^Basic /);
    const right = await viaProxy(port, 'GET', `${a.origin}/x`, { 'proxy-authorization': `Basic ${Buffer.from('agent:s3cret').toString('base64')}` });
    expect(right.status).toBe(200);
    expect(a.seen.length).toBe(1);
    expect(a.seen[0].rawHeaders.map((n) => n.toLowerCase())).not.toContain('proxy-authorization');
    const totals = await recorder.close();
    expect(totals.exchanges).toBe(4);
    const exchanges = read(out).exchanges();
    expect(exchanges.map((e) => [e.transport, e.method, e.url, e.status, e.outcome, e.errorCode])).toEqual([
      ['http', 'GET', `${a.origin}/x?q=1`, 407, 'rejected', 'E_PROXY_AUTH'],
      ['http', 'POST', `${a.origin}/y`, 407, 'rejected', 'E_PROXY_AUTH'],
      ['tunnel', 'CONNECT', `127.0.0.1:${a.port}`, 407, 'rejected', 'E_PROXY_AUTH'],
      ['http', 'GET', `${a.origin}/x`, 200, 'complete', null],
    ]);
    expect(exchanges[0]).toMatchObject({ path: '/x', query: 'q=1', errorMessage: expect.stringContaining('no Proxy-Authorization was sent') });
    expect(exchanges[1].errorMessage).toContain('the Proxy-Authorization sent is not them');
    expect(exchanges.flatMap((e) => Object.keys(e.requestHeaders ?? {})).map((n) => n.toLowerCase())).not.toContain('proxy-authorization');
    expect(JSON.stringify(exchanges)).not.toContain(wrongCredentials.slice(6));
  });
});

describe('record --forward: CONNECT tunnels', () => {
  it("passes a --tunnel host's bytes through unchanged both ways and logs it as one exchange with the bytes each way", async () => {
    const fromClient = Buffer.alloc(200_000, 'c');
    for (let i = 0; i < fromClient.length; i += 997) fromClient[i] = i % 251;
    const fromServer = Buffer.alloc(150_000, 's');
    for (let i = 0; i < fromServer.length; i += 991) fromServer[i] = i % 241;
    let serverGot: Promise<Buffer> | undefined;
    const tcp = createTcpServer((socket) => {
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      serverGot = new Promise((resolve) => socket.on('end', () => resolve(Buffer.concat(chunks))));
      socket.end(fromServer);
    });
    tcp.listen(0, '127.0.0.1');
    await once(tcp, 'listening');
    onCleanup(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
    const { recorder, out, port } = await startProxy({ tunnel: ['127.0.0.*'] });
    const authority = `127.0.0.1:${(tcp.address() as AddressInfo).port}`;
    const tunnel = await openTunnel(port, authority);
    expect(tunnel.status).toBe(200);
    const received: Buffer[] = [tunnel.head];
    tunnel.socket.on('data', (c: Buffer) => received.push(c));
    const clientEnded = once(tunnel.socket, 'end');
    tunnel.socket.end(fromClient);
    await within(clientEnded, 'the tunnel to end');
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(sha(Buffer.concat(received))).toBe(sha(fromServer));
    expect(sha(await within(serverGot!, 'the host to read everything'))).toBe(sha(fromClient));
    await exchangesEnded(out, 1);
    await recorder.close();
    const [exchange] = read(out).exchanges();
    expect(exchange).toMatchObject({ transport: 'tunnel', method: 'CONNECT', url: authority, status: 200, outcome: 'complete', tunnel: { clientBytes: fromClient.length, serverBytes: fromServer.length } });
    expect(exchange.endedMs).toBeGreaterThanOrEqual(exchange.startedMs);
  });

  it("counts a tunnel's duration from the CONNECT's arrival, not from its first bytes", async () => {
    const tcp = createTcpServer((socket) => socket.resume().on('end', () => socket.end()));
    tcp.listen(0, '127.0.0.1');
    await once(tcp, 'listening');
    onCleanup(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
    // A recording clock the test moves: the CONNECT arrives at 100, its first bytes at 5000.
    let now = 100;
    const clock = new (class extends RecordingClock {
      override now(): number {
        return now;
      }
    })();
    const out = scratch().file('forward.db');
    const { sink } = await openRecordingSink({ out, target: 'forward proxy', clock, pipeline: 'inline' });
    const proxy = await startForwardProxyServer({ listen: parseListen(0), recorder: sink, shutdownGraceMs: SHUTDOWN_GRACE_MS });
    onCleanup(() => proxy.close());
    const tunnel = await openTunnel(Number(new URL(proxy.url).port), `127.0.0.1:${(tcp.address() as AddressInfo).port}`);
    expect(tunnel.status).toBe(200);
    now = 5000;
    tunnel.socket.resume();
    const ended = once(tunnel.socket, 'close');
    tunnel.socket.end(Buffer.from([0x16, 0x03, 0x01]));
    await within(ended, 'the tunnel to close');
    await waitFor(() => sink.totals().exchanges === 1, 'the tunnel to be recorded');
    await proxy.close();
    await sink.close(new Date());
    const [exchange] = read(out).exchanges();
    expect(exchange).toMatchObject({ transport: 'tunnel', startedMs: 100, endedMs: 5000 });
  });

  it('tunnels a TLS opening to a host no --tunnel names (there is no CA to intercept it with)', async () => {
    const hello = Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5]);
    let got: Promise<Buffer> | undefined;
    const tcp = createTcpServer((socket) => {
      got = new Promise((resolve) => socket.once('data', (c: Buffer) => resolve(c)));
      socket.end('back');
    });
    tcp.listen(0, '127.0.0.1');
    await once(tcp, 'listening');
    onCleanup(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
    const { recorder, out, port } = await startProxy();
    const tunnel = await openTunnel(port, `127.0.0.1:${(tcp.address() as AddressInfo).port}`);
    const received: Buffer[] = [tunnel.head];
    tunnel.socket.on('data', (c: Buffer) => received.push(c));
    const ended = once(tunnel.socket, 'end');
    tunnel.socket.end(hello);
    await within(ended, 'the tunnel to end');
    expect(await within(got!, 'the hello')).toEqual(hello);
    expect(Buffer.concat(received).toString()).toBe('back');
    await exchangesEnded(out, 1);
    await recorder.close();
    const [exchange] = read(out).exchanges();
    expect(exchange).toMatchObject({ transport: 'tunnel', outcome: 'complete', tunnel: { clientBytes: hello.length, serverBytes: 4 } });
  });

  it('reads plain HTTP inside a CONNECT as requests to its host (what fetch does with HTTP_PROXY), each recorded with its origin', async () => {
    const a = await startOrigin('a');
    const { recorder, out, port } = await startProxy();
    const answers: string[] = [];
    for (const path of ['/one', '/two?x=1']) {
      const tunnel = await openTunnel(port, `127.0.0.1:${a.port}`);
      expect(tunnel.status).toBe(200);
      const answer = await new Promise<string>((resolve, reject) => {
        const req = request({ createConnection: () => tunnel.socket, path, headers: { host: `127.0.0.1:${a.port}` } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString()));
        });
        req.on('error', reject);
        req.end();
      });
      answers.push(answer);
    }
    expect(answers.map((text) => JSON.parse(text).url)).toEqual(['/one', '/two?x=1']);
    await recorder.close();
    const exchanges = read(out).exchanges();
    expect(exchanges.map((e) => [e.transport, e.url, e.status])).toEqual([
      ['http', `${a.origin}/one`, 200],
      ['http', `${a.origin}/two?x=1`, 200],
    ]);
  });

  it('answers a CONNECT to a host that does not answer with a 502 saying why, and records it', async () => {
    const closed = createTcpServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { recorder, out, port } = await startProxy();
    const answer = await openTunnel(port, `127.0.0.1:${deadPort}`);
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.head.toString()).error).toMatchObject({ code: 'upstream_unreachable', message: `cannot reach 127.0.0.1:${deadPort}: nothing listens on that port (ECONNREFUSED)` });
    await recorder.close();
    const [exchange] = read(out).exchanges();
    expect(exchange).toMatchObject({ transport: 'tunnel', status: 502, outcome: 'error', errorCode: 'E_UPSTREAM_UNREACHABLE', tunnel: { clientBytes: 0, serverBytes: 0 } });
  });

  it('cuts an open tunnel when the recorder stops, and says so', async () => {
    const tcp = createTcpServer((socket) => socket.on('error', () => {}));
    tcp.listen(0, '127.0.0.1');
    await once(tcp, 'listening');
    onCleanup(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
    const { recorder, out, port } = await startProxy({ tunnel: ['127.0.0.1'] });
    const tunnel = await openTunnel(port, `127.0.0.1:${(tcp.address() as AddressInfo).port}`);
    tunnel.socket.on('error', () => {});
    const gone = once(tunnel.socket, 'close');
    await recorder.close();
    await within(gone, 'the tunnel to be cut');
    const [exchange] = read(out).exchanges();
    expect(exchange).toMatchObject({ transport: 'tunnel', outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN' });
  });
});

describe('record --forward: interception with the local CA', () => {
  /** An HTTPS stand-in (with a WebSocket echo) whose certificate `ca` signed for 127.0.0.1. */
  async function startHttpsOrigin(name: string, ca: TestCa): Promise<{ port: number; origin: string }> {
    const { cert, key } = await ca.serverCertificate('127.0.0.1', 'localhost');
    const server = createHttpsServer({ cert, key }, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name, url: req.url }));
    });
    const wss = new WebSocketServer({ server });
    wss.on('connection', (ws) => ws.on('message', (data) => ws.send(`${name} ${data.toString()}`)));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closeServerOnCleanup(server, wss);
    const port = (server.address() as AddressInfo).port;
    return { port, origin: `https://127.0.0.1:${port}` };
  }

  async function makeCa(): Promise<TestCa> {
    const ca = await makeTestCa();
    onCleanup(() => ca.remove());
    return ca;
  }

  /** TLS through a CONNECT to `port`, as a client trusting `trusted` (PEM) does it. */
  async function tlsThrough(proxyPort: number, port: number, trusted: string): Promise<TLSSocket> {
    const tunnel = await openTunnel(proxyPort, `127.0.0.1:${port}`);
    expect(tunnel.status).toBe(200);
    const socket = tlsConnect({ socket: tunnel.socket, ca: trusted, servername: 'localhost', ALPNProtocols: ['h2', 'http/1.1'] });
    onCleanup(() => {
      socket.destroy();
    });
    await within(once(socket, 'secureConnect'), 'the TLS handshake through the proxy');
    return socket;
  }

  function getOver(socket: TLSSocket, path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest({ createConnection: () => socket, path, headers: { host: 'localhost' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('answers TLS with a leaf of its CA, reads the requests and WebSockets inside, and forwards them checked against --ca, with their TLS facts', async () => {
    const upstreamCa = await makeCa();
    const a = await startHttpsOrigin('a', upstreamCa);
    const b = await startHttpsOrigin('b', upstreamCa);
    const caDir = scratch().dir;
    const { recorder, out, port } = await startProxy({ caDir, upstreamTls: { ca: [upstreamCa.caFile] } });
    const proxyCa = readFileSync(join(caDir, 'ca-cert.pem'), 'utf8');
    const first = await tlsThrough(port, a.port, proxyCa);
    expect(first.alpnProtocol).toBe('http/1.1');
    expect(first.getPeerX509Certificate()?.issuer).toMatch(/agent-proxy/);
    expect(JSON.parse((await getOver(first, '/v1/models')).body)).toEqual({ name: 'a', url: '/v1/models' });
    const second = await tlsThrough(port, b.port, proxyCa);
    expect(JSON.parse((await getOver(second, '/two')).body)).toEqual({ name: 'b', url: '/two' });
    const wsSocket = await tlsThrough(port, b.port, proxyCa);
    const session = await wsOpen(`wss://localhost:${b.port}/live`, [], { createConnection: () => wsSocket });
    session.ws.send('hi');
    expect(await session.take(1)).toEqual(['b hi']);
    session.ws.close(1000);
    await session.closed;
    await exchangesEnded(out, 3);
    await recorder.close();
    const exchanges = read(out).exchanges();
    expect(exchanges.map((e) => [e.transport, e.url, e.status, e.tls?.authorized])).toEqual([
      ['http', `${a.origin}/v1/models`, 200, true],
      ['http', `${b.origin}/two`, 200, true],
      ['ws', `${b.origin}/live`, 101, true],
    ]);
    expect(exchanges[0].protocol).toBe('openai');
  });

  it('answers a 502 for an upstream whose certificate fails the check, recorded as E_UPSTREAM_TLS', async () => {
    const otherCa = await makeCa();
    const bad = await startHttpsOrigin('bad', otherCa);
    const caDir = scratch().dir;
    const { recorder, out, port } = await startProxy({ caDir });
    const socket = await tlsThrough(port, bad.port, readFileSync(join(caDir, 'ca-cert.pem'), 'utf8'));
    const answer = await getOver(socket, '/x');
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body).error.code).toBe('upstream_tls_failed');
    await recorder.close();
    const [exchange] = read(out).exchanges();
    expect(exchange).toMatchObject({ url: `${bad.origin}/x`, status: 502, errorCode: 'E_UPSTREAM_TLS', tls: { authorized: false } });
  });

  it('gives a client that does not trust its CA a TLS error, never the upstream in clear, and records it as E_CLIENT_TLS with a finding that says how to fix it', async () => {
    const upstreamCa = await makeCa();
    const a = await startHttpsOrigin('a', upstreamCa);
    const caDir = scratch().dir;
    const { recorder, out, port } = await startProxy({ caDir, upstreamTls: { ca: [upstreamCa.caFile] } });
    const tunnel = await openTunnel(port, `127.0.0.1:${a.port}`);
    const socket = tlsConnect({ socket: tunnel.socket, servername: 'localhost', ca: readFileSync(upstreamCa.caFile, 'utf8') });
    const [error] = (await within(once(socket, 'error'), 'the TLS error')) as [NodeJS.ErrnoException];
    expect(error.code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/);
    await exchangesEnded(out, 1);
    // The proxy goes on: a client that trusts the CA is served.
    const trusting = await tlsThrough(port, a.port, readFileSync(join(caDir, 'ca-cert.pem'), 'utf8'));
    expect(JSON.parse((await getOver(trusting, '/ok')).body)).toEqual({ name: 'a', url: '/ok' });
    await recorder.close();
    const [refused, served] = read(out).exchanges();
    expect(refused).toMatchObject({ transport: 'tunnel', method: 'CONNECT', url: `127.0.0.1:${a.port}`, status: 200, outcome: 'error', errorCode: 'E_CLIENT_TLS' });
    expect(served).toMatchObject({ url: `${a.origin}/ok`, status: 200 });
    const [finding] = exchangeFindings(refused);
    expect(finding).toMatchObject({ rule: 'client-tls-failed', severity: 'error' });
    expect(finding.message).toContain('CONNECT 127.0.0.1');
    expect(finding.message).toContain('agent-proxy ca --env');
  });

  it("passes a trusting client's bytes through interception unchanged both ways", async () => {
    const upstreamCa = await makeCa();
    const { cert, key } = await upstreamCa.serverCertificate('127.0.0.1', 'localhost');
    // Answers with the body it got: what comes back is what went through both legs.
    const echo = createHttpsServer({ cert, key }, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      req.pipe(res);
    });
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    closeServerOnCleanup(echo);
    const caDir = scratch().dir;
    const { recorder, port } = await startProxy({ caDir, upstreamTls: { ca: [upstreamCa.caFile] } });
    const socket = await tlsThrough(port, (echo.address() as AddressInfo).port, readFileSync(join(caDir, 'ca-cert.pem'), 'utf8'));
    const sent = Buffer.alloc(300_000);
    for (let i = 0; i < sent.length; i++) sent[i] = (i * 7919) % 256;
    const back = await new Promise<Buffer>((resolve, reject) => {
      const req = httpsRequest({ createConnection: () => socket, method: 'POST', path: '/echo', headers: { host: 'localhost', 'content-type': 'application/octet-stream' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      });
      req.on('error', reject);
      req.end(sent);
    });
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(sha(back)).toBe(sha(sent));
    await recorder.close();
  });
});
