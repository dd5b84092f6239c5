import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { listenUrl, type ListenAddress } from '../../net/addresses.js';
import { InFlight } from '../../net/in-flight.js';
import { GracefulShutdown } from '../../net/graceful-shutdown.js';
import { listenOn } from '../../net/listen-on.js';
import { IdleConnections } from '../../net/idle-connections.js';
import { interceptTls } from '../../net/intercepted-tls.js';
import type { LeafIssuer } from '../../net/ca/leaf-issuer.js';
import { absoluteForm, connectAuthority, connectOrigin, dropProxyHeaders, refuseRaw, type ForwardOrigin } from '../../net/forward-request.js';
import { sendJson } from '../../net/proxy-answers.js';
import { PROXY_AUTH_REQUIRED_HEADERS, type ProxyAuth } from '../../net/proxy-auth.js';
import { rawHeader } from '../../net/headers.js';
import { createHttpResponder } from '../http/http-responder.js';
import { reportMiss, type ReplayContext, type ReplayMiss } from '../replay-context.js';
import { reportedRequest } from '../miss-report.js';
import { missMessage } from '../miss-message.js';
import { wsExchanges } from '../replay-script.js';
import { loadWsPlayer, upgradeLater, type ReplayServer } from '../replay-server.js';
import { nearestOnAnotherHost, recordedOrigins } from './recorded-origins.js';

/** One recorded origin's share of the replay: its own exchanges, matched apart from every other host's. */
interface OriginReplay {
  context: ReplayContext;
  respond: (req: IncomingMessage, res: ServerResponse) => void;
}

const TLS_HANDSHAKE = 0x16;

/** Calls `then` with the first bytes the client sent inside its CONNECT (the `head` already read, else the next chunk), or undefined when it left first. */
function firstBytes(socket: Socket, head: Buffer, then: (first: Buffer | undefined) => void): void {
  if (head.length > 0) return then(head);
  const onData = (chunk: Buffer) => {
    socket.off('close', onClose);
    socket.pause();
    then(chunk);
  };
  const onClose = () => {
    socket.off('data', onData);
    then(undefined);
  };
  socket.once('data', onData);
  socket.once('close', onClose);
}

const NOT_ABSOLUTE = 'this is a forward proxy (replay --forward): send requests in absolute form (GET http://host/path), as a client with HTTP_PROXY set does';

/**
 * The listening side of `replay --forward`: a forward proxy, as `record --forward` listens, that
 * answers from the recording instead of forwarding. Each recorded origin (scheme, host and port) is
 * served by its own HTTP responder over its own exchanges, so the same path on two hosts never
 * crosses; the ledger, faults, clock and log are the replay's, shared. A request in absolute form
 * goes to its origin's; a CONNECT to a recorded `https://` origin is answered with the local CA's
 * leaf (`leaves`) and its requests likewise. A host the recording does not hold gets a 502 naming
 * it and the nearest recorded request, a CONNECT before any TLS, and counts as a miss; with
 * `--on-miss passthrough` (the context's `passthrough`) it is forwarded to that host instead and
 * recorded, a CONNECT to it intercepted with the local CA's leaf as `record --forward` does, and a
 * miss on a recorded host likewise goes to that host. With `auth` (`--proxy-auth`) a client without
 * its credentials gets a 407, as from `record --forward`.
 */
