/**
 * SIGTERM while requests are in flight, against the built CLI: a plain answer that is on its way
 * still reaches its client (on a connection that then closes), streams end cleanly at once, and
 * whatever outlives the grace period is cut and recorded as the shutdown's doing. For `record`
 * and for `replay` (an answer held back by --timing recorded, a miss forwarded with passthrough).
 * Steps are ordered by events: the upstream stand-in reports each request's arrival and answers
 * when the test says so; a stream that ends proves the shutdown has begun.
 */
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { Agent, createServer, request, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { within } from '../support/waits.js';
import { exchangesOf, startCli, type CliSession } from './upstream-standins.js';
import { startRecorder, type RunningRecorder } from '../../src/record/start-recorder.js';

const fixtures = fixturesAfterEach();

function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const SLOW_BODY = 'the slow answer';
const FIRST_EVENT = 'data: {"n":1}\n\n';

interface Upstream {
  url: string;
  /** Resolves when GET /slow has reached the upstream. */
  slowArrived: Promise<void>;
  /** Lets the upstream answer GET /slow. */
  releaseSlow(): void;
  /** Resolves when GET /slow-stream has reached the upstream. */
  slowStreamArrived: Promise<void>;
  /** Lets the upstream start the stream of GET /slow-stream. */
  releaseSlowStream(): void;
  /** Resolves when the client side of GET /stream went away. */
  streamGone: Promise<void>;
}

/**
 * An upstream with a plain answer held until released (/slow), an endless SSE stream (/stream),
 * and one whose head is held until released (/slow-stream).
 */
async function upstream(): Promise<Upstream> {
  const arrived = deferred();
  const release = deferred();
  const streamArrived = deferred();
  const streamRelease = deferred();
  const gone = deferred();
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    if (req.url === '/slow') {
      arrived.resolve();
      void release.promise.then(() => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(SLOW_BODY) });
        res.end(SLOW_BODY);
      });
      return;
    }
    if (req.url === '/stream') {
      res.on('close', () => gone.resolve());
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(FIRST_EVENT);
      return;
    }
    if (req.url === '/slow-stream') {
      streamArrived.resolve();
      void streamRelease.promise.then(() => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(FIRST_EVENT);
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
    res.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fixtures.push(
    () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    slowArrived: arrived.promise,
    releaseSlow: () => release.resolve(),
    slowStreamArrived: streamArrived.promise,
    releaseSlowStream: () => streamRelease.resolve(),
    streamGone: gone.promise,
  };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Resolves when the connection the answer came on has closed, with whether it closed with an error. */
  socketClosed: Promise<boolean>;
}

/** GET through a keep-alive agent, as a client that would reuse the connection. Rejects on any error. */
function get(url: string, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      const socket = res.socket as Socket;
      const socketClosed = new Promise<boolean>((r) => socket.once('close', (hadError: boolean) => r(hadError)));
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, socketClosed }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** An open SSE stream: resolves once its head has arrived; `ended` says how the body ended, `body` what came so far. */
function openStream(url: string): Promise<{ ended: Promise<'end' | 'error'>; body(): string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      const ended = new Promise<'end' | 'error'>((r) => {
        res.on('end', () => r('end'));
        res.on('error', () => r('error'));
        res.on('aborted', () => r('error'));
      });
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      resolve({ ended, body: () => text });
    });
    req.on('error', reject);
    req.end();
  });
}

function keepAliveAgent(): Agent {
  const agent = new Agent({ keepAlive: true });
  fixtures.push(() => agent.destroy());
  return agent;
}

async function stopped(session: CliSession): Promise<void> {
  const exit = await within(session.cli.exited, 'the process to exit');
  expect(session.cli.stderr()).toBe('');
  expect(exit).toEqual({ code: 0, signal: null });
}

