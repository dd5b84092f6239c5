/**
 * No request the proxy accepted is missing from its recording, whatever its fate: for each fault the
 * tests can produce, the requests sent are counted against the exchanges stored and the summary's
 * count. An https:// upstream with its own CA (`--ca`) or a plain one that takes the requests and
 * stalls; clients that give up, an upstream that answers or resets later, a recorder stopped while
 * requests wait (some of them not yet read: a busy proxy leaves them in the listen backlog and in
 * socket buffers), SIGTERM, SIGKILL (what was committed before stays), and a second writer.
 * In-process where the fault allows; one CLI child for each of SIGTERM and SIGKILL.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder, type RecorderOptions, type RunningRecorder } from '../../src/record/start-recorder.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { spawnCli } from '../cli/run-cli.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { bareRegistry } from '../support/shared.js';
import { scratch } from '../support/temp-dir.js';
import { HAS_OPENSSL, makeTestCertificates, type TestCertificates } from '../support/tls-fixtures.js';
import { waitFor, within } from '../support/waits.js';

useCleanups();

const N = 50;
const PATHS = Array.from({ length: N }, (_, i) => `/r${i}`);

let certs: TestCertificates;
beforeAll(() => {
  if (HAS_OPENSSL) certs = makeTestCertificates();
});
afterAll(() => certs?.remove());

interface StalledUpstream {
  url: string;
  /** Resolves once `n` requests have reached it. */
  arrived(n: number): Promise<void>;
  /** Answers every request held, and from now on each one as it comes. */
  answerAll(): void;
  /** Resets the connection of every request held. */
  resetAll(): void;
}

/** An upstream (https with the test CA's certificate, or plain) that takes each request and holds it unanswered. */
async function stalledUpstream(tls: boolean): Promise<StalledUpstream> {
  const held: Array<{ req: IncomingMessage; res: ServerResponse }> = [];
  let count = 0;
  let answering = false;
  const wakes: Array<() => void> = [];
  const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    count++;
    if (answering) answer(res);
    else held.push({ req, res });
    for (const wake of wakes.splice(0)) wake();
  };
  const server: Server = tls ? createHttpsServer({ cert: certs.valid.cert, key: certs.valid.key }, handle) : createHttpServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url: `${tls ? 'https://localhost' : 'http://127.0.0.1'}:${(server.address() as AddressInfo).port}`,
    arrived: (n) =>
      within(
        new Promise<void>((resolve) => {
          const check = () => (count >= n ? resolve() : wakes.push(check));
          check();
        }),
        `${n} requests to reach the upstream`,
      ),
    answerAll() {
      answering = true;
      for (const { res } of held.splice(0)) answer(res);
    },
    resetAll() {
      for (const { req } of held.splice(0)) req.socket.destroy();
    },
  };
}

/** Connections to the proxy, open as far as the kernel goes (the proxy may not have accepted them yet). */
async function connectAll(url: string, n: number): Promise<Socket[]> {
  const { port } = new URL(url);
  return Promise.all(
    Array.from({ length: n }, async () => {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      onCleanup(() => void socket.destroy());
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      return socket;
    }),
  );
}

