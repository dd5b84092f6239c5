import { createServer, Agent, type IncomingMessage, type Server } from 'node:http';
import { rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { listenUrl, type ListenAddress, type TargetAddress } from '../../net/addresses.js';
import type { CaptureContext } from '../capture-context.js';
import { forwardHttp } from './http-forwarder.js';
import { InFlight } from '../../net/in-flight.js';
import { listenOn } from '../../net/listen-on.js';
import { HeaderRedactor } from '../../judge/header-redaction.js';
import type { RecordingSink } from '../pipeline/recording-sink.js';
import { relayUpgrade } from './ws-relay.js';

export interface ProxyServer {
  readonly url: string;
  readonly server: Server;
  /** Stops accepting, closes open streams and sockets, and resolves when all are gone. */
  close(): Promise<void>;
}

export interface ProxyServerOptions {
  listen: ListenAddress;
  target: TargetAddress;
  recorder: RecordingSink;
  redactHeaders?: readonly string[];
  /** More secret query parameters, for URL-valued headers (Location, Referer); the recorder redacts the request's own query. */
  redactQuery?: readonly string[];
}

/** Answers and streams still open when shutdown begins get this long to finish before they are cut. */
const SHUTDOWN_GRACE_MS = 2_000;
/** How often shutdown closes the connections that have gone idle since. */
const IDLE_SWEEP_MS = 25;

/** The listening side of `proxy record`: HTTP requests are forwarded, upgrades relayed. */
export async function startProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  const inFlight = new InFlight();
  const agent = new Agent({ keepAlive: true });
  const context: CaptureContext = {
    target: options.target,
    recorder: options.recorder,
    redactor: new HeaderRedactor(options.redactHeaders, options.redactQuery),
    agent,
    track: (stop) => inFlight.add(stop),
  };
  const server = createServer((req, res) => forwardHttp(req, res, context));
  // Agent streams can be silent for minutes; the proxy must not time them out on its own.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  server.on('upgrade', (req, socket: Socket, head: Buffer) => relayUpgrade(req, socket, head, context));
  server.on('clientError', (_error, socket: Socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  const sockets = new Set<Socket>();
  // Sockets that have carried a request or an upgrade; the others (a client's pre-opened spare
  // connection) have nothing to finish and are closed at once on shutdown.
  const used = new WeakSet<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage) => used.add(req.socket));
  server.prependListener('upgrade', (req: IncomingMessage) => used.add(req.socket));

  await listenOn(server, options.listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : undefined;
  const url = listenUrl(options.listen, port);

  let closing: Promise<void> | undefined;
  return {
    url,
    server,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // Whatever is still open after the streams were told to end gets cut after a grace period.
        const timer = setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, SHUTDOWN_GRACE_MS);
        timer.unref();
        // A keep-alive connection whose answer finishes meanwhile is closed as soon as it is idle.
        const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
        // Never hang on an exchange that fails to report its end (kept referenced: close must settle).
        const cap = setTimeout(() => done(), 5_000);
        // Done when every connection is gone AND every exchange has finished recording: an exchange
        // may still be flushing (a gzip decoder draining) after its sockets closed, and the recording
        // must not be closed under it.
        let serverClosed = false;
        const done = () => {
          clearTimeout(timer);
          clearTimeout(cap);
          clearInterval(sweep);
          resolve();
        };
        const check = () => {
          if (serverClosed && inFlight.size === 0) done();
        };
        inFlight.onEmpty = check;
        server.close(() => {
          serverClosed = true;
          check();
        });
        inFlight.stopAll();
        server.closeIdleConnections();
        for (const socket of sockets) if (!used.has(socket)) socket.destroy();
      }).then(() => {
        agent.destroy();
        if (options.listen.kind === 'unix') rmSync(options.listen.socketPath, { force: true });
      });
      return closing;
    },
  };
}