export async function startForwardReplayServer(
  listen: ListenAddress,
  init: Omit<ReplayContext, 'track'>,
  leaves: LeafIssuer | undefined,
  auth?: ProxyAuth,
): Promise<Pick<ReplayServer, 'url' | 'wsUrl' | 'close'>> {
  const inFlight = new InFlight(init.shutdownGraceMs);
  const base: ReplayContext = { ...init, track: (stop) => inFlight.add(stop) };
  const passthrough = init.passthrough;
  const byOrigin = recordedOrigins(init.script);
  const origins = new Map<string, OriginReplay>();
  for (const [origin, exchanges] of byOrigin) {
    // A miss on a recorded host is passed through to that host.
    const target = absoluteForm(origin)?.target;
    const context: ReplayContext = { ...base, script: { ...init.script, exchanges }, origin, ...(passthrough && target ? { passthrough: passthrough.forOrigin(target) } : {}) };
    origins.set(origin, { context, respond: createHttpResponder(context) });
  }
  const wsPlayer = wsExchanges(init.script).length > 0 || passthrough ? await loadWsPlayer() : undefined;
  const authorized = (req: IncomingMessage) => !auth || auth.accepts(rawHeader(req.rawHeaders, 'proxy-authorization'));
  const upgrade = (req: IncomingMessage, socket: Socket, head: Buffer, context: ReplayContext) => (wsPlayer ? wsPlayer(req, socket, head, context) : upgradeLater(req, socket, head, context));

  /** Reports a request to a host the recording does not hold as a miss, and says what to answer it with (when it is not passed through). */
  const unknownHost = (origin: string, method: string, pathAndQuery: string) => {
    const queryAt = pathAndQuery.indexOf('?');
    const path = queryAt < 0 ? pathAndQuery : pathAndQuery.slice(0, queryAt);
    const query = queryAt < 0 ? '' : pathAndQuery.slice(queryAt + 1);
    const nearest = nearestOnAnotherHost(byOrigin, method, path, query);
    const miss: ReplayMiss = {
      transport: 'http',
      reason: 'no-match',
      request: reportedRequest({ method, path: `${origin}${path}`, query }),
      ...(nearest ? { nearest: { exchangeId: nearest.id, method: nearest.method, path: nearest.url } } : {}),
      differences: ['host'],
      // A CONNECT's own miss is its requests': passed through, each is reported on its own.
      action: passthrough && method !== 'CONNECT' ? 'passthrough' : 'error',
    };
    reportMiss(base, miss);
    const hosts = [...byOrigin.keys()];
    const message = `replay --forward: the recording holds nothing for ${origin}; ${missMessage(miss)}; recorded hosts: ${hosts.length > 0 ? hosts.join(', ') : 'none'}`;
    return { error: { code: 'replay_unknown_host', message, host: origin, recordedHosts: hosts, nearest: nearest ? { exchangeId: nearest.id, method: nearest.method, url: nearest.url } : null } };
  };

  /** A request (its path and query already in `req.url`) to `origin`: answered from its exchanges, else a miss passed through or refused. */
  const answerRequest = (req: IncomingMessage, res: ServerResponse, origin: ForwardOrigin) => {
    const served = origins.get(origin.display);
    if (served) return served.respond(req, res);
    const refusal = unknownHost(origin.display, req.method ?? 'GET', req.url ?? '/');
    if (passthrough) return passthrough.forOrigin(origin).forwardHttp(req, { head: [] }, res);
    req.resume();
    sendJson(res, 502, refusal);
  };
  /** An upgrade to `origin`, likewise. */
  const answerUpgrade = (req: IncomingMessage, socket: Socket, head: Buffer, origin: ForwardOrigin) => {
    const served = origins.get(origin.display);
    if (served) return upgrade(req, socket, head, served.context);
    const refusal = unknownHost(origin.display, req.method ?? 'GET', req.url ?? '/');
    if (passthrough) return passthrough.forOrigin(origin).forwardUpgrade(req, socket, head);
    refuseRaw(socket, 502, {}, refusal.error.message, 'replay_unknown_host');
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!authorized(req)) return void res.writeHead(407, PROXY_AUTH_REQUIRED_HEADERS).end();
    const form = absoluteForm(req.url ?? '');
    if (!form) return sendJson(res, 400, { error: { code: 'not_a_proxy_request', message: NOT_ABSOLUTE } });
    dropProxyHeaders(req.rawHeaders);
    req.url = form.pathAndQuery;
    answerRequest(req, res, form.target);
  };

  /** Connections taken over from a CONNECT, with the origin their requests are answered for. */
  const innerOrigins = new WeakMap<object, ForwardOrigin>();
  const innerIdle = new IdleConnections();
  const inner = createServer((req, res) => {
    innerIdle.busy(req.socket, res);
    const origin = innerOrigins.get(req.socket);
    if (origin === undefined) return res.destroy();
    answerRequest(req, res, origin);
  });
  inner.requestTimeout = 0;
  inner.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => {});
    const origin = innerOrigins.get(req.socket);
    if (origin !== undefined) answerUpgrade(req, socket, head, origin);
    else socket.destroy();
  });
  inner.on('clientError', (_error, socket: Duplex) => socket.destroy());
  /** Hands a connection inside a CONNECT to the inner server, its requests answered for `origin`. */
  const takeOver = (socket: Duplex, origin: ForwardOrigin) => {
    innerOrigins.set(socket, origin);
    innerIdle.add(socket);
    inner.emit('connection', socket);
  };

  const server: Server = createServer(onRequest);
  server.requestTimeout = 0;
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => {});
    if (!authorized(req)) return refuseRaw(socket, 407, PROXY_AUTH_REQUIRED_HEADERS);
    const form = absoluteForm(req.url ?? '');
    if (!form) return refuseRaw(socket, 400, {}, NOT_ABSOLUTE);
    dropProxyHeaders(req.rawHeaders);
    req.url = form.pathAndQuery;
    answerUpgrade(req, socket, head, form.target);
  });
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => {});
    if (!authorized(req)) return refuseRaw(socket, 407, PROXY_AUTH_REQUIRED_HEADERS);
    const authority = connectAuthority(req.url ?? '');
    if (!authority) return refuseRaw(socket, 400, {}, `CONNECT needs host:port, not '${req.url ?? ''}'`);
    const secure = connectOrigin(authority, 'https:');
    const plain = connectOrigin(authority, 'http:');
    // With passthrough a host the recording does not hold is intercepted too: its requests go on to it.
    if (!passthrough && !origins.has(secure.display) && !origins.has(plain.display)) return refuseRaw(socket, 502, {}, unknownHost(secure.display, 'CONNECT', '/').error.message, 'replay_unknown_host');
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    // Until the connection is taken over the replay ends it at shutdown.
    const untrack = inFlight.add(() => socket.destroy());
    // Its first bytes say what it carries: TLS (answered with the local CA's leaf), or plain HTTP
    // (Node's fetch sends even http:// requests through a CONNECT), as record --forward tells them apart.
    firstBytes(socket, head, (first) => {
      if (first === undefined) return untrack();
      if (first[0] !== TLS_HANDSHAKE) {
        untrack();
        socket.unshift(first);
        takeOver(socket, plain);
        return socket.resume();
      }
      if (!leaves) {
        untrack();
        return socket.destroy();
      }
      interceptTls(socket, { issuer: leaves, connectHost: authority.host, head: first }).then(
        (tls) => {
          untrack();
          takeOver(tls, secure);
        },
        // The client refused the leaf, or left: interceptTls has destroyed its socket.
        () => untrack(),
      );
    });
  });
  server.on('clientError', (_error, socket: Duplex) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  const shutdown = new GracefulShutdown(server, inFlight, listen);

  await listenOn(server, listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : undefined;
  const url = listenUrl(listen, port);
  let closing: Promise<void> | undefined;
  return {
    url,
    wsUrl: url.replace(/^http:/, 'ws:'),
    close() {
      innerIdle.closeWhenIdle();
      return (closing ??= shutdown.close());
    },
  };
}