describe('record: SIGTERM with requests in flight', () => {
  it('a plain answer still on its way reaches the client, on a connection that then closes; the stream ends cleanly', async () => {
    const up = await upstream();
    const out = fixtures.scratch().file('rec.db');
    const proxy = await startCli(['record', '--target', up.url, '--listen', '0', '--out', out, '--quiet'], {}, fixtures.push);
    const stream = await openStream(`${proxy.url}/stream`);
    const slow = get(`${proxy.url}/slow`, keepAliveAgent());
    await up.slowArrived;

    proxy.cli.child.kill('SIGTERM');
    // The stream is ended cleanly at once (a proper end of the body): the shutdown has begun.
    expect(await within(stream.ended, 'the stream to end')).toBe('end');
    await up.streamGone;
    up.releaseSlow();

    const answer = await within(slow, 'the slow answer');
    expect(answer).toMatchObject({ status: 200, body: SLOW_BODY });
    expect(answer.headers.connection).toBe('close');
    expect(await answer.socketClosed).toBe(false);
    await stopped(proxy);
    expect(proxy.cli.lines.at(-1)).toMatch(/^stopped \(SIGTERM\): 2 exchanges, /);

    const [streamed, plain] = exchangesOf(out);
    expect(streamed).toMatchObject({ path: '/stream', transport: 'sse', outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN' });
    expect(plain).toMatchObject({ path: '/slow', status: 200, outcome: 'complete', errorCode: null, messageCount: 1 });
  });

  it('a stream whose answer starts during the grace period ends cleanly at once', async () => {
    const up = await upstream();
    const out = fixtures.scratch().file('rec.db');
    const proxy = await startCli(['record', '--target', up.url, '--listen', '0', '--out', out, '--quiet'], {}, fixtures.push);
    const stream = await openStream(`${proxy.url}/stream`);
    const late = openStream(`${proxy.url}/slow-stream`);
    await up.slowStreamArrived;

    proxy.cli.child.kill('SIGTERM');
    expect(await within(stream.ended, 'the stream to end')).toBe('end');
    up.releaseSlowStream();

    const lateStream = await within(late, 'the late stream to start');
    expect(await within(lateStream.ended, 'the late stream to end')).toBe('end');
    await stopped(proxy);
    const [, lateExchange] = exchangesOf(out);
    expect(lateExchange).toMatchObject({ path: '/slow-stream', transport: 'sse', outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN' });
  });

  it('a plain answer that does not come within the grace period is cut, and recorded as cut by the shutdown', async () => {
    const up = await upstream();
    const out = fixtures.scratch().file('rec.db');
    // A short grace: its length is not what this checks.
    const proxy = await startCli(['record', '--target', up.url, '--listen', '0', '--out', out, '--quiet', '--shutdown-grace', '200'], {}, fixtures.push);
    const slow = get(`${proxy.url}/slow`, keepAliveAgent()).then(
      () => 'answered',
      () => 'cut',
    );
    await up.slowArrived;

    proxy.cli.child.kill('SIGTERM');
    await stopped(proxy);
    expect(await slow).toBe('cut');
    const [plain] = exchangesOf(out);
    expect(plain).toMatchObject({ path: '/slow', outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN' });
  });
});

/** A one-exchange-per-path NDJSON recording; `late` answers are recorded ten minutes after their request. */
function fixtureRecording(file: string): void {
  const LATE_MS = 600_000;
  const verdict = { status: 'unchecked', schemaRef: null, reason: 'not judged', findings: [] };
  const exchange = (id: number, path: string, transport: 'http' | 'sse', responseHeaders: Record<string, string>) => ({
    type: 'exchange',
    id,
    transport,
    protocol: null,
    method: 'GET',
    path,
    query: null,
    url: path,
    status: 200,
    subprotocol: null,
    requestHeaders: {},
    responseHeaders,
    startedMs: 0,
    endedMs: LATE_MS,
    outcome: 'complete',
    errorCode: null,
    errorMessage: null,
    closeCode: null,
    closeReason: null,
    exitCode: null,
    signal: null,
  });
  const message = (exchangeId: number, seq: number, carrier: 'body' | 'event', tOffsetMs: number, raw: string) => ({
    type: 'message',
    exchange: exchangeId,
    seq,
    sender: 'server',
    carrier,
    channel: null,
    tOffsetMs,
    raw,
    rawTruncatedFrom: null,
    verdict,
  });
  const lines = [
    { type: 'recording', format: 'agent-proxy/ndjson', version: 1, toolVersion: '0.1.0', target: null, listen: null, mode: 'record', startedAt: '2026-01-01T00:00:00.000Z', endedAt: null, schemaHashes: {} },
    exchange(1, '/late', 'http', { 'content-type': 'text/plain', 'content-length': '11' }),
    message(1, 1, 'body', LATE_MS, 'late answer'),
    exchange(2, '/events', 'sse', { 'content-type': 'text/event-stream' }),
    message(2, 1, 'event', 0, FIRST_EVENT),
    message(2, 2, 'event', LATE_MS, 'data: {"n":2}\n\n'),
  ];
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
}

describe('replay: SIGTERM with requests in flight', () => {
  it('an answer held back by --timing recorded is sent at once, on a connection that then closes', async () => {
    const file = fixtures.scratch().file('fixture.ndjson');
    fixtureRecording(file);
    const replay = await startCli(['replay', file, '--listen', '0', '--timing', 'recorded', '--quiet'], {}, fixtures.push);

    // Two pipelined requests: the replay handles them in order, so once the miss (the second) is
    // reported, the first is already waiting for its recorded moment.
    const socket = connect(Number(new URL(replay.url).port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const closed = once(socket, 'close');
    socket.write('GET /late HTTP/1.1\r\nHost: x\r\n\r\nGET /not-recorded HTTP/1.1\r\nHost: x\r\n\r\n');
    await replay.cli.waitForLine(/\/not-recorded/);

    replay.cli.child.kill('SIGTERM');
    const [hadError] = (await within(closed, 'the replay to close the connection')) as [boolean];
    expect(hadError).toBe(false);
    // The answer, whole, and the connection closed after it (a client must retry what it pipelined behind it).
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received).toMatch(/\r\nConnection: close\r\n/i);
    expect(received, received).toMatch(/\r\n\r\nlate answer$/);
    await stopped(replay);
  });

  it('a miss forwarded with passthrough still gets its answer; a replayed stream ends cleanly', async () => {
    const up = await upstream();
    const dir = fixtures.scratch();
    const file = dir.file('fixture.ndjson');
    fixtureRecording(file);
    const misses = dir.file('misses.db');
    const replay = await startCli(
      ['replay', file, '--listen', '0', '--timing', 'recorded', '--quiet', '--on-miss', 'passthrough', '--target', up.url, '--misses-out', misses],
      {},
      fixtures.push,
    );
    const stream = await openStream(`${replay.url}/events`);
    const slow = get(`${replay.url}/slow`, keepAliveAgent());
    await up.slowArrived;

    replay.cli.child.kill('SIGTERM');
    expect(await within(stream.ended, 'the replayed stream to end')).toBe('end');
    up.releaseSlow();

    const answer = await within(slow, 'the forwarded answer');
    expect(answer).toMatchObject({ status: 200, body: SLOW_BODY });
    expect(answer.headers.connection).toBe('close');
    expect(await answer.socketClosed).toBe(false);
    await stopped(replay);
    expect(exchangesOf(misses)).toMatchObject([{ path: '/slow', status: 200, outcome: 'complete', errorCode: null, messageCount: 1 }]);
  });

  it('a stream forwarded with passthrough ends cleanly, and is recorded as ended by the shutdown', async () => {
    const up = await upstream();
    const dir = fixtures.scratch();
    const file = dir.file('fixture.ndjson');
    fixtureRecording(file);
    const misses = dir.file('misses.db');
    const replay = await startCli(['replay', file, '--listen', '0', '--quiet', '--on-miss', 'passthrough', '--target', up.url, '--misses-out', misses], {}, fixtures.push);
    const stream = await openStream(`${replay.url}/stream`);

    replay.cli.child.kill('SIGTERM');
    expect(await within(stream.ended, 'the forwarded stream to end')).toBe('end');
    await up.streamGone;
    await stopped(replay);
    expect(exchangesOf(misses)).toMatchObject([{ path: '/stream', transport: 'sse', outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN' }]);
  });
});

/** Whether a GET through a keep-alive agent was answered or cut. */
const answeredOrCut = (pending: Promise<Answer>) =>
  pending.then(
    (answer) => (answer.status === 200 && answer.body === SLOW_BODY ? 'answered' : 'wrong answer'),
    () => 'cut',
  );

/** An in-process recorder with the default grace, holding GET /slow open: it must still be waiting when the short grace has cut. */
async function defaultGraceWitness(): Promise<{ recorder: RunningRecorder; up: Upstream; slow: Promise<string> }> {
  const up = await upstream();
  const recorder = await startRecorder({ target: up.url, listen: 0, out: fixtures.scratch().file('witness.db'), pipeline: 'inline' });
  fixtures.push(() => recorder.close().then(() => undefined));
  const slow = answeredOrCut(get(`${recorder.url}/slow`, keepAliveAgent()));
  await up.slowArrived;
  return { recorder, up, slow };
}

// Order of events, not elapsed time: beside a recorder with the default grace (2 s) stopped in the
// same turn, the short grace cuts its held request first; the witness's request, released only
// then, still gets its answer. Were the option ignored, both would wait the same default grace and
// the witness's request would be cut too.
describe('a shorter shutdown grace (shutdownGraceMs, --shutdown-grace)', () => {
  it('startRecorder with shutdownGraceMs 0: the held request is cut and close() resolves while the default grace still waits', async () => {
    const up = await upstream();
    const out = fixtures.scratch().file('short.db');
    const recorder = await startRecorder({ target: up.url, listen: 0, out, pipeline: 'inline', shutdownGraceMs: 0 });
    fixtures.push(() => recorder.close().then(() => undefined));
    const slow = answeredOrCut(get(`${recorder.url}/slow`, keepAliveAgent()));
    await up.slowArrived;
    const witness = await defaultGraceWitness();

    const witnessClosed = witness.recorder.close();
    const closed = recorder.close();
    expect(await within(slow, 'the short grace to cut')).toBe('cut');
    await within(closed, 'close() with the short grace');
    witness.up.releaseSlow();
    expect(await within(witness.slow, "the witness's answer")).toBe('answered');
    await within(witnessClosed, "the witness's close()");
    expect(exchangesOf(out)).toMatchObject([{ path: '/slow', outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN' }]);
  });

  it('record --shutdown-grace 0: SIGTERM cuts the held request while the default grace still waits', async () => {
    // The witness is a second `record` on the default grace, signalled in the same turn: both
    // processes react to SIGTERM under the same load, so the short grace's cut comes first unless
    // one process is more than the default grace slower than the other to take the signal.
    const up = await upstream();
    const out = fixtures.scratch().file('short.db');
    const proxy = await startCli(['record', '--target', up.url, '--listen', '0', '--out', out, '--quiet', '--shutdown-grace', '0'], {}, fixtures.push);
    const slow = answeredOrCut(get(`${proxy.url}/slow`, keepAliveAgent()));
    await up.slowArrived;
    const witnessUp = await upstream();
    const witnessOut = fixtures.scratch().file('witness.db');
    const witness = await startCli(['record', '--target', witnessUp.url, '--listen', '0', '--out', witnessOut, '--quiet'], {}, fixtures.push);
    const witnessSlow = answeredOrCut(get(`${witness.url}/slow`, keepAliveAgent()));
    await witnessUp.slowArrived;

    witness.cli.child.kill('SIGTERM');
    proxy.cli.child.kill('SIGTERM');
    expect(await within(slow, 'the short grace to cut')).toBe('cut');
    witnessUp.releaseSlow();
    expect(await within(witnessSlow, "the witness's answer")).toBe('answered');
    await stopped(witness);
    await stopped(proxy);
    expect(exchangesOf(out)).toMatchObject([{ path: '/slow', outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN' }]);
    expect(exchangesOf(witnessOut)).toMatchObject([{ path: '/slow', status: 200 }]);
  });
});
