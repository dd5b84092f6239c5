/**
 * `replay --forward` in-process: a recording `record --forward` made of a child's calls (two plain
 * HTTP hosts and an HTTPS one, the same path on each) is served back to the same child, configured
 * the same way, with the stand-ins stopped: it prints the same, each host answered from its own
 * exchanges. A request or CONNECT to a host the recording does not hold gets a 502 naming it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startForwardRecorder } from '../../src/record/start-forward-recorder.js';
import { startMissRecorder } from '../../src/record/start-miss-recorder.js';
import { startReplay } from '../../src/replay/start-replay.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { UsageError } from '../../src/core/errors.js';
import { forwardChildEnvironment } from '../../src/cli/forward-child.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { makeTestCa } from '../support/test-ca.js';
import { scratch } from '../support/temp-dir.js';
import { within } from '../support/waits.js';
import { writeNdjsonRecording } from '../support/ndjson-recording.js';
import { wsOpen } from '../support/ws-client.js';
import { WebSocketServer } from 'ws';
import { withoutNodeProxyWarning } from '../support/node-proxy-warning.js';
import { viaProxy } from '../support/via-forward-proxy.js';

useCleanups();

/**
 * Calls each origin's /v1/models through the proxy in HTTPS_PROXY, by fetch and by http(s).get, as
 * the Node it runs on lets it, in the order its arguments give: replayed in another order than
 * recorded, a host served another host's answer would show.
 */
const CLIENT = String.raw`
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
const proxy = new URL(process.env.HTTPS_PROXY);
const [major, minor] = process.versions.node.split('.').map(Number);
// docs/forward.md: which Node honours NODE_USE_ENV_PROXY for what.
const fetchHonoured = major > 22 || (major === 22 && minor >= 21);
const httpHonoured = major > 24 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21);
const body = (res) => new Promise((resolve, reject) => { let text = ''; res.on('data', (c) => (text += c)); res.on('end', () => resolve(res.statusCode + ' ' + text)); res.on('error', reject); });
const connectThrough = (authority) => new Promise((resolve, reject) => {
  const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: authority });
  req.on('connect', (res, socket) => (res.statusCode === 200 ? resolve(socket) : reject(new Error('CONNECT ' + res.statusCode))));
  req.on('error', reject);
  req.end();
});
async function httpGet(url) {
  if (httpHonoured) return body(await new Promise((resolve, reject) => http.get(url, resolve).on('error', reject)));
  return body(await new Promise((resolve, reject) => http.get({ host: proxy.hostname, port: proxy.port, path: url, headers: { host: new URL(url).host } }, resolve).on('error', reject)));
}
async function httpsGet(url) {
  if (httpHonoured) return body(await new Promise((resolve, reject) => https.get(url, resolve).on('error', reject)));
  const { host, pathname, search } = new URL(url);
  const socket = tls.connect({ socket: await connectThrough(host), servername: 'localhost' });
  return body(await new Promise((resolve, reject) => https.get({ createConnection: () => socket, path: pathname + search, headers: { host } }, resolve).on('error', reject)));
}
async function fetchText(url) {
  if (!fetchHonoured) return url.startsWith('https:') ? httpsGet(url) : httpGet(url);
  const res = await fetch(url);
  return res.status + ' ' + (await res.text());
}
// name=origin arguments, called in the order given; the results printed by name.
const results = {};
for (const [name, origin] of process.argv.slice(2).map((arg) => arg.split(/=(.*)/s))) {
  results[name + 'Fetch'] = await fetchText(origin + '/v1/models?via=fetch');
  results[name + 'Http'] = await (origin.startsWith('https:') ? httpsGet : httpGet)(origin + '/v1/models?via=http');
}
process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(results).sort())) + '\n');
`;

function runClient(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return within(
    once(child, 'exit').then(([code]) => ({ code: code as number | null, stdout, stderr })),
    'the client to exit',
  );
}

/** A stand-in answering /v1/models with a model list that names it. */
function modelsFrom(name: string): (req: IncomingMessage, res: import('node:http').ServerResponse) => void {
  return (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: `${name}-model`, object: 'model' }] }));
}

async function listening(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return String((server.address() as AddressInfo).port);
}

