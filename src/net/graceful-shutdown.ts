import { rmSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import type { Server, Socket } from 'node:net';
import type { ListenAddress } from './addresses.js';
import { UsageError } from '../core/errors.js';
import type { InFlight } from './in-flight.js';

/**
 * Once shutdown begins, exchanges told to end and connections still open get this long to finish on
 * their own before they are cut. Two seconds: a relayed WebSocket close needs a round trip through
 * the proxy to each peer, and a plain answer on its way must still reach its client. (The NDJSON
 * relay used to cut after one second; a daemon that answers a half-close promptly is not slowed by
 * the longer wait, and one that does not is cut all the same.)
 */
export const SHUTDOWN_GRACE_MS = 2_000;
/** Shutdown never waits longer than this past the grace period for an exchange that fails to report its end. */
const GIVE_UP_AFTER_GRACE_MS = 3_000;
/** How often an HTTP server closes the keep-alive connections that have gone idle since shutdown began. */
const IDLE_SWEEP_MS = 25;
/**
 * Shutdown goes on accepting and reading until this many event-loop turns in a row have brought no
 * new connection. Node accepts one waiting connection per turn (libuv 1.46), and reads a socket's
 * first bytes in the turn after it accepted it: turns, not time, so what had arrived is taken in and
 * shutdown is not slowed when nothing had.
 */
const QUIET_TURNS = 3;

/**
 * The `shutdownGraceMs` option (`--shutdown-grace`): a whole number of milliseconds, 0 or more;
 * default SHUTDOWN_GRACE_MS. A test suite that closes its replay while a client holds a connection
 * open sets it short, so each close does not wait the default's two seconds.
 */
export function shutdownGraceOf(value: number | undefined): number {
  if (value === undefined) return SHUTDOWN_GRACE_MS;
  if (!Number.isSafeInteger(value) || value < 0) throw new UsageError(`shutdownGraceMs must be a whole number of milliseconds, 0 or more (got ${String(value)})`);
  return value;
}

/**
 * Cuts what an exchange could not end gracefully (a leg that never answers its close, an upstream
 * that never closes its side), once the grace period is over. The timer does not keep the process alive.
 */
export function cutAfterGrace(cut: () => void, graceMs: number): NodeJS.Timeout {
  const timer = setTimeout(cut, graceMs);
  timer.unref();
  return timer;
}

/**
 * Tells every exchange in flight to end, and resolves once the last has reported its end (or after
 * GIVE_UP_AFTER_GRACE_MS past inFlight's grace period): for exchanges that have no listening server
 * of their own (forwarded replay misses).
 */
export function endInFlight(inFlight: InFlight): Promise<void> {
  inFlight.stopAll();
  if (inFlight.size === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const cap = setTimeout(resolve, inFlight.graceMs + GIVE_UP_AFTER_GRACE_MS);
    cap.unref();
    inFlight.onEmpty = () => {
      clearTimeout(cap);
      resolve();
    };
  });
}

/**
 * The one shutdown sequence of every listening server (record's proxy and NDJSON relay, replay's
 * server). Create it before the server listens, so it sees every connection. `close()`:
 * 1. tells every exchange in flight to end (InFlight: a stream ends cleanly, a WebSocket gets 1001),
 *    and every one that starts from now on;
 * 2. takes in what had already reached the proxy (QUIET_TURNS): the connections waiting in the
 *    listen backlog, and the requests sent on connections it had not read yet. A busy proxy (many
 *    TLS handshakes at once) leaves both waiting; stopping at once reset them, and requests a client
 *    had sent were in neither the recording nor its summary;
 * 3. stops accepting;
 * 4. closes the connections with nothing to finish (an HTTP client's spare, unused connection; an
 *    idle keep-alive one), and each keep-alive connection as soon as it goes idle;
 * 5. resolves once every connection is gone AND every exchange has reported its end: an exchange may
 *    still be flushing its recording (a gzip decoder draining) after its sockets closed;
 * 6. destroys whatever connection is still open after inFlight's grace period (SHUTDOWN_GRACE_MS
 *    unless set), and stops waiting GIVE_UP_AFTER_GRACE_MS later for an exchange that never reports its end.
 * A unix socket file it listened on is removed. Idempotent: later calls get the same promise.
 */
export class GracefulShutdown {
  private readonly sockets = new Set<Socket>();
  private closing: Promise<void> | undefined;
  /** Connections accepted so far: shutdown stops accepting once a few turns have brought none. */
  private accepted = 0;

  constructor(
    private readonly server: Server,
    private readonly inFlight: InFlight,
    private readonly listen: ListenAddress,
  ) {
    server.on('connection', (socket: Socket) => {
      this.accepted++;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const { server, inFlight, sockets } = this;
      const http = isHttpServer(server) ? server : undefined;
      let graceOver = false;
      const cut = cutAfterGrace(() => {
        graceOver = true;
        for (const socket of sockets) socket.destroy();
      }, inFlight.graceMs);
      let sweep: NodeJS.Timeout | undefined;
      // Kept referenced: close must settle.
      const cap = setTimeout(() => done(), inFlight.graceMs + GIVE_UP_AFTER_GRACE_MS);
      let serverClosed = false;
      const done = () => {
        clearTimeout(cut);
        clearTimeout(cap);
        clearInterval(sweep);
        resolve();
      };
      const check = () => {
        if (serverClosed && inFlight.size === 0) done();
      };
      inFlight.onEmpty = check;
      inFlight.stopAll();
      this.afterArrivals(() => graceOver, () => {
        server.close(() => {
          serverClosed = true;
          check();
        });
        if (!http) return;
        sweep = setInterval(() => http.closeIdleConnections(), IDLE_SWEEP_MS);
        http.closeIdleConnections();
        // A client's spare connection, opened ahead and never used, has nothing to finish; Node's
        // closeIdleConnections leaves it open (it counts only connections that carried a request).
        for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
      });
    }).then(() => {
      if (this.listen.kind === 'unix') rmSync(this.listen.socketPath, { force: true });
    });
    return this.closing;
  }

  /**
   * Runs `then` once QUIET_TURNS turns of the event loop in a row have accepted no connection (the
   * listen backlog is empty and the last ones accepted have been read), or once `over` says so: a
   * flood of new connections does not hold shutdown open past its grace period.
   */
  private afterArrivals(over: () => boolean, then: () => void): void {
    let seen = this.accepted;
    let quiet = 0;
    const turn = () => {
      if (this.accepted === seen) quiet++;
      else [seen, quiet] = [this.accepted, 0];
      if (quiet >= QUIET_TURNS || over()) then();
      else setImmediate(turn);
    };
    setImmediate(turn);
  }
}

function isHttpServer(server: Server): server is HttpServer {
  return typeof (server as HttpServer).closeIdleConnections === 'function';
}
