import { createServer, Agent, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { listenUrl, type ListenAddress, type TargetAddress } from '../../net/addresses.js';
import type { CaptureContext } from '../capture-context.js';
import { forwardHttp } from './http-forwarder.js';
import { InFlight } from '../../net/in-flight.js';
import { GracefulShutdown } from '../../net/graceful-shutdown.js';
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
  const shutdown = new GracefulShutdown(server, inFlight, options.listen);

  await listenOn(server, options.listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : undefined;
  const url = listenUrl(options.listen, port);

  let closing: Promise<void> | undefined;
  return {
    url,
    server,
    close() {
      closing ??= shutdown.close().then(() => agent.destroy());
      return closing;
    },
  };
}
