/**
 * `record --forward --out x.db -- node client.mjs`: the client's fetch and http/https calls reach a
 * plain HTTP stand-in and an HTTPS one (its own CA, intercepted with the proxy's CA) through the proxy,
 * and a tunnelled host's bytes pass through unchanged; the client prints the same as when it runs
 * with no proxy, and the recorder exits with its code. On a Node whose fetch or http ignore the
 * proxy variables (20; see docs/forward.md), the client sends through the proxy itself, from
 * HTTPS_PROXY, as a user of such a Node would.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { closeServerOnCleanup, onCleanup, useCleanups } from '../support/cleanups.js';
import { makeTestCa } from '../support/test-ca.js';
import { scratch } from '../support/temp-dir.js';
import { within } from '../support/waits.js';
import { runCli } from './run-cli.js';

useCleanups();

const CLIENT = String.raw`
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { createHash } from 'node:crypto';
const [httpOrigin, httpsOrigin, tunnelAuthority] = process.argv.slice(2);
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
const results = {
  fetchHttp: await fetchText(httpOrigin + '/v1/models?via=fetch'),
  http: await httpGet(httpOrigin + '/v1/models?via=http'),
  fetchHttps: await fetchText(httpsOrigin + '/v1/models?via=fetch'),
  https: await httpsGet(httpsOrigin + '/v1/models?via=https'),
  tunnel: await tunnelled(tunnelAuthority),
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

describe('record --forward -- <command>', () => {
  it("records the command's calls with their origins, passes a tunnel through unchanged, and exits with its code", async () => {
    const dir = scratch();
    const models = JSON.stringify({ object: 'list', data: [] });
    const plain = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(models));
    const listening = [once(plain.listen(0, '127.0.0.1'), 'listening')];
    const upstreamCa = await makeTestCa();
    onCleanup(() => upstreamCa.remove());
    const secure = createHttpsServer(await upstreamCa.serverCertificate('127.0.0.1', 'localhost'), (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(models));
    listening.push(once(secure.listen(0, '127.0.0.1'), 'listening'));
    const received: Buffer[] = [];
    const tcp = createTcpServer((socket) => {
      socket.on('data', (c: Buffer) => received.push(c));
      socket.on('end', () => socket.end(Buffer.from('tunnelled answer')));
    });
    listening.push(once(tcp.listen(0, '127.0.0.1'), 'listening'));
    await Promise.all(listening);
    closeServerOnCleanup(plain);
    closeServerOnCleanup(secure);
    onCleanup(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
    const httpOrigin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    const httpsOrigin = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
    const tunnelAuthority = `localhost:${(tcp.address() as AddressInfo).port}`;
    const client = dir.file('client.mjs');
    writeFileSync(client, CLIENT);

    const direct = await runNode([client, httpOrigin, httpsOrigin, tunnelAuthority], { NODE_EXTRA_CA_CERTS: upstreamCa.caFile, HTTPS_PROXY: '', HTTP_PROXY: '' });
    expect(direct.code).toBe(3);
    const sentDirectly = Buffer.concat(received.splice(0));

    const out = dir.file('forward.db');
    const recorded = await runCli(['record', '--forward', '--listen', '0', '--out', out, '--ca-dir', dir.file('ca'), '--ca', upstreamCa.caFile, '--tunnel', 'localhost', '--', process.execPath, client, httpOrigin, httpsOrigin, tunnelAuthority]);
    expect(recorded.code).toBe(3);
    expect(recorded.stdout).toBe(direct.stdout);
    const results = JSON.parse(recorded.stdout) as Record<string, string>;
    expect(results.fetchHttp).toBe(models);
    expect(results.tunnel).toBe(createHash('sha256').update('tunnelled answer').digest('hex'));
    const sentThrough = Buffer.concat(received);
    expect(createHash('sha256').update(sentThrough).digest('hex')).toBe(createHash('sha256').update(sentDirectly).digest('hex'));

    const reader = RecordingReader.open(out);
    onCleanup(() => reader.close());
    const exchanges = reader.exchanges();
    const byUrl = new Map(exchanges.map((e) => [e.url, e]));
    for (const via of ['fetch', 'http']) {
      expect(byUrl.get(`${httpOrigin}/v1/models?via=${via}`)).toMatchObject({ transport: 'http', protocol: 'openai', status: 200 });
      expect(byUrl.get(`${httpsOrigin}/v1/models?via=${via === 'http' ? 'https' : via}`)).toMatchObject({ transport: 'http', protocol: 'openai', status: 200, tls: { authorized: true } });
    }
    expect(byUrl.get(tunnelAuthority)).toMatchObject({ transport: 'tunnel', outcome: 'complete', tunnel: { clientBytes: sentThrough.length, serverBytes: 'tunnelled answer'.length } });
    expect(exchanges.length).toBe(5);

    // show lists them under their hosts, in the order each host was first called.
    const shown = (await runCli(['show', out])).stdout.split('\n');
    const hostLines = shown.filter((line) => /^\S+ {2}\(\d+ exchanges?\)$/.test(line));
    expect(hostLines).toEqual([`${new URL(httpOrigin).host}  (2 exchanges)`, `${new URL(httpsOrigin).host}  (2 exchanges)`, `${tunnelAuthority}  (1 exchange)`]);
    expect(shown[shown.indexOf(hostLines[1]) + 1]).toMatch(/^#\d+ +http\/openai +GET \/v1\/models/);
  });
});
