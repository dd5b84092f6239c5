import { replayHintsOf } from '../../protocols/catalog.js';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import { ExchangeErrorCode } from '../../core/errors.js';
import { proxyAnswerCode } from '../../net/proxy-answers.js';
import { CLOSE_GOING_AWAY } from '../../net/ws-close-codes.js';
import { offeredProtocols } from '../../net/ws-limits.js';
import { writeProxyError, writeRawResponse } from '../../net/ws-rejection.js';
import { httpMissAnswer } from '../http/http-miss-answer.js';
import { reportedRequest } from '../miss-report.js';
import { recordingCut, reportMiss, type ReplayContext, type ReplayMiss } from '../replay-context.js';
import { wsExchanges, type ScriptExchange } from '../replay-script.js';
import { WsConversation, type FrameMissAnswerer } from './ws-conversation.js';
import { frameMissMessage, type FrameMiss } from './ws-miss.js';
import { hostInstanceIdOf, messageMissAnswer, recordedMethodsOf } from '../line/stdio-miss.js';
import { parseJsonBody } from '../http/request-body.js';
import { describeFrame, FrameCorrelator } from './ws-frames.js';
import { acceptUpgrade, recordedHeadProblem, replayRefusal, upgradeProblem } from './ws-handshake.js';
import { WsUpgradeMatcher, type LiveUpgrade } from '../match/ws-matcher.js';
import { planConnection } from './ws-plan.js';
import type { ChosenFaults } from '../fault/fault-plan.js';
import { FAULT_INJECTED, faultStatusMessage, faultStatusServed, faultsField } from '../fault/fault-notice.js';

const SHUTDOWN_REASON = 'replay shutting down';

/** One matcher per running replay: the context is the replay's identity. */
const matchers = new WeakMap<ReplayContext, WsUpgradeMatcher>();

/**
 * Answers a WebSocket upgrade from the recording (the WebSocket half of `proxy replay`):
 * - a recorded connection with the same path, query and a fitting subprotocol is claimed (in
 *   recorded order) and played: accepted ones turn by turn (ws-conversation.ts), refused ones as the
 *   same refusal;
 * - an upgrade that matches none is a miss: answered as its protocol answers one (http-miss-answer.ts), or, with
 *   `--on-miss passthrough`, relayed to the real upstream and recorded.
 * Frame-level misses on an accepted connection get the protocol's miss answer and the conversation
 * goes on, or, when the protocol has none for that frame, close it with 1008; they are never passed
 * through (the upstream would lack the conversation so far).
 *
 * The `--fault` plan is asked once per upgrade: a latency holds the answer (the 101 or a refusal);
 * a status refuses the upgrade without using up the recorded connection; gaps, closes and cuts act
 * on the conversation (ws-conversation.ts).
 */
export function replayUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, context: ReplayContext): void {
  // The http server hands the socket over without an error listener; a reset must not crash the replay.
  socket.on('error', () => {});
  try {
    route(req, socket, head, context);
  } catch (error) {
    failed(socket, error);
  }
}

function failed(socket: Duplex, error: unknown): void {
  if (socket.writable) writeProxyError(socket, 500, 'replay_failed', String(error));
  else socket.destroy();
}

function route(req: IncomingMessage, socket: Duplex, head: Buffer, context: ReplayContext): void {
  const problem = upgradeProblem(req);
  if (problem) {
    writeProxyError(socket, 400, proxyAnswerCode(ExchangeErrorCode.E_INVALID_UPGRADE), problem);
    return;
  }
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const query = queryAt < 0 ? '' : url.slice(queryAt + 1);
  const live: LiveUpgrade = { path, query, offered: offeredProtocols(req.headers['sec-websocket-protocol']) };
  const faults = context.faults.choose({ transport: 'ws', method: 'GET', path });
  if (faults.latencyMs <= 0) {
    answer(req, socket, head, context, live, faults);
    return;
  }
  holdHandshake(socket, context, faults.latencyMs).then(
    (go) => {
      if (go) answer(req, socket, head, context, live, faults);
    },
    (error: unknown) => failed(socket, error),
  );
}

