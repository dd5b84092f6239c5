import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { listenUrl, type ListenAddress, type TargetAddress } from '../../net/addresses.js';
import { upstreamAgent, type CaptureContext } from '../capture-context.js';
import type { UpstreamTls } from '../../net/upstream-tls.js';
import type { ListenTls } from '../../net/listen-tls.js';
import { forwardHttp } from './http-forwarder.js';
import { InFlight } from '../../net/in-flight.js';
import { GracefulShutdown } from '../../net/graceful-shutdown.js';
import { listenOn } from '../../net/listen-on.js';
import { answerClientErrors } from '../../net/client-errors.js';
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
  /** How an https:// target's certificate is checked (default: Node's CAs, verified). */
  upstreamTls?: UpstreamTls;
  /** Serve HTTPS (and WSS) to clients with this certificate and key instead of plain HTTP. */
  listenTls?: ListenTls;
  /** How long exchanges get to finish at shutdown before they are cut (`shutdownGraceMs`). */
  shutdownGraceMs: number;
}

/** The listening side of `proxy record`: HTTP requests are forwarded, upgrades relayed. */
export async function startProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  const inFlight = new InFlight(options.shutdownGraceMs);
  const tls = options.upstreamTls ?? { rejectUnauthorized: true };
  const agent = upstreamAgent(options.target, tls);
  const context: CaptureContext = {
    target: options.target,
    recorder: options.recorder,
    redactor: new HeaderRedactor(options.redactHeaders, options.redactQuery),
    agent,
    tls,
    track: (stop) => inFlight.add(stop),
    shutdownGraceMs: options.shutdownGraceMs,
  };
  const handle = (req: Parameters<typeof forwardHttp>[0], res: Parameters<typeof forwardHttp>[1]) => forwardHttp(req, res, context);
  // https.Server is an http.Server on TLS sockets: the rest (upgrades, timeouts, shutdown) is the same.
  // node:https only with --tls-cert: loading it costs a plain-HTTP recorder's start ~5 ms.
  const server: Server = options.listenTls ? process.getBuiltinModule('node:https').createServer({ cert: options.listenTls.cert, key: options.listenTls.key }, handle) : createServer(handle);
  // Agent streams can be silent for minutes; the proxy must not time them out on its own.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  server.on('upgrade', (req, socket: Socket, head: Buffer) => relayUpgrade(req, socket, head, context));
  answerClientErrors(server);
  const shutdown = new GracefulShutdown(server, inFlight, options.listen);

  await listenOn(server, options.listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : undefined;
  const url = listenUrl(options.listen, port, options.listenTls !== undefined);

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
