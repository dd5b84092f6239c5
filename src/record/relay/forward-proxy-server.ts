import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { listenUrl, type ListenAddress } from '../../net/addresses.js';
import { keepAliveAgent, type CaptureContext } from '../capture-context.js';
import type { UpstreamTls } from '../../net/upstream-tls.js';
import { forwardHttp } from './http-forwarder.js';
import { relayUpgrade } from './ws-relay.js';
import { answerConnect, openTunnelExchange, type TunnelChoice } from './connect-tunnel.js';
import { absoluteForm, connectAuthority, connectOrigin, dropProxyHeaders, refuseRaw, type ConnectAuthority, type ForwardOrigin } from '../../net/forward-request.js';
import { IdleConnections } from '../../net/idle-connections.js';
import { InFlight } from '../../net/in-flight.js';
import { GracefulShutdown } from '../../net/graceful-shutdown.js';
import { listenOn } from '../../net/listen-on.js';
import { answerClientErrors } from '../../net/client-errors.js';
import { HeaderRedactor } from '../../judge/header-redaction.js';
import type { RecordingSink } from '../pipeline/recording-sink.js';
import { sendJson } from '../../net/proxy-answers.js';
import { PROXY_AUTH_REQUIRED_HEADERS, type ProxyAuth } from '../../net/proxy-auth.js';
import { anyMatches, type HostGlob } from '../../net/host-glob.js';
import { rawHeader } from '../../net/headers.js';
import type { ProxyServer } from './proxy-server.js';
import type { LeafIssuer } from '../../net/ca/leaf-issuer.js';
import { interceptTls, type ClientTlsError } from '../../net/intercepted-tls.js';
import { ExchangeErrorCode } from '../../core/errors.js';
import type { Transport } from '../../store/recording-writer.js';

export interface ForwardProxyOptions {
  listen: ListenAddress;
  recorder: RecordingSink;
  redactHeaders?: readonly string[];
  redactQuery?: readonly string[];
  /** How an https:// origin's certificate is checked (default: Node's CAs, verified). */
  upstreamTls?: UpstreamTls;
  /** Clients must send these Basic credentials in Proxy-Authorization (`--proxy-auth`). */
  auth?: ProxyAuth;
  /** CONNECT hosts whose bytes pass through unread (`--tunnel`); every one when there are no `leaves` to intercept with. */
  tunnel?: readonly HostGlob[];
  /** CONNECT hosts to intercept (`--intercept`; default all): those `tunnel` leaves, when there are `leaves`. */
  intercept?: readonly HostGlob[];
  /** The local CA's leaf certificates: TLS inside a CONNECT to an intercepted host is answered with them. */
  leaves?: LeafIssuer;
  /** How long exchanges get to finish at shutdown before they are cut (`shutdownGraceMs`). */
  shutdownGraceMs: number;
}

/**
 * The listening side of `record --forward`: an HTTP forward proxy. A request in absolute form
 * (`GET http://host:port/path`) goes to that origin through the same forwarding and recording as
 * the reverse proxy's, its URL stored whole; a WebSocket upgrade likewise; a CONNECT is tunnelled.
 * `Proxy-*` headers are the proxy's own: they are neither forwarded nor stored.
 */
