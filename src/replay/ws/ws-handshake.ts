import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { endToEndHeaders } from '../../net/headers.js';
import { isUpstreamFailureAnswer, PROXY_ANSWER_CODES } from '../../net/proxy-answers.js';
import { tlsAnswerFieldsOfMessage } from '../../net/tls-failure.js';
import { headersProblem } from '../../net/response-head-check.js';
import { rejectionHeaders, writeProxyError, writeRawResponse } from '../../net/ws-rejection.js';
import { echoFieldsOf, learnCorrelation, Substitution } from '../../match/correlation.js';
import { serverMessagesOf, type ScriptExchange } from '../replay-script.js';

/** 101 headers ws writes itself; the recorded ones would be stale or duplicated. */
const SERVER_GENERATED = ['sec-websocket-accept', 'sec-websocket-protocol', 'sec-websocket-extensions', 'content-length'];
const WEBSOCKET_KEY = /^[+/0-9A-Za-z]{22}==$/;


/** Why a request cannot be answered as a WebSocket upgrade (checked before a recorded connection is claimed for it). */
export function upgradeProblem(req: IncomingMessage): string | undefined {
  if ((req.method ?? 'GET') !== 'GET') return `a WebSocket upgrade must be a GET, not ${req.method}`;
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return `only WebSocket upgrades are replayed, not '${req.headers.upgrade ?? ''}'`;
  if (!WEBSOCKET_KEY.test(req.headers['sec-websocket-key'] ?? '')) return 'missing or invalid Sec-WebSocket-Key header';
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return 'missing or unsupported Sec-WebSocket-Version header';
  return undefined;
}

/**
 * Why the recorded answer to an upgrade cannot be sent as it is, or undefined. A recording
 * imported from NDJSON may hold any status or header; written onto the raw socket, a CR LF in a
 * value would split the response.
 */
export function recordedHeadProblem(exchange: ScriptExchange): string | undefined {
  const status = exchange.status;
  if (status !== null && (!Number.isInteger(status) || status < 100 || status > 999)) return `status ${status} is not a valid HTTP status`;
  return headersProblem(flatten(exchange.responseHeaders));
}

/**
 * Completes the handshake as the recorded server did: the recorded subprotocol echoed, its other
 * end-to-end 101 headers added. Frames are handled raw (no compression, no automatic pong, no UTF-8
 * check) so what the replay sends and compares is exactly what was recorded. Undefined when the
 * client's socket was no longer usable.
 */
export function acceptUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, exchange: ScriptExchange, maxPayload: number): WebSocket | undefined {
  const chosen = exchange.subprotocol || false;
  const server = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    autoPong: false,
    skipUTF8Validation: true,
    // A longer client frame closes the connection with 1009 before it is held whole.
    maxPayload,
    handleProtocols: () => chosen,
  });
  server.on('headers', (headers: string[]) => {
    const extra = endToEndHeaders(flatten(exchange.responseHeaders), { drop: SERVER_GENERATED });
    for (let i = 0; i < extra.length; i += 2) headers.push(`${extra[i]}: ${extra[i + 1]}`);
  });
  let client: WebSocket | undefined;
  // Without verifyClient ws completes the upgrade synchronously.
  server.handleUpgrade(req, socket, head, (ws) => {
    client = ws;
  });
  return client;
}

/**
 * Answers an upgrade the way the recording refused it: the upstream's status, headers and body as
 * the recorder passed them on (ws-rejection.ts), echoed request ids substituted; or the recorder's
 * own JSON error when the upstream never answered.
 */
export function replayRefusal(req: IncomingMessage, socket: Duplex, exchange: ScriptExchange, target: string | undefined): void {
  if (exchange.status === null) {
    // Nothing was answered when it was recorded (the client left first): answer nothing now.
    socket.destroy();
    return;
  }
  if (exchange.responseHeaders === null) {
    const code = PROXY_ANSWER_CODES[exchange.errorCode ?? ''] ?? 'replay_recorded_error';
    const extra = isUpstreamFailureAnswer(exchange.errorCode) ? { target, ...(exchange.errorCode === 'E_UPSTREAM_TLS' ? tlsAnswerFieldsOfMessage(exchange.errorMessage) : {}) } : {};
    writeProxyError(socket, exchange.status, code, exchange.errorMessage ?? `the recorded upgrade was answered ${exchange.status}`, extra);
    return;
  }
  const substitution = new Substitution(learnCorrelation(echoFieldsOf(exchange.protocol), { headers: exchange.requestHeaders }, { headers: req.headers }));
  const body = Buffer.concat(serverMessagesOf(exchange).map((m) => substitution.apply(m.raw)));
  const headers = flatten(exchange.responseHeaders);
  for (let i = 1; i < headers.length; i += 2) headers[i] = substitution.applyText(headers[i]);
  writeRawResponse(socket, exchange.status, undefined, rejectionHeaders(headers, body.length), body);
}

/** Stored headers (name → value or values) back to raw name/value pairs, in stored order. */
function flatten(headers: ScriptExchange['responseHeaders']): string[] {
  const raw: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) raw.push(name, v);
  }
  return raw;
}