/**
 * Waits an injected latency before the upgrade is answered. False when the client left meanwhile,
 * or the replay shut down (the socket is then destroyed: no answer was begun).
 */
async function holdHandshake(socket: Duplex, context: ReplayContext, ms: number): Promise<boolean> {
  const stop = new AbortController();
  const gone = () => stop.abort();
  socket.once('close', gone);
  const untrack = context.track(() => {
    stop.abort();
    socket.destroy();
  });
  try {
    await context.clock.sleep(ms, stop.signal);
  } finally {
    untrack();
    socket.off('close', gone);
  }
  return !stop.signal.aborted && !socket.destroyed;
}

/** Answers an upgrade once any injected latency is over: an injected status, a recorded connection, or a miss. */
function answer(req: IncomingMessage, socket: Duplex, head: Buffer, context: ReplayContext, live: LiveUpgrade, faults: ChosenFaults): void {
  try {
    if (faults.status !== undefined) refuseWithFault(socket, context, live, faults, faults.status);
    else serve(req, socket, head, context, live, faults);
  } catch (error) {
    failed(socket, error);
  }
}

/**
 * An injected status: the upgrade is refused with a JSON error naming the spec, as a miss is
 * refused. The recorded connection it would have got is not used up: the next upgrade gets it.
 * The served line names that connection (null: the upgrade would have missed).
 */
function refuseWithFault(socket: Duplex, context: ReplayContext, live: LiveUpgrade, faults: ChosenFaults, status: number): void {
  const would = matcherFor(context).match(live, { claim: false });
  const spec = faults.statusSpec ?? faults.specs[0];
  writeProxyError(socket, status, FAULT_INJECTED, faultStatusMessage(status, spec), { fault: spec });
  // A recorded connection is always a ws exchange: the transport is the same either way.
  context.log.served(faultStatusServed(would.kind === 'hit' ? would.exchange : undefined, { transport: 'ws', method: 'GET', path: live.path }, status, faults));
}

function serve(req: IncomingMessage, socket: Duplex, head: Buffer, context: ReplayContext, live: LiveUpgrade, faults: ChosenFaults): void {
  const { path, query } = live;
  const result = matcherFor(context).match(live);
  if (result.kind === 'miss') {
    const miss: ReplayMiss = { transport: 'ws', ...result.miss, action: context.onMiss };
    reportMiss(context, miss);
    if (context.passthrough) context.passthrough.forwardUpgrade(req, socket, head);
    else {
      const answer = httpMissAnswer(context, { method: req.method ?? 'GET', path, headers: req.headers }, miss);
      writeRawResponse(socket, answer.status, undefined, [...Object.entries(answer.headers).flat(), 'connection', 'close'], answer.body);
    }
    return;
  }
  const { exchange, reused } = result;
  context.ledger.markUsed(exchange.id);
  const served = { exchangeId: exchange.id, transport: exchange.transport, method: 'GET', path, status: exchange.status ?? undefined, reused, ...recordingCut(exchange.errorCode), ...faultsField(faults) };
  const unsendable = recordedHeadProblem(exchange);
  if (unsendable !== undefined) {
    writeProxyError(socket, 500, 'replay_failed', `exchange ${exchange.id} cannot be replayed: its recorded answer is not valid HTTP: ${unsendable}`);
    return;
  }
  if (exchange.status !== 101) {
    replayRefusal(req, socket, exchange, context.script.target);
    context.log.served({ ...served, messages: exchange.messages.length, substitutions: 0, redacted: result.redacted });
    return;
  }
  const ws = acceptUpgrade(req, socket, head, exchange, context.maxRequestBytes);
  if (!ws) {
    socket.destroy();
    return;
  }
  let tooLarge = false;
  // ws refuses a frame over maxPayload itself: it closes with 1009 and reports it here.
  ws.on('error', (error: Error & { code?: string }) => {
    if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') tooLarge = true;
  });
  const reportAnswered = (miss: FrameMiss) => reportMiss(context, frameMiss(exchange, path, query, miss));
  converse(ws, exchange, context, faults, reportAnswered, (played) => {
    if (played.miss) reportMiss(context, frameMiss(exchange, path, query, played.miss));
    if (tooLarge) {
      reportMiss(context, { transport: 'ws', reason: 'too-large', request: reportedRequest({ method: 'FRAME', path, query }), differences: [], limit: context.maxRequestBytes, action: 'error' });
    }
    context.log.served({ ...served, messages: played.sent, substitutions: played.substitutions, redacted: result.redacted + played.redacted });
  }).catch(() => ws.terminate());
}

