import type { IncomingMessage } from 'node:http';
import type { ConnectAuthority } from '../../net/forward-request.js';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ExchangeErrorCode } from '../../core/errors.js';
import { proxyAnswerCode } from '../../net/proxy-answers.js';
import { hostConnectReason } from '../../net/unreachable-reason.js';
import { writeProxyError } from '../../net/ws-rejection.js';
import type { HeaderRedactor } from '../../judge/header-redaction.js';
import type { ExchangeSink, RecordingSink } from '../pipeline/recording-sink.js';

export type { ConnectAuthority };

export interface TunnelContext {
  recorder: RecordingSink;
  redactor: HeaderRedactor;
  track(closer: () => void): () => void;
}

/** What the first bytes through an open CONNECT showed: a TLS handshake, plain HTTP, or a host that speaks first. */
export type TunnelOpening = 'tls' | 'http' | 'server-first';

/** What the proxy does with an open CONNECT once it knows how it opens: 'tunnel' passes the bytes through unread. */
export type TunnelChoice = (opening: TunnelOpening) => 'tunnel' | ((client: Duplex) => void);

type Ending = Parameters<ExchangeSink['end']>[0];

/** The first byte of a TLS record carrying a handshake (RFC 8446 §5.1): a ClientHello begins so. */
const TLS_HANDSHAKE = 0x16;

/**
 * Answers one CONNECT. The host is dialled first: one that cannot be reached gets the client a 502
 * whose JSON error says why (`no such host (ENOTFOUND)`), recorded as a `tunnel` exchange ending
 * E_UPSTREAM_UNREACHABLE. Once it has accepted, the client gets its 200, and `choose` decides from
 * the first bytes: 'tunnel' passes them through untouched and unread, both ways, recorded as one
 * `tunnel` exchange (the bytes each side sent, when it ended and how); anything else takes the
 * client's connection over (plain HTTP or TLS to be read as requests), the dialled one closed unused.
 * `choose` undefined (a --tunnel host) tunnels without waiting for a first byte. The exchange starts
 * at `startedAt` (default: now), when the CONNECT arrived: its duration includes the dial.
 */
export function answerConnect(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  authority: ConnectAuthority,
  context: TunnelContext,
  choose: TunnelChoice | undefined,
  startedAt = context.recorder.now(),
): void {
  let answered = false;
  let gone = false;
  // Half-open, as the client's side is: one side's end is passed on while the other may still send.
  const upstream: Socket = connect({ host: authority.host, port: authority.port, allowHalfOpen: true });
  const untrack = context.track(() => {
    gone = true;
    upstream.destroy();
    if (answered) client.destroy();
    else writeProxyError(client, 503, proxyAnswerCode(ExchangeErrorCode.E_PROXY_SHUTDOWN), 'the proxy is shutting down');
  });
  const clientGone = () => {
    if (answered) return;
    gone = true;
    upstream.destroy();
    untrack();
  };
  client.once('close', clientGone);
  upstream.once('error', (error: NodeJS.ErrnoException) => {
    if (answered || gone) return;
    answered = true;
    client.off('close', clientGone);
    untrack();
    const exchange = openTunnelExchange(req, authority, context, startedAt);
    const message = `cannot reach ${authority.text}: ${hostConnectReason(error)}`;
    exchange.update({ status: 502 });
    writeProxyError(client, 502, proxyAnswerCode(ExchangeErrorCode.E_UPSTREAM_UNREACHABLE), message, { target: authority.text });
    exchange.end({ outcome: 'error', errorCode: ExchangeErrorCode.E_UPSTREAM_UNREACHABLE, errorMessage: message, tunnel: { clientBytes: 0, serverBytes: 0 } });
  });
  upstream.once('connect', () => {
    if (gone) return;
    answered = true;
    client.off('close', clientGone);
    untrack();
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const decide = (opening: TunnelOpening, first: Buffer) => {
      const choice = choose?.(opening) ?? 'tunnel';
      if (choice === 'tunnel') return passThrough(openTunnelExchange(req, authority, context, startedAt), client, upstream, first, context);
      upstream.destroy();
      if (first.length > 0) client.unshift(first);
      choice(client);
    };
    if (!choose) return decide('tls', head);
    // Nothing is recorded until the first bytes show what the connection is; shutdown just cuts it.
    const untrackOpening = context.track(() => {
      client.destroy();
      upstream.destroy();
    });
    firstBytes(client, upstream, head, (opening, first) => {
      untrackOpening();
      if (opening === 'gone') upstream.destroy();
      else decide(opening, first);
    });
  });
}