/** A CONNECT through the proxy: its status, and the body of a refusal (Node hands any answer to a CONNECT to 'connect', body unread). */
function connectVia(proxyUrl: string, authority: string): Promise<{ status: number; body: string }> {
  const proxy = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: authority, agent: false });
    req.on('connect', (res: IncomingMessage, socket: Socket, head: Buffer) => {
      const chunks: Buffer[] = [head];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      socket.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('replay --forward', () => {
  it('answers the child that was recorded through record --forward the same, each host from its own exchanges, with the stand-ins stopped', async () => {
    const dir = scratch();
    const caDir = dir.file('ca');
    const upstreamCa = await makeTestCa();
    onCleanup(() => upstreamCa.remove());
    const plainA = createServer(modelsFrom('a'));
    const plainB = createServer(modelsFrom('b'));
    const secure = createHttpsServer(await upstreamCa.serverCertificate('127.0.0.1', 'localhost'), modelsFrom('secure'));
    const origins = [`http://127.0.0.1:${await listening(plainA)}`, `http://127.0.0.1:${await listening(plainB)}`, `https://127.0.0.1:${await listening(secure)}`];
    const stopStandIns = () => Promise.all([plainA, plainB, secure].map((server) => new Promise<void>((resolve) => server.close(() => resolve())).then(() => server.closeAllConnections())));
    onCleanup(() => stopStandIns().then(() => undefined));
    const client = dir.file('client.mjs');
    writeFileSync(client, CLIENT);

    const out = dir.file('forward.db');
    const recorder = await startForwardRecorder({ listen: 0, out, caDir, upstreamTls: { ca: [upstreamCa.caFile] }, pipeline: 'inline' });
    const named = ['a', 'b', 'secure'].map((name, i) => `${name}=${origins[i]}`);
    const recorded = await runClient([client, ...named], await forwardChildEnvironment(recorder.url, caDir));
    await recorder.close();
    expect(withoutNodeProxyWarning(recorded.stderr)).toBe('');
    const results = JSON.parse(recorded.stdout) as Record<string, string>;
    expect(results.aHttp).toContain('a-model');
    expect(results.bFetch).toContain('b-model');
    expect(results.secureHttp).toContain('secure-model');
    await stopStandIns();

    const replay = await startReplay({ recording: out, forward: true, caDir, listen: 0, timing: 'none' });
    onCleanup(() => replay.close().then(() => undefined));
    const replayed = await runClient([client, ...named.toReversed()], await forwardChildEnvironment(replay.url, caDir));
    expect(withoutNodeProxyWarning(replayed.stderr)).toBe('');
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toBe(recorded.stdout);

    // A host the recording does not hold: a 502 naming it and the nearest recorded request, and a miss.
    const elsewhere = 'http://127.0.0.1:9/v1/models?via=http';
    const unknown = await viaProxy(replay.url, elsewhere);
    expect(unknown.status).toBe(502);
    const error = (JSON.parse(unknown.body) as { error: { code: string; message: string; host: string; nearest: { url: string } } }).error;
    expect(error).toMatchObject({ code: 'replay_unknown_host', host: 'http://127.0.0.1:9' });
    expect(error.nearest.url).toBe(`${origins[0]}/v1/models?via=http`);
    expect(error.message).toContain('http://127.0.0.1:9');
    // A CONNECT to one: refused before any TLS.
    const tunnel = await connectVia(replay.url, '127.0.0.1:9');
    expect(tunnel.status).toBe(502);
    expect(tunnel.body).toContain('https://127.0.0.1:9');
    const summary = await replay.close();
    expect(summary.misses.map((miss) => miss.request.path)).toEqual(['http://127.0.0.1:9/v1/models', 'https://127.0.0.1:9/']);
    expect(summary.unused).toEqual([]);

    // Plain HTTP inside a CONNECT (Node 22 and 24's fetch send http:// requests so): answered for http://host:port.
    const again = await startReplay({ recording: out, forward: true, caDir, listen: 0, timing: 'none' });
    onCleanup(() => again.close().then(() => undefined));
    const proxy = new URL(again.url);
    const hostB = new URL(origins[1]).host;
    const socket = await new Promise<Socket>((resolve, reject) => {
      request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: hostB, agent: false })
        .on('connect', (res: IncomingMessage, tunnelled: Socket) => (res.statusCode === 200 ? resolve(tunnelled) : reject(new Error(`CONNECT ${res.statusCode}`))))
        .on('error', reject)
        .end();
    });
    const inside = await new Promise<string>((resolve, reject) => {
      request({ createConnection: () => socket, path: '/v1/models?via=http', headers: { host: hostB } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(`${res.statusCode} ${Buffer.concat(chunks).toString()}`));
      })
        .on('error', reject)
        .end();
    });
    expect(inside).toBe(results.bHttp);
    socket.destroy();
  });

  it('warns that it answers every request with 502 when the recording was made without --forward', async () => {
    const out = writeNdjsonRecording([{ transport: 'http', method: 'GET', path: '/v1/models', status: 200, messages: [{ sender: 'server', json: { object: 'list', data: [] } }] }]);
    const replay = await startReplay({ recording: out, forward: true, listen: 0 });
    onCleanup(() => replay.close().then(() => undefined));
    expect(replay.warnings).toEqual([expect.stringContaining('holds no exchange recorded by record --forward')]);
    const answer = await viaProxy(replay.url, 'http://127.0.0.1:9/v1/models');
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'replay_unknown_host', recordedHosts: [], nearest: null } });
  });

  it('replays a WebSocket upgrade sent in absolute form from its origin\'s recorded frames', async () => {
    const dir = scratch();
    const origin = createServer();
    const wss = new WebSocketServer({ server: origin });
    wss.on('connection', (ws) => ws.on('message', (data) => ws.send(`echo ${data.toString()}`)));
    const url = `http://127.0.0.1:${await listening(origin)}`;
    const talk = async (proxyUrl: string) => {
      const session = await wsOpen(proxyUrl.replace(/^http/, 'ws'), [], {
        finishRequest: (req) => {
          req.path = `${url}/chat`;
          req.end();
        },
      });
      session.ws.send('hello');
      const frames = await session.take(1);
      session.ws.close(1000);
      await session.closed;
      return frames;
    };
    const out = dir.file('ws.db');
    const recorder = await startForwardRecorder({ listen: 0, out, pipeline: 'inline' });
    expect(await talk(recorder.url)).toEqual(['echo hello']);
    for (const ws of wss.clients) ws.terminate();
    await recorder.close();
    await new Promise<void>((resolve) => origin.close(() => resolve()));

    const replay = await startReplay({ recording: out, forward: true, listen: 0, timing: 'none' });
    onCleanup(() => replay.close().then(() => undefined));
    expect(await talk(replay.url)).toEqual(['echo hello']);
    const summary = await replay.close();
    expect(summary).toMatchObject({ misses: [], unused: [] });
  });

  it('passes a WebSocket upgrade and a request to a host it does not hold through to it, recorded into --misses-out with their absolute URLs, and takes no --target', async () => {
    const dir = scratch();
    const origin = createServer(modelsFrom('live'));
    const wss = new WebSocketServer({ server: origin });
    wss.on('connection', (ws) => ws.on('message', (data) => ws.send(`live ${data.toString()}`)));
    const url = `http://127.0.0.1:${await listening(origin)}`;
    onCleanup(() => new Promise<void>((resolve) => (wss.clients.forEach((ws) => ws.terminate()), origin.close(() => resolve()))));
    const recording = writeNdjsonRecording([{ transport: 'http', method: 'GET', path: 'http://127.0.0.1:9/v1/models', status: 200, messages: [{ sender: 'server', json: { object: 'list', data: [] } }] }]);
    const missesOut = dir.file('misses.db');
    await expect(startReplay({ recording, forward: true, onMiss: 'passthrough', target: url, listen: 0 }, startMissRecorder)).rejects.toThrow(UsageError);

    const replay = await startReplay({ recording, forward: true, onMiss: 'passthrough', missesOut, listen: 0, timing: 'none' }, startMissRecorder);
    onCleanup(() => replay.close().then(() => undefined));
    expect(JSON.parse((await viaProxy(replay.url, `${url}/v1/models`)).body)).toMatchObject({ data: [{ id: 'live-model' }] });
    const session = await wsOpen(replay.wsUrl, [], {
      finishRequest: (req) => {
        req.path = `${url}/chat`;
        req.end();
      },
    });
    session.ws.send('hello');
    expect(await session.take(1)).toEqual(['live hello']);
    session.ws.close(1000);
    await session.closed;
    const summary = await replay.close();
    expect(summary.misses.map((miss) => [miss.request.path, miss.action])).toEqual([
      [`${url}/v1/models`, 'passthrough'],
      [`${url}/chat`, 'passthrough'],
    ]);
    expect(summary.missesOut).toMatchObject({ file: missesOut, appended: false, totals: { exchanges: 2 } });
    const reader = RecordingReader.open(missesOut);
    onCleanup(() => reader.close());
    expect(reader.exchanges().map((e) => [e.transport, e.url])).toEqual([
      ['http', `${url}/v1/models`],
      ['ws', `${url}/chat`],
    ]);
  });
});
