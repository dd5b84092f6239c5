/**
 * The one shutdown sequence of the listening servers (record's proxy and NDJSON relay, replay's
 * server), on real servers and sockets. Steps are ordered by events: a socket closing, a request
 * arriving, an exchange reporting its end.
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { Agent, createServer as createHttpServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { InFlight } from '../../src/net/in-flight.js';
import { endInFlight, GracefulShutdown, SHUTDOWN_GRACE_MS, shutdownGraceOf } from '../../src/net/graceful-shutdown.js';
import { listenOn } from '../../src/net/listen-on.js';
import type { ListenAddress } from '../../src/net/addresses.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { within } from '../support/waits.js';
import { tempDir } from '../support/temp-dir.js';

useCleanups();

const TCP: ListenAddress = { kind: 'tcp', host: '127.0.0.1', port: 0 };
/** For the tests that wait out the grace period to see the cut: its length is not what they check. */
const SHORT_GRACE_MS = 200;

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}

async function openSocket(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  onCleanup(() => void socket.destroy());
  await once(socket, 'connect');
  return socket;
}

/** Sends a GET on a raw socket and collects everything the server sends until it closes the connection. */
function rawGet(socket: Socket, path: string): Promise<string> {
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  return new Promise((resolve) => socket.on('close', () => resolve(Buffer.concat(received).toString())));
}

describe('GracefulShutdown of an HTTP server', () => {
  it('closes a spare connection at once and lets a held answer finish, on a connection that then closes', async () => {
    const inFlight = new InFlight(SHUTDOWN_GRACE_MS);
    const held: ServerResponse[] = [];
    const arrived = deferred();
    const server = createHttpServer((_req, res) => {
      // An answer on its way: shutdown lets it finish, on a connection that closes after it.
      const untrack = inFlight.add(() => (res.shouldKeepAlive = false));
      res.on('close', untrack);
      held.push(res);
      arrived.resolve();
    });
    const shutdown = new GracefulShutdown(server, inFlight, TCP);
    await listenOn(server, TCP);
    const port = portOf(server);
    const spare = await openSocket(port);
    const answer = rawGet(await openSocket(port), '/held');
    await within(arrived.promise, 'the held request to arrive');

    const spareClosed = once(spare, 'close');
    const closed = shutdown.close();
    expect(shutdown.close()).toBe(closed);
    // Before the held answer is sent: the spare had nothing to finish, so it need not wait for the cut.
    await within(spareClosed, 'the spare connection to be closed');
    held[0].end('done');
    const text = await within(answer, 'the held answer');
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    expect(text.endsWith('done')).toBe(true);
    await within(closed, 'close()');
  });

  it('closes a keep-alive connection once its answer is done, and resolves only when every exchange has reported its end', async () => {
    const inFlight = new InFlight(SHUTDOWN_GRACE_MS);
    let untrackLast!: () => void;
    const server = createHttpServer((_req, res) => {
      // An exchange that still has recording to flush after its answer was sent.
      untrackLast = inFlight.add(() => undefined);
      res.end('ok');
    });
    const shutdown = new GracefulShutdown(server, inFlight, TCP);
    await listenOn(server, TCP);
    const agent = new Agent({ keepAlive: true });
    onCleanup(() => agent.destroy());
    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      request({ port: portOf(server), host: '127.0.0.1', path: '/', agent }, resolve).on('error', reject).end(),
    );
    response.resume();
    await once(response, 'end');

    let settled = false;
    const closed = shutdown.close().then(() => (settled = true));
    await within(once(server, 'close'), 'the server to close its last connection');
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    untrackLast();
    await within(closed, 'close() after the last exchange ended');
    expect(settled).toBe(true);
  });

  it('takes in the connections waiting to be accepted and the requests sent on them before it stops accepting', async () => {
    const inFlight = new InFlight(SHUTDOWN_GRACE_MS);
    const paths: string[] = [];
    const server = createHttpServer((req, res) => {
      paths.push(req.url!);
      // Told to end at once, as a plain answer on its way is: the shutdown has begun when most arrive.
      const untrack = inFlight.add(() => res.end('stopped'));
      res.on('close', untrack);
    });
    const shutdown = new GracefulShutdown(server, inFlight, TCP);
    await listenOn(server, TCP);
    // Connected as far as the kernel goes; the server accepts one waiting connection per turn of
    // its event loop, and reads none of these requests before close() is called, in the same turn.
    const sockets = await Promise.all(Array.from({ length: 20 }, () => openSocket(portOf(server))));
    const answers = sockets.map((socket, i) => rawGet(socket, `/r${i}`));
    const closed = shutdown.close();
    const texts = await within(Promise.all(answers), 'every answer');
    await within(closed, 'close()');
    expect(paths.sort()).toEqual(sockets.map((_, i) => `/r${i}`).sort());
    for (const text of texts) expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*stopped$/);
  });

  it('cuts a connection whose answer does not come within the grace period', async () => {
    const inFlight = new InFlight(SHORT_GRACE_MS);
    const arrived = deferred();
    const server = createHttpServer((_req, res) => {
      // Never answered; the exchange ends when its connection does.
      const untrack = inFlight.add(() => undefined);
      res.on('close', untrack);
      arrived.resolve();
    });
    const shutdown = new GracefulShutdown(server, inFlight, TCP);
    await listenOn(server, TCP);
    const answer = rawGet(await openSocket(portOf(server)), '/never');
    await within(arrived.promise, 'the request to arrive');
    await within(shutdown.close(), 'close()');
    // Ended by the cut, not by close() giving up on it.
    expect(inFlight.size).toBe(0);
    expect(await answer).toBe('');
  });
});

