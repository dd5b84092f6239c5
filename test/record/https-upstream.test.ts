/**
 * `record --target https://…`: HTTP, SSE and WebSocket upgrades forwarded over TLS to real TLS
 * servers on 127.0.0.1, with certificates made for the run by openssl. The certificate is checked
 * against the target's host name with Node's CAs plus --ca; a failed check answers the client with a
 * 502 naming the check (and the upgrade with the same 502), and is recorded as E_UPSTREAM_TLS.
 * Also the listening side over TLS (--tls-cert/--tls-key) and replay's passthrough to an https target.
 */
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { startRecorder, type RecorderOptions, type RunningRecorder } from '../../src/record/start-recorder.js';
import { startReplay } from '../../src/replay/start-replay.js';
import { startMissRecorder } from '../../src/record/start-miss-recorder.js';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { startPiDaemon } from '../support/pi-daemon-standin.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { exportNdjsonText } from '../../src/export/ndjson-export.js';
import { exportHar } from '../../src/export/har-export.js';
import { importNdjsonText } from '../../src/store/ndjson-import.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { bareRegistry } from '../support/shared.js';
import { useCleanups } from '../support/cleanups.js';
import { wsOpen, wsRefusal } from '../support/ws-client.js';
import { within } from '../support/waits.js';
import { HAS_OPENSSL, makeTestCertificates, startTlsFront, type CertPair, type TestCertificates } from '../support/tls-fixtures.js';

useCleanups();
const cleanups = fixturesAfterEach();
const { agui, scratch } = cleanups;

let certs: TestCertificates;
beforeAll(() => {
  if (HAS_OPENSSL) certs = makeTestCertificates();
});
afterAll(() => certs?.remove());

/** The AG-UI stand-in behind a TLS server with `pair`: an https:// upstream serving SSE and JSON. */
async function aguiOverTls(pair: CertPair) {
  const agent = await agui();
  const front = await startTlsFront(pair, agent.port!);
  cleanups.push(() => front.close());
  return { agent, front };
}