export async function startForwardProxyServer(options: ForwardProxyOptions): Promise<ProxyServer> {
  const inFlight = new InFlight(options.shutdownGraceMs);
  const { shutdownGraceMs } = options;
  const tls = options.upstreamTls ?? { rejectUnauthorized: true };
  const agents = { http: keepAliveAgent(false, tls), https: keepAliveAgent(true, tls) };
  const redactor = new HeaderRedactor(options.redactHeaders, options.redactQuery);
  const track = (stop: () => void) => inFlight.add(stop);

  /** The capture context of one request addressed to `origin`, or undefined when it is not in absolute form. */
  const contextFor = (req: IncomingMessage): CaptureContext | undefined => {
    const form = absoluteForm(req.url ?? '');
    if (!form) return undefined;
    req.url = form.pathAndQuery;
    dropProxyHeaders(req.rawHeaders);
    const overTls = form.target.protocol === 'https:';
    return { target: form.target, recorder: options.recorder, redactor, agent: overTls ? agents.https : agents.http, tls, track, shutdownGraceMs, origin: form.target.display };
  };

  /** Connections taken over from a CONNECT (plain HTTP inside it), with the origin their requests go to. */
  const innerOrigins = new WeakMap<object, ForwardOrigin>();
  /** The capture context of a request inside a taken-over CONNECT: its origin is the CONNECT's. */
  const innerContextFor = (req: IncomingMessage): CaptureContext | undefined => {
    const target = innerOrigins.get(req.socket);
    if (!target) return undefined;
    const overTls = target.protocol === 'https:';
    return { target, recorder: options.recorder, redactor, agent: overTls ? agents.https : agents.http, tls, track, shutdownGraceMs, origin: target.display };
  };
  const innerIdle = new IdleConnections();
  const inner = createServer((req, res) => {
    innerIdle.busy(req.socket, res);
    const context = innerContextFor(req);
    if (context) forwardHttp(req, res, context);
    else res.destroy();
  });
  inner.requestTimeout = 0;
  inner.headersTimeout = 60_000;
  inner.keepAliveTimeout = 5_000;
  inner.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => {});
    const context = innerContextFor(req);
    if (context) relayUpgrade(req, socket, head, context);
    else socket.destroy();
  });
  inner.on('clientError', (_error, socket: Socket) => socket.destroy());
  /** Hands a connection to the inner server, its requests going to `authority` over `protocol`. */
  const takeOver = (socket: Duplex, authority: ConnectAuthority, protocol: 'http:' | 'https:') => {
    innerOrigins.set(socket, connectOrigin(authority, protocol));
    innerIdle.add(socket);
    inner.emit('connection', socket);
    socket.resume();
  };
  /**
   * TLS inside a CONNECT to an intercepted host: the proxy answers the handshake with the local CA's
   * leaf for the name the client asked for (SNI; the CONNECT's host when it sent none, as for an IP
   * address), HTTP/1.1 by ALPN, as replay --forward does (interceptTls), and reads the requests as any
   * others, to `https://host:port`, checked there as record checks an https:// target. A client whose
   * handshake fails (one that does not trust the CA) is recorded as the CONNECT's exchange, E_CLIENT_TLS.
   */
  const intercept = (client: Duplex, req: IncomingMessage, authority: ConnectAuthority, startedAt: number, leaves: LeafIssuer) => {
    // Shutdown cuts a handshake still under way; that cut is not the client's failure.
    let cut = false;
    const untrack = track(() => {
      cut = true;
      client.destroy();
    });
    interceptTls(client as Socket, { issuer: leaves, connectHost: authority.host }).then(
      (tls) => {
        untrack();
        takeOver(tls, authority, 'https:');
      },
      (error: ClientTlsError) => {
        if (!cut) {
          const exchange = openTunnelExchange(req, authority, { recorder: options.recorder, redactor }, startedAt);
          exchange.update({ status: 200 });
          exchange.end({ outcome: 'error', errorCode: ExchangeErrorCode.E_CLIENT_TLS, errorMessage: error.message, tunnel: { clientBytes: 0, serverBytes: 0 } });
        }
        untrack();
      },
    );
  };
  /** How an open CONNECT to a host --tunnel does not name is carried, by its first bytes. */
  const chooseFor = (req: IncomingMessage, authority: ConnectAuthority, startedAt: number): TunnelChoice => (opening) => {
    if (opening === 'http') return (client) => takeOver(client, authority, 'http:');
    const leaves = options.leaves;
    if (opening === 'tls' && leaves && anyMatches(options.intercept ?? [], authority.host)) return (client) => intercept(client, req, authority, startedAt, leaves);
    return 'tunnel';
  };

  /**
   * Answers a request, upgrade or CONNECT without the --proxy-auth credentials with a 407, and records
   * it (outcome rejected), so the summary counts it: never its Proxy-Authorization, right or wrong.
   */
  const refuseUnauthenticated = (req: IncomingMessage, transport: Transport, answer: () => void) => {
    const sent = rawHeader(req.rawHeaders, 'proxy-authorization') !== undefined;
    dropProxyHeaders(req.rawHeaders);
    const requestTarget = req.url ?? '';
    const form = transport === 'tunnel' ? undefined : absoluteForm(requestTarget);
    const pathAndQuery = form?.pathAndQuery ?? requestTarget;
    const queryAt = pathAndQuery.indexOf('?');
    const exchange = options.recorder.openExchange({
      transport,
      method: req.method ?? 'GET',
      path: transport === 'tunnel' || queryAt < 0 ? pathAndQuery : pathAndQuery.slice(0, queryAt),
      query: transport === 'tunnel' || queryAt < 0 ? undefined : pathAndQuery.slice(queryAt + 1) || undefined,
      url: form ? form.target.display + form.pathAndQuery : requestTarget,
      requestHeaders: redactor.record(req.rawHeaders),
    });
    answer();
    exchange.update({ status: 407 });
    exchange.end({
      outcome: 'rejected',
      errorCode: ExchangeErrorCode.E_PROXY_AUTH,
      errorMessage: `the proxy requires credentials (--proxy-auth): ${sent ? 'the Proxy-Authorization sent is not them' : 'no Proxy-Authorization was sent'}`,
      ...(transport === 'tunnel' ? { tunnel: { clientBytes: 0, serverBytes: 0 } } : {}),
    });
  };
  const authorized = (req: IncomingMessage) => !options.auth || options.auth.accepts(rawHeader(req.rawHeaders, 'proxy-authorization'));

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!authorized(req)) {
      req.resume();
      return refuseUnauthenticated(req, 'http', () => res.writeHead(407, PROXY_AUTH_REQUIRED_HEADERS).end());
    }
    const context = contextFor(req);
    if (!context) {
      sendJson(res, 400, { error: { code: 'not_a_proxy_request', message: NOT_ABSOLUTE } });
      return;
    }
    forwardHttp(req, res, context);
  };

  const server: Server = createServer(onRequest);
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => {});
    if (!authorized(req)) return refuseUnauthenticated(req, 'ws', () => refuseRaw(socket, 407, PROXY_AUTH_REQUIRED_HEADERS));
    const context = contextFor(req);
    if (!context) return refuseRaw(socket, 400, {}, NOT_ABSOLUTE);
    relayUpgrade(req, socket, head, context);
  });
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    // A tunnel's duration counts from here, the CONNECT's arrival, though its exchange opens later.
    const startedAt = options.recorder.now();
    socket.on('error', () => {});
    if (!authorized(req)) return refuseUnauthenticated(req, 'tunnel', () => refuseRaw(socket, 407, PROXY_AUTH_REQUIRED_HEADERS));
    const authority = connectAuthority(req.url ?? '');
    if (!authority) return refuseRaw(socket, 400, {}, `CONNECT needs host:port, not '${req.url ?? ''}'`);
    dropProxyHeaders(req.rawHeaders);
    // A --tunnel host's bytes pass through unread, whatever they are.
    const choose = anyMatches(options.tunnel ?? [], authority.host) ? undefined : chooseFor(req, authority, startedAt);
    answerConnect(req, socket, head, authority, { recorder: options.recorder, redactor, track }, choose, startedAt);
  });
  answerClientErrors(server);
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
      // Connections taken over from a CONNECT have no server listening for them: closed here once idle.
      innerIdle.closeWhenIdle();
      closing ??= shutdown.close().then(() => {
        agents.http.destroy();
        agents.https.destroy();
      });
      return closing;
    },
  };
}

const NOT_ABSOLUTE = 'this is a forward proxy (record --forward): send requests in absolute form (GET http://host/path), as a client with HTTP_PROXY set does';