describe('GracefulShutdown of a socket server (NDJSON)', () => {
  it('tells each connection to end, cuts the one that does not, and removes the unix socket file', async () => {
    const dir = tempDir('agent-proxy-shutdown-');
    onCleanup(() => dir.cleanup());
    const listen: ListenAddress = { kind: 'unix', socketPath: dir.file('relay.sock') };
    const inFlight = new InFlight(SHORT_GRACE_MS);
    const connected: Socket[] = [];
    const both = deferred();
    const server = createNetServer((socket) => {
      socket.on('error', () => undefined);
      connected.push(socket);
      const untrack = inFlight.add(() => socket.end());
      socket.on('close', untrack);
      if (connected.length === 2) both.resolve();
    });
    const shutdown = new GracefulShutdown(server, inFlight, listen);
    await listenOn(server as never, listen);
    // The polite client ends its side when the server ends its own; the stubborn one never does.
    const polite = connect(listen.socketPath);
    const stubborn = connect({ path: listen.socketPath, allowHalfOpen: true });
    for (const socket of [polite, stubborn]) {
      socket.on('error', () => undefined);
      onCleanup(() => void socket.destroy());
    }
    await within(both.promise, 'both connections to arrive');

    const politeClosed = once(polite, 'close');
    const closed = shutdown.close();
    await within(politeClosed, 'the polite connection to end');
    expect(connected[1].destroyed).toBe(false);
    await within(closed, 'close()');
    // Cut at the end of the grace period, not merely given up on.
    expect(connected[1].destroyed).toBe(true);
    expect(inFlight.size).toBe(0);
    expect(existsSync(listen.socketPath)).toBe(false);
  });
});

describe('endInFlight', () => {
  it('resolves at once with nothing in flight, and otherwise when the last exchange has reported its end', async () => {
    await endInFlight(new InFlight(SHUTDOWN_GRACE_MS));
    const inFlight = new InFlight(SHUTDOWN_GRACE_MS);
    const ends: Array<() => void> = [];
    let stops = 0;
    for (let i = 0; i < 2; i++) ends.push(inFlight.add(() => stops++));
    let settled = false;
    const ended = endInFlight(inFlight).then(() => (settled = true));
    expect(stops).toBe(2);
    ends[0]();
    await Promise.resolve();
    expect(settled).toBe(false);
    ends[1]();
    await within(ended, 'endInFlight');
    expect(settled).toBe(true);
  });
});

describe('shutdownGraceOf (the shutdownGraceMs option)', () => {
  it('takes a whole number of milliseconds, 0 or more, defaults to 2000, and refuses anything else as a usage error', () => {
    expect(shutdownGraceOf(undefined)).toBe(2_000);
    expect(shutdownGraceOf(0)).toBe(0);
    expect(shutdownGraceOf(150)).toBe(150);
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '100' as unknown as number]) {
      expect(() => shutdownGraceOf(bad)).toThrow(expect.objectContaining({ code: 'E_USAGE', message: `shutdownGraceMs must be a whole number of milliseconds, 0 or more (got ${String(bad)})` }));
    }
  });
});