/** Writes one GET per connection, all in this turn; each promise resolves with what came back once its connection closed. */
function sendAll(sockets: Socket[], paths: readonly string[]): Array<Promise<string>> {
  return sockets.map((socket, i) => {
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.write(`GET ${paths[i]} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    return new Promise<string>((resolve) => socket.on('close', () => resolve(Buffer.concat(received).toString('latin1'))));
  });
}

interface InProcess {
  recorder: RunningRecorder;
  /** Resolves once `n` exchanges have ended. */
  ended(n: number): Promise<void>;
}

async function recordInProcess(target: string, options: Partial<RecorderOptions> = {}): Promise<InProcess> {
  let ends = 0;
  const wakes: Array<() => void> = [];
  const recorder = await startRecorder({
    target,
    listen: 0,
    out: scratch().file('run.db'),
    registry: bareRegistry(),
    pipeline: 'inline',
    listener: (event) => {
      if (event.type !== 'exchange-end') return;
      ends++;
      for (const wake of wakes.splice(0)) wake();
    },
    ...(target.startsWith('https:') ? { upstreamTls: { ca: [certs.caFile] } } : {}),
    ...options,
  });
  onCleanup(() => recorder.close().then(() => undefined));
  return {
    recorder,
    ended: (n) =>
      within(
        new Promise<void>((resolve) => {
          const check = () => (ends >= n ? resolve() : wakes.push(check));
          check();
        }),
        `${n} exchanges to end`,
      ),
  };
}

/** The stored exchanges' paths and endings. */
function stored(out: string): Array<{ path: string; outcome: string | null; errorCode: string | null }> {
  const reader = RecordingReader.open(out);
  try {
    return reader.exchanges().map((e) => ({ path: e.path ?? '', outcome: e.outcome ?? null, errorCode: e.errorCode ?? null }));
  } finally {
    reader.close();
  }
}

const pathsOf = (rows: ReadonlyArray<{ path: string }>) => rows.map((row) => row.path).sort();

describe.skipIf(!HAS_OPENSSL)('every request the proxy accepted is in the recording (requests sent = exchanges stored)', () => {
  for (const tls of [true, false]) {
    const upstreamKind = tls ? 'an https upstream with --ca' : 'a plain http upstream';
    it(`${upstreamKind}: the recorder stopped while half the requests stall upstream and half are not yet read`, async () => {
      const upstream = await stalledUpstream(tls);
      const { recorder } = await recordInProcess(upstream.url);
      const first = await connectAll(recorder.url, N / 2);
      const firstAnswers = sendAll(first, PATHS.slice(0, N / 2));
      await upstream.arrived(N / 2);
      const second = await connectAll(recorder.url, N / 2);
      // Written in the turn that stops the recorder: none of these has been read by it yet.
      const secondAnswers = sendAll(second, PATHS.slice(N / 2));
      const closing = recorder.close();
      // Those that reach the upstream now are answered, so that close() need not wait out the grace period.
      upstream.answerAll();
      const totals = await within(closing, 'the recorder to close');
      await within(Promise.all([...firstAnswers, ...secondAnswers]), 'every client connection to close');
      expect(totals.exchanges).toBe(N);
      expect(pathsOf(stored(recorder.out))).toEqual([...PATHS].sort());
    });
  }

  it('an https upstream with --ca: every client gives up while its request stalls', async () => {
    const upstream = await stalledUpstream(true);
    const { recorder, ended } = await recordInProcess(upstream.url);
    const sockets = await connectAll(recorder.url, N);
    sendAll(sockets, PATHS);
    await upstream.arrived(N);
    for (const socket of sockets) socket.destroy();
    await ended(N);
    expect((await recorder.close()).exchanges).toBe(N);
    const rows = stored(recorder.out);
    expect(pathsOf(rows)).toEqual([...PATHS].sort());
    expect(new Set(rows.map((row) => row.errorCode))).toEqual(new Set(['E_CLIENT_ABORTED']));
  });

  it('an https upstream with --ca: the upstream resets every stalled request later', async () => {
    const upstream = await stalledUpstream(true);
    const { recorder } = await recordInProcess(upstream.url);
    const answers = sendAll(await connectAll(recorder.url, N), PATHS);
    await upstream.arrived(N);
    upstream.resetAll();
    for (const text of await within(Promise.all(answers), 'every client answer')) expect(text).toMatch(/^HTTP\/1\.1 502 /);
    expect((await recorder.close()).exchanges).toBe(N);
    const rows = stored(recorder.out);
    expect(pathsOf(rows)).toEqual([...PATHS].sort());
    expect(rows.every((row) => row.outcome === 'error')).toBe(true);
  });

  it('an https upstream with --ca: the upstream answers every stalled request once released', async () => {
    const upstream = await stalledUpstream(true);
    const { recorder } = await recordInProcess(upstream.url);
    const answers = sendAll(await connectAll(recorder.url, N), PATHS);
    await upstream.arrived(N);
    upstream.answerAll();
    for (const text of await within(Promise.all(answers), 'every client answer')) expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect((await recorder.close()).exchanges).toBe(N);
    const rows = stored(recorder.out);
    expect(pathsOf(rows)).toEqual([...PATHS].sort());
    expect(rows.every((row) => row.outcome === 'complete')).toBe(true);
  });

  it('a second writer on the same recording is refused, and the first one keeps every exchange', async () => {
    const upstream = await stalledUpstream(true);
    upstream.answerAll();
    const { recorder } = await recordInProcess(upstream.url);
    await expect(startRecorder({ target: upstream.url, listen: 0, out: recorder.out, overwrite: true, registry: bareRegistry(), pipeline: 'inline' })).rejects.toMatchObject({ code: 'E_STORE_LOCKED' });
    await within(Promise.all(sendAll(await connectAll(recorder.url, N), PATHS)), 'every client answer');
    expect((await recorder.close()).exchanges).toBe(N);
    expect(pathsOf(stored(recorder.out))).toEqual([...PATHS].sort());
  });

  it('record --ca stopped by SIGTERM while every request stalls: all of them stored as cut by the shutdown, and the summary counts them', async () => {
    const upstream = await stalledUpstream(true);
    const out = scratch().file('run.db');
    const cli = spawnCli(['record', '--target', upstream.url, '--ca', certs.caFile, '--listen', '0', '--out', out, '--json']);
    onCleanup(() => void cli.child.kill('SIGKILL'));
    const { url } = JSON.parse(await cli.waitForLine(/"event":"listening"/)) as { url: string };
    const sockets = await connectAll(url, N);
    sendAll(sockets, PATHS);
    // At once: most requests are still in the proxy's backlog or socket buffers, or waiting for the TLS connect.
    cli.child.kill('SIGTERM');
    expect((await within(cli.exited, 'the recorder to exit')).code).toBe(0);
    const summary = JSON.parse(cli.lines.find((line) => line.includes('"event":"summary"'))!) as { exchanges: number };
    expect(summary.exchanges).toBe(N);
    const rows = stored(out);
    expect(pathsOf(rows)).toEqual([...PATHS].sort());
    expect(new Set(rows.map((row) => row.errorCode))).toEqual(new Set(['E_PROXY_SHUTDOWN']));
  });

  it('record killed with SIGKILL: every exchange committed before the kill is in the file', async () => {
    const upstream = await stalledUpstream(false);
    upstream.answerAll();
    const out = scratch().file('run.db');
    const cli = spawnCli(['record', '--target', upstream.url, '--listen', '0', '--out', out, '--json']);
    onCleanup(() => void cli.child.kill('SIGKILL'));
    const { url } = JSON.parse(await cli.waitForLine(/"event":"listening"/)) as { url: string };
    await within(Promise.all(sendAll(await connectAll(url, N), PATHS)), 'every client answer');
    // Acknowledged: committed, as another process reading the file sees it.
    await waitFor(() => committedEnded(out) === N, `${N} exchanges committed`);
    cli.child.kill('SIGKILL');
    expect(await within(cli.exited, 'the recorder to die')).toEqual({ code: null, signal: 'SIGKILL' });
    expect(pathsOf(stored(out))).toEqual([...PATHS].sort());
  });
});

/** Exchanges whose end is committed, read by a connection of its own as another process would. */
function committedEnded(out: string): number {
  let db: Database.Database | undefined;
  try {
    db = new Database(out, { readonly: true, fileMustExist: true });
    return (db.prepare('SELECT count(*) AS n FROM exchanges WHERE outcome IS NOT NULL').get() as { n: number }).n;
  } catch {
    return 0; // Not made yet, or its schema not yet committed.
  } finally {
    db?.close();
  }
}