/** Waits for the client's first bytes (or the host's, for a protocol where it speaks first), without consuming them. */
function firstBytes(client: Duplex, upstream: Socket, head: Buffer, then: (opening: TunnelOpening | 'gone', first: Buffer) => void): void {
  const openingOf = (bytes: Buffer): TunnelOpening => (bytes[0] === TLS_HANDSHAKE ? 'tls' : 'http');
  if (head.length > 0) return then(openingOf(head), head);
  const onClient = (chunk: Buffer) => {
    settle();
    client.pause();
    then(openingOf(chunk), chunk);
  };
  const onServer = () => {
    settle();
    // Nothing was read from the host: its bytes wait in its socket for the tunnel to read them.
    then('server-first', Buffer.alloc(0));
  };
  const onClose = () => {
    settle();
    then('gone', Buffer.alloc(0));
  };
  const settle = () => {
    client.off('data', onClient);
    client.off('close', onClose);
    upstream.off('readable', onServer);
  };
  client.on('data', onClient);
  client.once('close', onClose);
  upstream.once('readable', onServer);
  client.resume();
}

/** The `tunnel` exchange of one CONNECT, started when the CONNECT arrived (`startedAt`, recording-clock ms). */
export function openTunnelExchange(req: IncomingMessage, authority: ConnectAuthority, context: Pick<TunnelContext, 'recorder' | 'redactor'>, startedAt: number): ExchangeSink {
  return context.recorder.openExchange(
    {
      transport: 'tunnel',
      method: 'CONNECT',
      path: authority.text,
      url: authority.text,
      requestHeaders: context.redactor.recordPairs(req.rawHeaders),
    },
    startedAt,
  );
}

/**
 * Passes the bytes through untouched and unread, both ways, counting them, and records the tunnel as
 * one exchange when both sides have closed: complete, or who failed first.
 */
function passThrough(exchange: ExchangeSink, client: Duplex, upstream: Socket, first: Buffer, context: TunnelContext): void {
  exchange.update({ status: 200 });
  let clientBytes = 0;
  let serverBytes = 0;
  let done = false;
  let ending: Ending | undefined;
  const closed = new Set<Duplex>();
  const fail = (end: Ending) => {
    ending ??= end;
    client.destroy();
    upstream.destroy();
  };
  const finish = () => {
    if (done) return;
    done = true;
    untrack();
    exchange.end({ ...(ending ?? { outcome: 'complete' }), tunnel: { clientBytes, serverBytes } });
  };
  const untrack = context.track(() => {
    if (!done) fail({ outcome: 'aborted', errorCode: ExchangeErrorCode.E_PROXY_SHUTDOWN, errorMessage: 'the proxy shut down while the tunnel was open' });
  });
  const onClosed = (side: Duplex) => {
    closed.add(side);
    if (closed.size === 2) finish();
  };
  client.on('error', (error: NodeJS.ErrnoException) => fail({ outcome: 'aborted', errorCode: ExchangeErrorCode.E_CLIENT_ABORTED, errorMessage: `the client's connection failed: ${error.code ?? error.message}` }));
  upstream.on('error', (error: NodeJS.ErrnoException) => fail({ outcome: 'aborted', errorCode: ExchangeErrorCode.E_UPSTREAM_RESET, errorMessage: `the host's connection failed: ${error.code ?? error.message}` }));
  if (client.destroyed) onClosed(client);
  else client.once('close', () => onClosed(client));
  if (upstream.destroyed) onClosed(upstream);
  else upstream.once('close', () => onClosed(upstream));
  if (first.length > 0) {
    clientBytes += first.length;
    upstream.write(first);
  }
  client.on('data', (chunk: Buffer) => {
    clientBytes += chunk.length;
  });
  upstream.on('data', (chunk: Buffer) => {
    serverBytes += chunk.length;
  });
  // pipe() carries back-pressure and each side's end (a half-close) on to the other.
  client.pipe(upstream);
  upstream.pipe(client);
  client.resume();
}