interface Played {
  sent: number;
  substitutions: number;
  redacted: number;
  miss?: FrameMiss;
}

/**
 * Plays an accepted connection until it ends; a replay shutdown closes it with 1001. Misses the
 * protocol answers are reported as they happen; `ended` is told how it went before the replay stops
 * tracking the connection, so a shutdown does not finish before the connection is logged.
 */
async function converse(ws: WebSocket, exchange: ScriptExchange, context: ReplayContext, faults: ChosenFaults, reportAnswered: (miss: FrameMiss) => void, ended: (played: Played) => void): Promise<void> {
  ws.on('error', () => {});
  const untrack = context.track(() => {
    if (ws.readyState === WebSocket.OPEN) ws.close(CLOSE_GOING_AWAY, SHUTDOWN_REASON);
  });
  const correlator = new FrameCorrelator(exchange.protocol, context.ignore);
  const conversation = new WsConversation(ws, planConnection(exchange), correlator, {
    timing: context.timing,
    clock: context.clock,
    anchorMs: exchange.startedMs,
    answerMiss: frameMissAnswerer(exchange, reportAnswered),
    faults,
    peerRequest: exchange.protocol && replayHintsOf(exchange.protocol)?.peerRequest,
  });
  try {
    const result = await conversation.run();
    ended({ ...result, substitutions: correlator.substitutions, redacted: correlator.redacted });
  } finally {
    untrack();
  }
}

/**
 * The protocol's answer to a text frame that matched nothing (a JSON-RPC error with the request's id,
 * a failed Pi response frame …), as its module declares it; none for binary frames or protocols
 * without one. An answered miss is reported at once (`report`), as the conversation goes on.
 */
function frameMissAnswerer(exchange: ScriptExchange, report: (miss: FrameMiss) => void): FrameMissAnswerer {
  const recordedMethods = recordedMethodsOf(exchange.messages);
  const hostInstanceId = hostInstanceIdOf(exchange.messages);
  return (miss) => {
    if (miss.frame.channel !== 'text') return undefined;
    const value = parseJsonBody(miss.frame.data);
    const answer = messageMissAnswer(exchange.protocol, value, { message: frameMissMessage(miss), recordedMethods, ...(hostInstanceId ? { hostInstanceId } : {}) });
    if (answer === undefined) return undefined;
    report(miss);
    return JSON.stringify(answer);
  };
}

function frameMiss(exchange: ScriptExchange, path: string, query: string, miss: FrameMiss): ReplayMiss {
  return {
    transport: 'ws',
    reason: 'no-match',
    request: reportedRequest({ method: 'FRAME', path, query, ...describeFrame(miss.frame) }),
    nearest: { exchangeId: exchange.id, method: exchange.method, path: exchange.path },
    differences: miss.differences,
    // A connection cannot be handed to the upstream mid-conversation: a frame miss is answered or closes it.
    action: 'error',
  };
}

function matcherFor(context: ReplayContext): WsUpgradeMatcher {
  let matcher = matchers.get(context);
  if (!matcher) matchers.set(context, (matcher = new WsUpgradeMatcher(wsExchanges(context.script), context.reuse)));
  return matcher;
}