/** A WebSocket echo server (plain), behind a TLS server with `pair`: a wss:// upstream. */
async function echoOverTls(pair: CertPair) {
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server });
  const upgrades: IncomingMessage[] = [];
  wss.on('connection', (ws, req) => {
    upgrades.push(req);
    ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const front = await startTlsFront(pair, (server.address() as AddressInfo).port);
  cleanups.push(() => front.close());
  return { front, upgrades };
}

interface Recording {
  recorder: RunningRecorder;
  /** Resolves once `n` exchanges have ended (a WebSocket's ends after both legs have closed, a moment after the client's). */
  ended(n: number): Promise<void>;
  /** Stops the recorder and opens the file. */
  read(): Promise<RecordingReader>;
}

async function record(target: string, options: Partial<RecorderOptions> = {}): Promise<Recording> {
  const dir = scratch();
  let ends = 0;
  const waiters: Array<() => void> = [];
  const listener: RecorderOptions['listener'] = (event) => {
    if (event.type !== 'exchange-end') return;
    ends++;
    for (const wake of waiters.splice(0)) wake();
  };
  const recorder = await startRecorder({ target, listen: 0, out: dir.file('run.db'), registry: bareRegistry(), pipeline: 'inline', listener, ...options });
  let reader: RecordingReader | undefined;
  cleanups.push(async () => {
    reader?.close();
    await recorder.close();
  });
  return {
    recorder,
    ended: (n) =>
      within(
        new Promise<void>((resolve) => {
          const check = () => (ends >= n ? resolve() : waiters.push(check));
          check();
        }),
        `${n} exchanges to end`,
      ),
    async read() {
      await recorder.close();
      reader ??= RecordingReader.open(recorder.out);
      return reader;
    },
  };
}

async function runAgui(url: string): Promise<BaseEvent[]> {
  const agent = new HttpAgent({ url, threadId: 'thread-tls', initialMessages: [{ id: 'u1', role: 'user', content: 'Hi' }] });
  const seen: BaseEvent[] = [];
  await agent.runAgent({ runId: 'run-tls' }, { onEvent: ({ event }) => void seen.push(event) });
  return seen;
}

interface ProxyError {
  code: string;
  message: string;
  target: string;
  tls?: { check: string; code: string };
}

async function proxyError(response: Response): Promise<ProxyError> {
  expect(response.status).toBe(502);
  return ((await response.json()) as { error: ProxyError }).error;
}

describe.skipIf(!HAS_OPENSSL)('record --target https://', () => {
  it('with the test CA added (--ca): the official AG-UI client runs over SSE and fetch gets JSON, through TLS with SNI, and both are recorded', async () => {
    const { agent, front } = await aguiOverTls(certs.valid);
    const target = `https://localhost:${front.port}`;
    const { recorder, read } = await record(target, { upstreamTls: { ca: [certs.caFile] } });

    const events = await runAgui(`${recorder.url}/agent`);
    expect(events.map((e) => e.type)).toContain(EventType.RUN_FINISHED);
    expect(events[0].type).toBe(EventType.RUN_STARTED);
    const health = await fetch(`${recorder.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', agent: 'agui-stand-in' });

    // The upstream got the requests (so TLS was terminated in front of it), named by SNI, with the Host of the target.
    expect(agent.requests.map((r) => r.path)).toEqual(['/agent']);
    expect(agent.requests[0].headers.host).toBe(`localhost:${front.port}`);
    expect(front.serverNames.every((name) => name === 'localhost')).toBe(true);
    expect(front.serverNames.length).toBeGreaterThan(0);

    const reader = await read();
    const exchanges = reader.exchanges();
    expect(exchanges.map((e) => [e.method, e.path, e.status, e.outcome, e.transport])).toEqual([
      ['POST', '/agent', 200, 'complete', 'sse'],
      ['GET', '/health', 200, 'complete', 'http'],
    ]);
    const recordedEvents = reader.messages(exchanges[0].id).filter((m) => m.sender === 'server' && m.channel !== 'comment');
    expect(recordedEvents.map((m) => (m.json as BaseEvent).type)).toEqual(events.map((e) => e.type));
    expect(recordedEvents.every((m) => m.verdict.status === 'valid')).toBe(true);
    expect(reader.recording().target).toBe(target);
  });

  it('an IP address target is checked against the IP in the certificate, and sends no SNI', async () => {
    const { front } = await aguiOverTls(certs.valid);
    const { recorder } = await record(`https://127.0.0.1:${front.port}`, { upstreamTls: { ca: [certs.caFile] } });
    const health = await fetch(`${recorder.url}/health`);
    expect(health.status).toBe(200);
    expect(front.serverNames).toEqual(['']);
  });

  it("a certificate for another host name: 502 naming the host-name check and the certificate's names; recorded as E_UPSTREAM_TLS", async () => {
    const { agent, front } = await aguiOverTls(certs.otherHost);
    const target = `https://localhost:${front.port}`;
    const { recorder, read } = await record(target, { upstreamTls: { ca: [certs.caFile] } });
    const error = await proxyError(await fetch(`${recorder.url}/health`));
    expect(error).toMatchObject({ code: 'upstream_tls_failed', target, tls: { check: 'host-name', code: 'ERR_TLS_CERT_ALTNAME_INVALID' } });
    expect(error.message).toContain(`TLS certificate check of ${target} failed: its certificate is for another host name`);
    expect(error.message).toContain('DNS:other.test');
    expect(agent.requests).toEqual([]);
    const reader = await read();
    expect(reader.exchanges()).toHaveLength(1);
    expect(reader.exchanges()[0]).toMatchObject({ method: 'GET', path: '/health', status: 502, outcome: 'error', errorCode: 'E_UPSTREAM_TLS', errorMessage: error.message });
  });

  it('an expired certificate: 502 saying it has expired (CERT_HAS_EXPIRED); recorded', async () => {
    const { front } = await aguiOverTls(certs.expired);
    const { recorder, read } = await record(`https://localhost:${front.port}`, { upstreamTls: { ca: [certs.caFile] } });
    const error = await proxyError(await fetch(`${recorder.url}/health`));
    expect(error.tls).toEqual({ check: 'expired', code: 'CERT_HAS_EXPIRED' });
    expect(error.message).toMatch(/its certificate has expired \[CERT_HAS_EXPIRED\]$/);
    expect((await read()).exchanges()[0]).toMatchObject({ status: 502, outcome: 'error', errorCode: 'E_UPSTREAM_TLS' });
  });

  it("without --ca the test CA is unknown: 502 'untrusted' with the hint; a self-signed certificate is named as such", async () => {
    const unknownIssuer = await aguiOverTls(certs.valid);
    const first = await record(`https://localhost:${unknownIssuer.front.port}`);
    const error = await proxyError(await fetch(`${first.recorder.url}/health`));
    expect(error.tls).toEqual({ check: 'untrusted', code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(error.message).toContain('add its CA with --ca <pem>');

    const selfSigned = await aguiOverTls(certs.selfSigned);
    const second = await record(`https://localhost:${selfSigned.front.port}`, { upstreamTls: { ca: [certs.caFile] } });
    const selfError = await proxyError(await fetch(`${second.recorder.url}/health`));
    expect(selfError.tls).toEqual({ check: 'untrusted', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
  });

  it('insecure: an expired certificate from an unknown issuer is accepted, and the run goes through', async () => {
    const { front } = await aguiOverTls(certs.expired);
    const { recorder, read } = await record(`https://localhost:${front.port}`, { upstreamTls: { insecure: true } });
    const events = await runAgui(`${recorder.url}/agent`);
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    expect((await read()).exchanges()[0]).toMatchObject({ status: 200, outcome: 'complete' });
  });

  it('a plain-HTTP server at an https:// target: 502 saying the TLS handshake failed', async () => {
    const agent = await agui();
    const { recorder, read } = await record(`https://127.0.0.1:${agent.port}`);
    const error = await proxyError(await fetch(`${recorder.url}/health`));
    expect(error.tls?.check).toBe('handshake');
    expect(error.message).toMatch(/^TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed: /);
    expect((await read()).exchanges()[0]).toMatchObject({ errorCode: 'E_UPSTREAM_TLS' });
  });

  it('WebSocket upgrades go to a wss:// upstream: frames relayed both ways and recorded', async () => {
    const { front, upgrades } = await echoOverTls(certs.valid);
    const { recorder, read, ended } = await record(`https://localhost:${front.port}/base`, { upstreamTls: { ca: [certs.caFile] } });
    const session = await wsOpen(`${recorder.url.replace(/^http:/, 'ws:')}/socket?x=1`, 'echo.v1');
    session.ws.send(JSON.stringify({ hello: 'tls' }));
    expect(await session.take(1)).toEqual(['{"hello":"tls"}']);
    session.ws.close(1000, 'done');
    expect((await session.closed).code).toBe(1000);
    await ended(1);
    expect(upgrades.map((r) => [r.url, r.headers.host, r.headers['sec-websocket-protocol']])).toEqual([['/base/socket?x=1', `localhost:${front.port}`, 'echo.v1']]);
    expect(front.serverNames).toEqual(['localhost']);

    const reader = await read();
    const [exchange] = reader.exchanges();
    expect(exchange).toMatchObject({ transport: 'ws', path: '/socket', status: 101, outcome: 'complete', closeCode: 1000 });
    const text = reader.messages(exchange.id).filter((m) => m.channel === 'text');
    expect(text.map((m) => [m.sender, m.raw.toString()])).toEqual([
      ['client', '{"hello":"tls"}'],
      ['server', '{"hello":"tls"}'],
    ]);
  });

  it('a WebSocket upgrade to a wss:// upstream with a bad certificate: the same 502, to the upgrade', async () => {
    const { front, upgrades } = await echoOverTls(certs.expired);
    const { recorder, read } = await record(`https://localhost:${front.port}`, { upstreamTls: { ca: [certs.caFile] } });
    const refusal = await wsRefusal(`${recorder.url.replace(/^http:/, 'ws:')}/socket`, []);
    expect(refusal.status).toBe(502);
    const { error } = JSON.parse(refusal.text) as { error: ProxyError };
    expect(error).toMatchObject({ code: 'upstream_tls_failed', tls: { check: 'expired', code: 'CERT_HAS_EXPIRED' } });
    expect(upgrades).toEqual([]);
    expect((await read()).exchanges()[0]).toMatchObject({ transport: 'ws', status: 502, outcome: 'error', errorCode: 'E_UPSTREAM_TLS', errorMessage: error.message });
  });

  it('listening over TLS (listenTls): a client that insists on https:// and wss:// is served', async () => {
    const { front } = await echoOverTls(certs.valid);
    const { recorder, read, ended } = await record(`https://localhost:${front.port}`, {
      upstreamTls: { ca: [certs.caFile] },
      listenTls: { cert: certs.valid.certFile, key: certs.valid.keyFile },
    });
    expect(recorder.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    // The listener's certificate is signed by the test CA: the clients trust that CA.
    const ca = [readFileSync(certs.caFile)];
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = httpsRequest(`${recorder.url}/nothing`, { ca }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      request.on('error', reject);
      request.end();
    });
    expect(status).toBe(404);
    const session = await wsOpen(`${recorder.url.replace(/^https:/, 'wss:')}/socket`, [], { ca });
    session.ws.send('{"over":"wss"}');
    expect(await session.take(1)).toEqual(['{"over":"wss"}']);
    session.ws.close(1000);
    await session.closed;
    await ended(2);
    expect((await read()).exchanges().map((e) => [e.transport, e.path, e.status, e.outcome])).toEqual([
      ['http', '/nothing', 404, 'complete'],
      ['ws', '/socket', 101, 'complete'],
    ]);
  });

  it('the CA files are read at start: one that holds no certificate is refused before a recording is made', async () => {
    const dir = scratch();
    await expect(startRecorder({ target: 'https://localhost:9', listen: 0, out: dir.file('r.db'), upstreamTls: { ca: [certs.valid.keyFile] } })).rejects.toThrow(
      `--ca '${certs.valid.keyFile}' holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)`,
    );
    await expect(startRecorder({ target: 'http://localhost:9', listen: 0, out: dir.file('r.db'), upstreamTls: { ca: [certs.caFile] } })).rejects.toThrow("--ca goes with an https:// target, not 'http://localhost:9'");
  });
});

describe.skipIf(!HAS_OPENSSL)('replay --on-miss passthrough --target https://', () => {
  it('a miss is forwarded over TLS with the added CA, answered, and appended to the recording', async () => {
    const { agent, front } = await aguiOverTls(certs.valid);
    const target = `https://localhost:${front.port}`;
    // Record one exchange, then replay it with a miss that must go to the https upstream.
    const first = await record(target, { upstreamTls: { ca: [certs.caFile] } });
    expect((await fetch(`${first.recorder.url}/health`)).status).toBe(200);
    await first.recorder.close();

    const replay = await startReplay({ recording: first.recorder.out, listen: 0, timing: 'none', onMiss: 'passthrough', target, upstreamTls: { ca: [certs.caFile] } }, startMissRecorder);
    cleanups.push(() => replay.close().then(() => undefined));
    const events = await runAgui(`${replay.url}/agent`);
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    expect(agent.requests.map((r) => r.path)).toEqual(['/agent']);
    const summary = await replay.close();
    expect(summary.misses).toHaveLength(1);
    const reader = RecordingReader.open(first.recorder.out);
    try {
      expect(reader.exchanges().map((e) => [e.method, e.path, e.status, e.outcome])).toEqual([
        ['GET', '/health', 200, 'complete'],
        ['POST', '/agent', 200, 'complete'],
      ]);
    } finally {
      reader.close();
    }
  });

  it("replay sends a recorded TLS failure's 502 again, word for word, to a request and to an upgrade; and serves over TLS with listenTls", async () => {
    const { front } = await echoOverTls(certs.otherHost);
    const first = await record(`https://localhost:${front.port}`, { upstreamTls: { ca: [certs.caFile] } });
    const recorded = await (await fetch(`${first.recorder.url}/health`)).text();
    const recordedUpgrade = await wsRefusal(`${first.recorder.url.replace(/^http:/, 'ws:')}/socket`, []);
    await first.recorder.close();

    const replay = await startReplay({ recording: first.recorder.out, listen: 0, timing: 'none', listenTls: { cert: certs.valid.certFile, key: certs.valid.keyFile } });
    cleanups.push(() => replay.close().then(() => undefined));
    expect(replay.url).toMatch(/^https:/);
    expect(replay.wsUrl).toMatch(/^wss:/);
    const ca = [readFileSync(certs.caFile)];
    const replayed = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const request = httpsRequest(`${replay.url}/health`, { ca }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      request.on('error', reject);
      request.end();
    });
    expect(replayed).toEqual({ status: 502, body: recorded });
    expect((JSON.parse(recorded) as { error: ProxyError }).error.tls).toEqual({ check: 'host-name', code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    const replayedUpgrade = await wsRefusal(`${replay.wsUrl}/socket`, [], { ca });
    expect([replayedUpgrade.status, replayedUpgrade.text]).toEqual([502, recordedUpgrade.text]);
  });
});

describe.skipIf(!HAS_OPENSSL)('behind TLS: recorded, replayed and diffed', () => {
  /** A REST call and a prompt over the daemon's WebSocket RPC, through `base` (the proxy over a daemon or a replay). */
  async function piSession(base: string, token: string): Promise<void> {
    const caps = await fetch(`${base}/v1/capabilities`, { headers: { authorization: `Bearer ${token}` } });
    expect(caps.status).toBe(200);
    await caps.text();
    const c = await wsOpen(`${base.replace(/^http:/, 'ws:')}/v1/session/agent-a/rpc?role=controller`, 'pi-daemon-rpc.v1', { headers: { authorization: `Bearer ${token}` } });
    await c.take(1);
    c.ws.send(JSON.stringify({ kind: 'command', command: { id: 'p-1', type: 'prompt', message: 'Say hello' } }));
    const frames = await c.take(2 + 16);
    expect(JSON.parse(frames[1])).toEqual({ kind: 'response', response: { id: 'p-1', type: 'response', command: 'prompt', success: true } });
    c.ws.close(1000, 'done');
    await c.closed;
  }

  it('a Pi daemon behind TLS (REST and a wss:// RPC session) and an AG-UI agent behind TLS: replaying each gives the same recording', async () => {
    const daemon = await startPiDaemon({ deterministic: true, rpcTurn: 'text' });
    cleanups.push(() => daemon.close());
    const daemonFront = await startTlsFront(certs.valid, daemon.port!);
    cleanups.push(() => daemonFront.close());
    const { front: aguiFront } = await aguiOverTls(certs.valid);

    for (const [name, front, session, exchanges] of [
      ['pi-daemon', daemonFront, (base: string) => piSession(base, daemon.token), 2],
      ['agui', aguiFront, (base: string) => runAgui(`${base}/agent`).then(() => undefined), 1],
    ] as const) {
      const live = await record(`https://localhost:${front.port}`, { upstreamTls: { ca: [certs.caFile] } });
      await session(live.recorder.url);
      await live.ended(exchanges);
      const liveReader = await live.read();
      expect(liveReader.exchanges().map((e) => e.outcome), name).toEqual(Array(exchanges).fill('complete'));

      const served = await startReplay({ recording: live.recorder.out, listen: 0, timing: 'none' });
      cleanups.push(() => served.close().then(() => undefined));
      const again = await record(served.url);
      await session(again.recorder.url);
      await again.ended(exchanges);
      expect((await again.read()).exchanges(), name).toHaveLength(exchanges);
      expect(served.misses(), name).toEqual([]);
      expect(diffRecordingFiles(live.recorder.out, again.recorder.out).exchanges, name).toEqual([]);
    }
  });
});


describe.skipIf(!HAS_OPENSSL)('the TLS facts of each exchange (exchanges.tls)', () => {
  /** What the recording must say of a connection to a server with `pair`, read from the certificate itself. */
  function factsOf(pair: CertPair): Record<string, unknown> {
    const cert = new X509Certificate(pair.cert);
    return {
      subject: 'CN=localhost',
      issuer: 'CN=agent-proxy test CA',
      validFrom: new Date(cert.validFrom).toISOString(),
      validTo: new Date(cert.validTo).toISOString(),
      fingerprint256: cert.fingerprint256,
    };
  }

  it('an SSE run and a keep-alive JSON call each carry the protocol, cipher and certificate; they survive NDJSON export → import and reach HAR', async () => {
    const { front } = await aguiOverTls(certs.valid);
    const { recorder, read } = await record(`https://localhost:${front.port}`, { upstreamTls: { ca: [certs.caFile] } });
    await runAgui(`${recorder.url}/agent`);
    await (await fetch(`${recorder.url}/health`)).text();

    const reader = await read();
    const exchanges = reader.exchanges();
    expect(exchanges.map((e) => e.transport)).toEqual(['sse', 'http']);
    for (const e of exchanges) {
      expect(e.tls, e.path ?? '').toEqual({ protocol: expect.stringMatching(/^TLSv1\.[23]$/), cipher: expect.stringMatching(/^TLS_|^ECDHE-/), ...factsOf(certs.valid), authorized: true });
    }

    const dir = scratch();
    const ndjson = exportNdjsonText(reader);
    importNdjsonText(ndjson, dir.file('back.db'));
    const back = RecordingReader.open(dir.file('back.db'));
    try {
      expect(back.exchanges().map((e) => e.tls)).toEqual(exchanges.map((e) => e.tls));
    } finally {
      back.close();
    }
    expect(exportHar(reader).log.entries.map((entry) => entry._tls)).toEqual(exchanges.map((e) => e.tls));
  });

  it('a wss:// WebSocket carries them too; a plain upstream has none', async () => {
    const { front } = await echoOverTls(certs.valid);
    const { recorder, read, ended } = await record(`https://localhost:${front.port}`, { upstreamTls: { ca: [certs.caFile] } });
    const session = await wsOpen(`${recorder.url.replace(/^http:/, 'ws:')}/socket`, []);
    session.ws.send('{"over":"wss"}');
    await session.take(1);
    session.ws.close(1000);
    await session.closed;
    await ended(1);
    const [exchange] = (await read()).exchanges();
    expect(exchange).toMatchObject({ transport: 'ws', status: 101, tls: { protocol: expect.stringMatching(/^TLSv1\.[23]$/), ...factsOf(certs.valid), authorized: true } });

    const agent = await agui();
    const plain = await record(`http://127.0.0.1:${agent.port}`);
    await (await fetch(`${plain.recorder.url}/health`)).text();
    expect((await plain.read()).exchanges()[0].tls).toBeNull();
  });

  it("a failed check keeps what it told: the code for an expired certificate, and the certificate too for another host's", async () => {
    const expired = await aguiOverTls(certs.expired);
    const first = await record(`https://localhost:${expired.front.port}`, { upstreamTls: { ca: [certs.caFile] } });
    await proxyError(await fetch(`${first.recorder.url}/health`));
    expect((await first.read()).exchanges()[0].tls).toEqual({ authorized: false, authorizationError: 'CERT_HAS_EXPIRED' });

    const other = await echoOverTls(certs.otherHost);
    const second = await record(`https://localhost:${other.front.port}`, { upstreamTls: { ca: [certs.caFile] } });
    await proxyError(await fetch(`${second.recorder.url}/health`));
    const refusal = await wsRefusal(`${second.recorder.url.replace(/^http:/, 'ws:')}/socket`, []);
    expect(refusal.status).toBe(502);
    const otherCert = new X509Certificate(certs.otherHost.cert);
    const told = { subject: 'CN=localhost', issuer: 'CN=agent-proxy test CA', fingerprint256: otherCert.fingerprint256, authorized: false, authorizationError: 'ERR_TLS_CERT_ALTNAME_INVALID' };
    expect((await second.read()).exchanges().map((e) => [e.transport, e.tls])).toEqual([
      ['http', expect.objectContaining(told)],
      ['ws', expect.objectContaining(told)],
    ]);
  });

  it('with --insecure a certificate that would have failed is recorded as not authorized, with its facts', async () => {
    const { front } = await aguiOverTls(certs.expired);
    const { recorder, read } = await record(`https://localhost:${front.port}`, { upstreamTls: { insecure: true } });
    await (await fetch(`${recorder.url}/health`)).text();
    expect((await read()).exchanges()[0].tls).toMatchObject({ ...factsOf(certs.expired), authorized: false, authorizationError: expect.stringMatching(/^[A-Z_]+$/) });
  });
});
