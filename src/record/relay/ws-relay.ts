import type { ClientRequest, IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ClientOptions, RawData, WebSocket } from 'ws';
import type { HttpContext, Sender } from '../../core/message.js';
import { bodyKindOf } from '../pipeline/body-taps.js';
import { upstreamHost, type CaptureContext } from '../capture-context.js';
import { endToEndHeaders, headerRecord, rawHeader } from '../../net/headers.js';
import { BINARY_FRAME, TEXT_FRAME, type ExchangeSink } from '../pipeline/recording-sink.js';
import { headersProblem, invalidStatusLineMessage, isParserError, parserErrorMessage, statusLineProblem } from '../../net/response-head-check.js';
import { CLOSE_GOING_AWAY, closeFramePayload, forwardClose, isAbruptClose } from '../../net/ws-close-codes.js';
import { rejectionHeaders, writeProxyError, writeRawResponse } from '../../net/ws-rejection.js';
import { offeredProtocols, WS_MAX_PAYLOAD } from '../../net/ws-limits.js';
import { lazyWs } from '../../net/lazy-ws.js';
import { cutAfterGrace } from '../../net/graceful-shutdown.js';
import { ExchangeErrorCode } from '../../core/errors.js';
import { handshakeCutFailure, tlsAnswerFields, tlsFailureOf, watchHandshake } from '../../net/tls-failure.js';
import { tlsFactsOf, tlsFactsOfFailure } from '../../net/tls-facts.js';
import type { TlsFacts } from '../../core/tls-facts.js';
import { proxyAnswerCode, type ProxyAnswerErrorCode } from '../../net/proxy-answers.js';

/** A leg whose outgoing buffer passes this pauses the leg that feeds it... */
export const WS_HIGH_WATER = 1024 * 1024;
/** ...until the buffer drains below this. */
export const WS_LOW_WATER = 256 * 1024;
/** On shutdown both legs get a 1001 close with this reason; whatever has not finished closing after the grace period is cut. */
export const WS_SHUTDOWN_REASON = 'proxy shutting down';

