/**
 * `record --forward --out x.db -- node client.mjs`: the client's fetch and http/https calls reach a
 * plain HTTP stand-in and two HTTPS ones (each with its own CA, intercepted with the proxy's CA)
 * through the proxy, a WebSocket over TLS reaches one of them, and a tunnelled host's bytes pass
 * through unchanged; the client prints the same as when it runs with no proxy, and the recorder
 * exits with its code, its CA key mode 0600. Then, with the stand-ins stopped, the same client against `replay --forward`
 * of that recording prints the same (but for the tunnel, which is never replayed: docs/forward.md).
 * On a Node whose fetch or http ignore the proxy variables (20; see docs/forward.md), the client
 * sends through the proxy itself, from HTTPS_PROXY, as a user of such a Node would.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { makeTestCa } from '../support/test-ca.js';
import { scratch } from '../support/temp-dir.js';
import { within } from '../support/waits.js';
import { REPO, runCli } from './run-cli.js';

useCleanups();

const CLIENT = String.raw`
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
// This file lives in a temp folder: ws comes from the repository's node_modules.
const [repo, httpOrigin, httpsOrigin, otherHttpsOrigin, tunnelAuthority] = process.argv.slice(2);
const WebSocket = createRequire(repo + '/package.json')('ws');
const proxy = process.env.HTTPS_PROXY ? new URL(process.env.HTTPS_PROXY) : undefined;
const [major, minor] = process.versions.node.split('.').map(Number);
// docs/forward.md: which Node honours NODE_USE_ENV_PROXY for what.
const fetchHonoured = major > 22 || (major === 22 && minor >= 21);
const httpHonoured = major > 24 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21);
const body = (res) => new Promise((resolve, reject) => { let text = ''; res.on('data', (c) => (text += c)); res.on('end', () => resolve(text)); res.on('error', reject); });
/** A tunnel through the proxy, as a client that configures it itself opens one. */
const connectThrough = (authority) => new Promise((resolve, reject) => {
  const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: authority });
  req.on('connect', (res, socket) => (res.statusCode === 200 ? resolve(socket) : reject(new Error('CONNECT ' + res.statusCode))));
  req.on('error', reject);
  req.end();
});
async function httpGet(url) {
  if (!proxy || httpHonoured) return body(await new Promise((resolve, reject) => http.get(url, resolve).on('error', reject)));
  return body(await new Promise((resolve, reject) => http.get({ host: proxy.hostname, port: proxy.port, path: url, headers: { host: new URL(url).host } }, resolve).on('error', reject)));
}
async function httpsGet(url) {
  if (!proxy || httpHonoured) return body(await new Promise((resolve, reject) => https.get(url, resolve).on('error', reject)));
  const { host, pathname, search } = new URL(url);
  const socket = tls.connect({ socket: await connectThrough(host), servername: 'localhost' });
  return body(await new Promise((resolve, reject) => https.get({ createConnection: () => socket, path: pathname + search, headers: { host } }, resolve).on('error', reject)));
}
async function fetchText(url) {
  // Node 20's fetch cannot be pointed at a proxy without undici's ProxyAgent: its request goes as http's would.
  if (!proxy || fetchHonoured) return (await fetch(url)).text();
  return url.startsWith('https:') ? httpsGet(url) : httpGet(url);
}
async function tunnelled(authority) {
  const payload = Buffer.alloc(100000, 7);
  for (let i = 0; i < payload.length; i += 101) payload[i] = i % 256;
  const [host, port] = authority.split(':');
  const socket = proxy ? await connectThrough(authority) : net.connect({ host, port: Number(port) });
  const chunks = [];
  socket.on('data', (c) => chunks.push(c));
  const ended = new Promise((resolve) => socket.on('end', resolve));
  socket.end(payload);
  await ended;
  return createHash('sha256').update(Buffer.concat(chunks)).digest('hex');
}
/** One message over a WebSocket over TLS (through a CONNECT when there is a proxy): its echo. */
async function wssEcho(url, message) {
  const { host } = new URL(url);
  const tunnelSocket = proxy ? await connectThrough(host) : undefined;
  const options = tunnelSocket ? { createConnection: () => tls.connect({ socket: tunnelSocket, servername: 'localhost' }) } : {};
  const ws = new WebSocket(url, options);
  const echo = new Promise((resolve, reject) => { ws.once('message', (data) => resolve(data.toString())); ws.once('error', reject); });
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  ws.send(message);
  const answer = await echo;
  const closed = new Promise((resolve) => ws.once('close', resolve));
  ws.close(1000);
  await closed;
  return answer;
}
const results = {
  fetchHttp: await fetchText(httpOrigin + '/v1/models?via=fetch'),
  http: await httpGet(httpOrigin + '/v1/models?via=http'),
  fetchHttps: await fetchText(httpsOrigin + '/v1/models?via=fetch'),
  https: await httpsGet(httpsOrigin + '/v1/models?via=https'),
  fetchOtherHttps: await fetchText(otherHttpsOrigin + '/v1/models?via=fetch'),
  otherHttps: await httpsGet(otherHttpsOrigin + '/v1/models?via=https'),
  wss: await wssEcho(otherHttpsOrigin.replace('https:', 'wss:') + '/echo', 'hello over tls'),
  // A tunnel's bytes are never replayed: a replay's client is given no tunnel.
  ...(tunnelAuthority ? { tunnel: await tunnelled(tunnelAuthority) } : {}),
};
process.stdout.write(JSON.stringify(results) + '\n');
process.exit(3);
`;

function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  return within(
    once(child, 'exit').then(([code]) => ({ code: code as number | null, stdout })),
    'the client to exit',
  );
}

/** An HTTPS stand-in answering OpenAI's model list, with a certificate of its own CA and a WebSocket echo. */
async function startHttpsStandIn(body: string): Promise<{ origin: string; caFile: string; stop: () => Promise<void> }> {
  const ca = await makeTestCa();
  onCleanup(() => ca.remove());
  const server = createHttpsServer(await ca.serverCertificate('127.0.0.1', 'localhost'), (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => ws.on('message', (data: Buffer) => ws.send(`echo ${data.toString()}`)));
  await once(server.listen(0, '127.0.0.1'), 'listening');
  const stop = () => stopServer(server, wss);
  onCleanup(stop);
  return { origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caFile: ca.caFile, stop };
}

function stopServer(server: Server | HttpsServer, wss?: WebSocketServer): Promise<void> {
  for (const ws of wss?.clients ?? []) ws.terminate();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('record --forward -- <command>', () => {
  it("records the command's calls with their origins, passes a tunnel through unchanged, exits with its code, and replays the same answers with the stand-ins stopped", async () => {
    const dir = scratch();
    const models = JSON.stringify({ object: 'list', data: [] });
    const plain = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(models));
    await once(plain.listen(0, '127.0.0.1'), 'listening');
    onCleanup(() => stopServer(plain));
    const secure = await startHttpsStandIn(models);
    const other = await startHttpsStandIn(JSON.stringify({ object: 'list', data: [{ id: 'other', object: 'model', created: 0, owned_by: 'other' }] }));
    const received: Buffer[] = [];
    const tcp = createTcpServer((socket) => {
      socket.on('data', (c: Buffer) => received.push(c));
      socket.on('end', () => socket.end(Buffer.from('tunnelled answer')));
    });
    await once(tcp.listen(0, '127.0.0.1'), 'listening');
    onCleanup(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
    const httpOrigin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    const tunnelAuthority = `localhost:${(tcp.address() as AddressInfo).port}`;
    const client = dir.file('client.mjs');
    writeFileSync(client, CLIENT);
    const bothCas = dir.file('upstream-cas.pem');
    writeFileSync(bothCas, readFileSync(secure.caFile, 'utf8') + readFileSync(other.caFile, 'utf8'));
    const clientArgs = [client, REPO, httpOrigin, secure.origin, other.origin];

    const direct = await runNode([...clientArgs, tunnelAuthority], { NODE_EXTRA_CA_CERTS: bothCas, HTTPS_PROXY: '', HTTP_PROXY: '' });
    expect(direct.code).toBe(3);
    const sentDirectly = Buffer.concat(received.splice(0));

    const out = dir.file('forward.db');
    const caDir = dir.file('ca');
    const recorded = await runCli(['record', '--forward', '--listen', '0', '--out', out, '--ca-dir', caDir, '--ca', secure.caFile, '--ca', other.caFile, '--tunnel', 'localhost', '--', process.execPath, ...clientArgs, tunnelAuthority]);
    expect(recorded.code).toBe(3);
    expect(recorded.stdout).toBe(direct.stdout);
    // The local CA the recorder made for the command: its key readable by the user alone.
    expect(statSync(join(caDir, 'ca-key.pem')).mode & 0o777).toBe(0o600);
    const results = JSON.parse(recorded.stdout) as Record<string, string>;
    expect(results.fetchHttp).toBe(models);
    expect(results.wss).toBe('echo hello over tls');
    expect(results.tunnel).toBe(createHash('sha256').update('tunnelled answer').digest('hex'));
    const sentThrough = Buffer.concat(received);
    expect(createHash('sha256').update(sentThrough).digest('hex')).toBe(createHash('sha256').update(sentDirectly).digest('hex'));

    const reader = RecordingReader.open(out);
    onCleanup(() => reader.close());
    const exchanges = reader.exchanges();
    const byUrl = new Map(exchanges.map((e) => [e.url, e]));
    for (const via of ['fetch', 'http']) {
      expect(byUrl.get(`${httpOrigin}/v1/models?via=${via}`)).toMatchObject({ transport: 'http', protocol: 'openai', status: 200 });
      for (const origin of [secure.origin, other.origin]) {
        expect(byUrl.get(`${origin}/v1/models?via=${via === 'http' ? 'https' : via}`)).toMatchObject({ transport: 'http', protocol: 'openai', status: 200, tls: { authorized: true } });
      }
    }
    const wsExchange = byUrl.get(`${other.origin}/echo`);
    expect(wsExchange).toMatchObject({ transport: 'ws', status: 101, outcome: 'complete', tls: { authorized: true } });
    const frames = reader.messages(wsExchange!.id).filter((m) => m.channel === 'text').map((m) => [m.sender, m.raw.toString()]);
    expect(frames).toEqual([
      ['client', 'hello over tls'],
      ['server', 'echo hello over tls'],
    ]);
    expect(byUrl.get(tunnelAuthority)).toMatchObject({ transport: 'tunnel', outcome: 'complete', tunnel: { clientBytes: sentThrough.length, serverBytes: 'tunnelled answer'.length } });
    expect(exchanges.length).toBe(8);

    // show lists them under their hosts, in the order each host was first called.
    const shown = (await runCli(['show', out])).stdout.split('\n');
    const hostLines = shown.filter((line) => /^\S+ {2}\(\d+ exchanges?\)$/.test(line));
    expect(hostLines).toEqual([
      `${new URL(httpOrigin).host}  (2 exchanges)`,
      `${new URL(secure.origin).host}  (2 exchanges)`,
      `${new URL(other.origin).host}  (3 exchanges)`,
      `${tunnelAuthority}  (1 exchange)`,
    ]);
    expect(shown[shown.indexOf(hostLines[1]) + 1]).toMatch(/^#\d+ +http\/openai +GET \/v1\/models/);

    // The same client against the replay, every stand-in stopped, gets the same answers.
    await Promise.all([stopServer(plain), secure.stop(), other.stop()]);
    const replayed = await runCli(['replay', '--forward', out, '--listen', '0', '--ca-dir', caDir, '--timing', 'none', '--', process.execPath, ...clientArgs]);
    expect(replayed.code).toBe(3);
    expect(replayed.stderr).toContain('exited 3: 7 served, 0 misses, 0 of 7 recorded exchanges unused');
    const { tunnel: _notReplayed, ...answered } = results;
    expect(JSON.parse(replayed.stdout)).toEqual(answered);
  });
});