/** Request headers ws generates for the upstream leg itself (plus ones that would confuse the handshake). */
const CLIENT_GENERATED = ['host', 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol', 'sec-websocket-accept', 'content-length', 'expect'];
/** Upstream 101 headers ws generates for the client leg itself. */
const SERVER_GENERATED = ['sec-websocket-accept', 'sec-websocket-protocol', 'sec-websocket-extensions', 'content-length'];

/** RFC 7230 token characters: what ws accepts as a subprotocol. */
const TOKEN = /^[!#$%&'*+\-.0-9A-Z^_`|a-z~]+$/;
/** A client has no business sending much before its handshake is answered. */
const MAX_EARLY_BYTES = 1024 * 1024;
const WEBSOCKET_KEY = /^[+/0-9A-Za-z]{22}==$/;

/** ws's send options for a relayed frame, made once: a frame's type is all they carry. */
const SEND_TEXT = Object.freeze({ binary: false });
const SEND_BINARY = Object.freeze({ binary: true });
/** The most a frame's header adds to its payload on the wire (RFC 6455 §5.2: 2 + 8 length + 4 mask). */
const MAX_FRAME_HEADER = 14;

/** Both legs of a relayed upgrade are written with the same limits: the proxy is transparent. */
const LEG_OPTIONS = { perMessageDeflate: false, autoPong: false, maxPayload: WS_MAX_PAYLOAD, skipUTF8Validation: true } as const;

/**
 * Relays one WebSocket upgrade (libraries-and-style §2): the proxy terminates both legs and relays
 * message by message, so every message, ping, pong and close is seen, forwarded first and then recorded.
 *
 * 1. The upstream is dialled with the client's offered subprotocols and end-to-end headers.
 * 2. Only when it is open is the client's handshake completed, echoing the upstream's subprotocol
 *    (and its other end-to-end 101 headers).
 * 3. An upstream refusal (non-101) is mirrored onto the client's socket: status, headers, body.
 *    An unreachable upstream gets a 502 with a JSON error.
 *
 * What is recorded, per message (ws reassembles fragments, so the unit is the message):
 * - text → channel `text`, parsed and judged as JSON; binary → channel `binary`, stored unjudged;
 * - ping / pong → channels `ping` / `pong` with their payloads, unjudged;
 * - each close frame a peer sent → channel `close`, raw = the close payload as on the wire
 *   (2-byte code + reason; empty for 1005), unjudged. An abrupt close (1006) has no frame and no row.
 * The protocol is classified once the upstream has answered: by the chosen subprotocol on 101, or
 * as an HTTP route for a refusal's body. Classification sticks, so it is not guessed from the offer.
 */
export function relayUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, context: CaptureContext): void {
  new UpgradeRelay(req, socket, head, context).start();
}

type Phase = 'connecting' | 'rejecting' | 'open' | 'done';

interface CloseSeen {
  side: Sender;
  code: number;
  reason: Buffer;
}

class UpgradeRelay {
  private readonly url: string;
  private readonly path: string;
  private readonly query: string;
  private readonly offered: string[];
  private readonly exchange: ExchangeSink;
  private phase: Phase = 'connecting';
  private upstream?: WebSocket;
  /** wss://: true once the upstream was reached but its TLS handshake is not done (see watchHandshake). */
  private handshakeCut: () => boolean = () => false;
  private client?: WebSocket;
  private upgradeResponse?: IncomingMessage;
  private untrack: () => void = () => {};
  private firstClose?: CloseSeen;
  private readonly closed = new Set<Sender>();
  private readonly errors = new Map<Sender, Error>();
  private readonly pausedByUs = new Set<WebSocket>();
  private shuttingDown = false;
  private cutByShutdown = false;
  private readonly earlyData: Buffer[] = [];
  private earlyBytes = 0;
  private shutdownTimer?: NodeJS.Timeout;

  constructor(
    private readonly req: IncomingMessage,
    private readonly socket: Duplex,
    private readonly head: Buffer,
    private readonly context: CaptureContext,
  ) {
    this.url = req.url ?? '/';
    const queryAt = this.url.indexOf('?');
    this.path = queryAt < 0 ? this.url : this.url.slice(0, queryAt);
    this.query = queryAt < 0 ? '' : this.url.slice(queryAt + 1);
    this.offered = offeredProtocols(req.headers['sec-websocket-protocol']);
    this.exchange = context.recorder.openExchange({
      transport: 'ws',
      method: req.method ?? 'GET',
      path: this.path,
      query: this.query || undefined,
      url: context.origin === undefined ? this.url : context.origin + this.url,
      requestHeaders: headerRecord(context.redactor.redact(req.rawHeaders)),
    });
  }

  start(): void {
    // The http server hands the socket over without an error listener; a reset must not crash the proxy.
    this.socket.on('error', () => {});
    // Until the client's handshake is answered the proxy reads its socket itself: that is how a client
    // that leaves early is noticed (node hands the socket over half-open and not flowing).
    this.socket.on('data', this.onEarlyData);
    this.socket.on('end', this.onClientSocketClose);
    this.socket.on('close', this.onClientSocketClose);

    const problem = upgradeProblem(this.req, this.offered);
    if (problem) {
      this.phase = 'done';
      this.exchange.update({ status: 400 });
      writeProxyError(this.socket, 400, proxyAnswerCode(ExchangeErrorCode.E_INVALID_UPGRADE), problem);
      this.exchange.end({ outcome: 'rejected', errorCode: ExchangeErrorCode.E_INVALID_UPGRADE, errorMessage: problem });
      return;
    }

    this.untrack = this.context.track(() => this.shutdown());
    try {
      this.upstream = this.dialUpstream();
    } catch (error) {
      // ws refused to even build the request (it validates the URL and subprotocols up front).
      this.fail(400, ExchangeErrorCode.E_INVALID_UPGRADE, `the upgrade cannot be relayed: ${(error as Error).message}`, 'rejected');
      return;
    }
    const upstream = this.upstream;
    upstream.on('upgrade', (response: IncomingMessage) => {
      this.upgradeResponse = response;
    });
    upstream.on('unexpected-response', (request: ClientRequest, response: IncomingMessage) => this.onRejected(request, response));
    upstream.on('open', () => this.onUpstreamOpen());
    upstream.on('error', (error: Error) => this.onUpstreamError(error));
    upstream.on('close', (code: number, reason: Buffer) => {
      if (this.phase === 'open') this.onLegClose('server', code, reason);
    });
  }

  private dialUpstream(): WebSocket {
    const target = this.context.target;
    const requestPath = target.basePath + this.url;
    const scheme = target.kind === 'tcp' && target.protocol === 'https:' ? 'wss' : 'ws';
    const origin = target.kind === 'unix' ? 'ws://localhost' : `${scheme}://${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
    const headers = headerRecord(endToEndHeaders(this.req.rawHeaders, { drop: CLIENT_GENERATED }));
    headers.Host = upstreamHost(target);
    const options: ClientOptions = {
      ...LEG_OPTIONS,
      followRedirects: false,
      // ws types allow only strings; node:http sends an array as repeated header lines, as the client did.
      headers: headers as Record<string, string>,
      // ws builds the request path through WHATWG URL, which resolves dot segments and re-encodes;
      // the request line must carry the client's path exactly, so it is set back before sending.
      finishRequest: (request: ClientRequest) => {
        request.path = requestPath;
        if (scheme === 'wss') this.handshakeCut = watchHandshake(request);
        request.end();
      },
      // wss://: ws sets SNI to the host and checks the certificate against it, with these CAs.
      ...(scheme === 'wss' && this.context.tls ? { rejectUnauthorized: this.context.tls.rejectUnauthorized, ...(this.context.tls.secureContext ? { secureContext: this.context.tls.secureContext } : {}) } : {}),
      // `ws+unix:` would split the socket path at its first ':' and percent-encode it; dial directly instead.
      ...(target.kind === 'unix' ? { createConnection: () => connect({ path: target.socketPath }) } : {}),
    };
    const address = origin + (requestPath.includes('#') || !requestPath.startsWith('/') ? '/' : requestPath);
    return new (lazyWs().WebSocket)(address, this.offered, options);
  }

  /** Bytes a client sent before its handshake was answered; they are handed to ws with `head`. */
  private readonly onEarlyData = (chunk: Buffer): void => {
    this.earlyData.push(chunk);
    this.earlyBytes += chunk.length;
    if (this.earlyBytes > MAX_EARLY_BYTES) this.socket.destroy();
  };

  private releaseClientSocket(): Buffer {
    this.socket.off('data', this.onEarlyData);
    this.socket.off('end', this.onClientSocketClose);
    this.socket.off('close', this.onClientSocketClose);
    return this.earlyData.length > 0 ? Buffer.concat([this.head, ...this.earlyData]) : this.head;
  }

  /** The client went away before its handshake was answered. */
  private readonly onClientSocketClose = (): void => {
    if (this.phase !== 'connecting' && this.phase !== 'rejecting') return;
    this.phase = 'done';
    this.socket.destroy();
    this.upstream?.terminate();
    this.finish({ outcome: 'aborted', errorCode: ExchangeErrorCode.E_CLIENT_ABORTED, errorMessage: 'the client disconnected before the upgrade was answered' });
  };

  private onUpstreamError(error: Error): void {
    if (this.phase === 'open') {
      if (!this.errors.has('server')) this.errors.set('server', error);
      return;
    }
    if (this.phase !== 'connecting') return;
    const code = (error as NodeJS.ErrnoException).code;
    const display = this.context.target.display;
    const tls = tlsFailureOf(error as NodeJS.ErrnoException, display) ?? (this.handshakeCut() ? handshakeCutFailure(error as NodeJS.ErrnoException, display) : undefined);
    if (tls) {
      this.fail(502, ExchangeErrorCode.E_UPSTREAM_TLS, tls.message, 'error', tlsAnswerFields(tls), tlsFactsOfFailure(error, tls.nodeCode));
    } else if (isParserError(error as NodeJS.ErrnoException)) {
      // The upstream was reached, but what it answered is not HTTP.
      this.fail(502, ExchangeErrorCode.E_UPSTREAM_INVALID_RESPONSE, parserErrorMessage(error as NodeJS.ErrnoException), 'error');
    } else if (code !== undefined && !code.startsWith('WS_ERR')) {
      const message = `cannot reach ${this.context.target.display}: ${code}`;
      this.fail(502, ExchangeErrorCode.E_UPSTREAM_UNREACHABLE, message, 'error');
    } else {
      const message = `the upstream's WebSocket handshake failed: ${error.message}`;
      this.fail(502, ExchangeErrorCode.E_UPSTREAM_HANDSHAKE, message, 'error');
    }
  }

  /** Answers the client's raw socket with a JSON error of the proxy's own and ends the exchange. */
  private fail(status: number, errorCode: ProxyAnswerErrorCode, message: string, outcome: 'error' | 'rejected', extra?: Record<string, unknown>, tls?: TlsFacts): void {
    this.phase = 'done';
    this.exchange.update({ status, tls });
    writeProxyError(this.socket, status, proxyAnswerCode(errorCode), message, { target: this.context.target.display, ...extra });
    this.finish({ outcome, errorCode, errorMessage: message });
  }

  /** The upstream answered the upgrade with something other than 101: mirror it, body and all. */
  private onRejected(request: ClientRequest, response: IncomingMessage): void {
    if (this.phase !== 'connecting') {
      request.destroy();
      return;
    }
    const status = response.statusCode ?? 502;
    // What no client could read as an answer (a status out of range, a control character, an
    // interim status such as a 101 without its Upgrade) is not mirrored: the client gets a 502.
    const problem = statusLineProblem(status, response.statusMessage) ?? headersProblem(response.rawHeaders);
    if (problem !== undefined) {
      request.destroy();
      this.fail(502, ExchangeErrorCode.E_UPSTREAM_INVALID_RESPONSE, invalidStatusLineMessage(problem, status, response.statusMessage), 'error', undefined, tlsFactsOf(response.socket));
      return;
    }
    this.phase = 'rejecting';
    const responseHeaders = headerRecord(this.context.redactor.redact(response.rawHeaders));
    this.exchange.update({ status, responseHeaders, tls: tlsFactsOf(response.socket) });
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('error', () => {});
    response.on('end', () => {
      if (this.phase !== 'rejecting') return;
      this.phase = 'done';
      const body = Buffer.concat(chunks);
      writeRawResponse(this.socket, status, response.statusMessage, rejectionHeaders(response.rawHeaders, body.length), body);
      request.destroy();
      this.recordRejection(status, response, body);
      this.finish({ outcome: 'rejected' });
    });
    response.on('close', () => {
      if (this.phase !== 'rejecting') return;
      // The upstream cut its refusal short: end the client's socket just as abruptly.
      this.phase = 'done';
      this.socket.destroy();
      this.finish({ outcome: 'aborted', errorCode: ExchangeErrorCode.E_UPSTREAM_RESET, errorMessage: 'the upstream closed the connection while sending its refusal of the upgrade' });
    });
  }

  /** The refusal's body is a plain HTTP body (usually a JSON error envelope), judged with its route. */
  private recordRejection(status: number, response: IncomingMessage, body: Buffer): void {
    const method = this.req.method ?? 'GET';
    this.exchange.classify({ transport: 'http', method, path: this.path, contentType: response.headers['content-type'] });
    if (body.length === 0) return;
    const http: HttpContext = {
      method,
      path: this.path,
      query: new URLSearchParams(this.query),
      status,
      requestHeaders: headerRecord(this.req.rawHeaders),
      responseHeaders: headerRecord(response.rawHeaders),
    };
    const json = bodyKindOf(response.headers['content-type']) === 'json' && rawHeader(response.rawHeaders, 'content-encoding') === undefined;
    this.exchange.record('server', body, { carrier: 'body', json, http });
  }

  private onUpstreamOpen(): void {
    const upstream = this.upstream!;
    if (this.phase !== 'connecting') {
      upstream.terminate();
      return;
    }
    // Nothing the upstream sends may be lost or reordered while the client's handshake completes.
    upstream.pause();
    const chosen = upstream.protocol || false;
    const response = this.upgradeResponse;
    const server = new (lazyWs().WebSocketServer)({ noServer: true, clientTracking: false, ...LEG_OPTIONS, handleProtocols: () => chosen });
    server.on('headers', (headers: string[]) => {
      if (!response) return;
      const extra = endToEndHeaders(response.rawHeaders, { drop: SERVER_GENERATED });
      for (let i = 0; i < extra.length; i += 2) headers.push(`${extra[i]}: ${extra[i + 1]}`);
    });
    server.on('wsClientError', () => {});
    // Synchronously from here on ws owns the socket: no 'data' event can fire in between.
    const head = this.releaseClientSocket();
    server.handleUpgrade(this.req, this.socket, head, (client) => {
      this.client = client;
    });
    const client = this.client as WebSocket | undefined;
    if (!client) {
      // ws refused the client's socket (it was no longer readable and writable).
      this.phase = 'done';
      upstream.terminate();
      this.socket.destroy();
      this.finish({ outcome: 'aborted', errorCode: ExchangeErrorCode.E_CLIENT_ABORTED, errorMessage: 'the client disconnected before the upgrade was answered' });
      return;
    }
    this.phase = 'open';
    this.exchange.update({
      status: response?.statusCode ?? 101,
      subprotocol: chosen || undefined,
      responseHeaders: response ? headerRecord(this.context.redactor.redact(response.rawHeaders)) : undefined,
      tls: tlsFactsOf(response?.socket),
    });
    this.exchange.classify({ transport: 'ws', path: this.path, subprotocol: chosen || undefined });
    this.wire(client, upstream, 'client');
    this.wire(upstream, client, 'server');
    client.on('close', (code: number, reason: Buffer) => this.onLegClose('client', code, reason));
    client.on('error', (error: Error) => {
      if (!this.errors.has('client')) this.errors.set('client', error);
    });
    upstream.resume();
  }

  /** Relays everything `from` receives to `to`: forward first, then record. */
  private wire(from: WebSocket, to: WebSocket, sender: Sender): void {
    const drained = () => this.maybeResume(from, to);
    from.on('message', (data: RawData, isBinary: boolean) => {
      const bytes = toBuffer(data);
      // Only a frame that may take `to` past its high-water mark, or one sent while `from` is paused,
      // is written with a callback (to resume `from` once `to` drains): node's socket makes a closure,
      // a copy of its buffered chunks and a tick for every write that has one, and so did every frame.
      // The last frame written while paused always has one, so a paused leg is always resumed.
      const resumeAfter = this.pausedByUs.has(from) || to.bufferedAmount + bytes.length + MAX_FRAME_HEADER > WS_HIGH_WATER;
      to.send(bytes, isBinary ? SEND_BINARY : SEND_TEXT, resumeAfter ? drained : undefined);
      this.applyBackpressure(from, to);
      this.exchange.record(sender, bytes, isBinary ? BINARY_FRAME : TEXT_FRAME);
      this.waitForRecorder(from);
    });
    from.on('ping', (data: Buffer) => {
      if (to.readyState === to.OPEN) to.ping(data, undefined, drained);
      this.exchange.record(sender, data, { carrier: 'frame', channel: 'ping', json: false });
    });
    from.on('pong', (data: Buffer) => {
      if (to.readyState === to.OPEN) to.pong(data, undefined, drained);
      this.exchange.record(sender, data, { carrier: 'frame', channel: 'pong', json: false });
    });
  }

  /** Recording lags far behind (a flood of frames): stop reading this leg until it catches up. */
  private waitForRecorder(from: WebSocket): void {
    const recorder = this.context.recorder;
    if (!recorder.overloaded || from.isPaused || from.readyState !== from.OPEN) return;
    from.pause();
    recorder.onDrain(() => {
      if (from.isPaused && !this.pausedByUs.has(from) && from.readyState === from.OPEN) from.resume();
    });
  }

  private applyBackpressure(from: WebSocket, to: WebSocket): void {
    if (to.bufferedAmount > WS_HIGH_WATER && !from.isPaused && from.readyState === from.OPEN) {
      from.pause();
      this.pausedByUs.add(from);
    }
  }

  private maybeResume(from: WebSocket, to: WebSocket): void {
    if (!this.pausedByUs.has(from)) return;
    if (to.readyState === to.OPEN && to.bufferedAmount >= WS_LOW_WATER) return;
    this.pausedByUs.delete(from);
    from.resume();
  }

  /** One leg finished closing: record its close frame, pass the close on, end the exchange once both are shut. */
  private onLegClose(side: Sender, code: number, reason: Buffer): void {
    if (this.closed.has(side)) return;
    this.closed.add(side);
    const leg = side === 'client' ? this.client! : this.upstream!;
    const other = side === 'client' ? this.upstream! : this.client!;
    // ws reports 1006 when no close frame arrived; anything else is the code the peer sent.
    if (!isAbruptClose(code)) {
      this.exchange.record(side, closeFramePayload(code, reason), { carrier: 'frame', channel: 'close', judge: false, value: { code, reason: reason.toString() } });
    }
    this.pausedByUs.delete(leg);
    // The other leg must keep reading, or it would never see its peer's answer to the close.
    if (this.pausedByUs.delete(other) || other.isPaused) other.resume();
    if (!this.firstClose) {
      this.firstClose = { side, code, reason };
      if (!this.shuttingDown) forwardClose(other, code, reason);
    }
    if (this.closed.size === 2) this.endOpen();
  }

  private endOpen(): void {
    this.phase = 'done';
    const first = this.firstClose!;
    const closeReason = first.reason.length > 0 ? first.reason.toString('utf8') : undefined;
    if (this.cutByShutdown) {
      this.finish({ outcome: 'aborted', errorCode: ExchangeErrorCode.E_PROXY_SHUTDOWN, errorMessage: 'the proxy shut down while the connection was open', closeCode: first.code, closeReason: closeReason ?? WS_SHUTDOWN_REASON });
      return;
    }
    if (!isAbruptClose(first.code)) {
      this.finish({ outcome: 'complete', closeCode: first.code, closeReason });
      return;
    }
    const error = this.errors.get(first.side);
    const detail = error ? `: ${(error as NodeJS.ErrnoException).code ?? error.message}` : '';
    this.finish(
      first.side === 'client'
        ? { outcome: 'aborted', errorCode: ExchangeErrorCode.E_CLIENT_ABORTED, errorMessage: `the client closed the connection without a close frame${detail}`, closeCode: first.code }
        : { outcome: 'aborted', errorCode: ExchangeErrorCode.E_UPSTREAM_RESET, errorMessage: `the upstream closed the connection without a close frame${detail}`, closeCode: first.code },
    );
  }

  private finish(end: Parameters<ExchangeSink['end']>[0]): void {
    this.untrack();
    if (this.shutdownTimer) clearTimeout(this.shutdownTimer);
    this.exchange.end(end);
  }

  /** Proxy shutdown: close both legs with 1001, and cut whatever has not finished closing after a grace period. */
  private shutdown(): void {
    if (this.phase === 'connecting' || this.phase === 'rejecting') {
      this.phase = 'done';
      this.upstream?.terminate();
      this.exchange.update({ status: 503 });
      writeProxyError(this.socket, 503, proxyAnswerCode(ExchangeErrorCode.E_PROXY_SHUTDOWN), 'the proxy is shutting down');
      this.finish({ outcome: 'aborted', errorCode: ExchangeErrorCode.E_PROXY_SHUTDOWN, errorMessage: 'the proxy shut down before the upgrade was answered' });
      return;
    }
    if (this.phase !== 'open' || this.shuttingDown) return;
    this.shuttingDown = true;
    // A close already under way keeps its own code and outcome; only the grace period applies to it.
    this.cutByShutdown = this.firstClose === undefined;
    for (const leg of [this.client!, this.upstream!]) {
      if (leg.readyState === leg.OPEN) leg.close(CLOSE_GOING_AWAY, WS_SHUTDOWN_REASON);
      if (leg.isPaused) leg.resume();
    }
    this.shutdownTimer = cutAfterGrace(() => {
      this.client?.terminate();
      this.upstream?.terminate();
    }, this.context.shutdownGraceMs);
  }
}

/** Why a request cannot be relayed as a WebSocket upgrade (what ws would refuse on the client leg), or undefined. */
function upgradeProblem(req: IncomingMessage, offered: readonly string[]): string | undefined {
  if ((req.method ?? 'GET') !== 'GET') return `a WebSocket upgrade must be a GET, not ${req.method}`;
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return `only WebSocket upgrades are relayed, not '${req.headers.upgrade ?? ''}'`;
  const key = req.headers['sec-websocket-key'];
  if (key === undefined || !WEBSOCKET_KEY.test(key)) return 'missing or invalid Sec-WebSocket-Key header';
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return 'missing or unsupported Sec-WebSocket-Version header';
  const seen = new Set<string>();
  for (const protocol of offered) {
    if (!TOKEN.test(protocol) || seen.has(protocol)) return `invalid or duplicated subprotocol in Sec-WebSocket-Protocol: '${protocol}'`;
    seen.add(protocol);
  }
  return undefined;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
