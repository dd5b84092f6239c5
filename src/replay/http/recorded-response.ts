import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROXY_ANSWER_CODES, sendJson } from '../../net/proxy-answers.js';
import { tlsAnswerFieldsOfMessage } from '../../net/tls-failure.js';
import { echoFieldsOf, learnCorrelation, type Substitution } from '../../match/correlation.js';
import type { CorrelationPair } from '../../match/token-substitution.js';
import { playMessages, type MessageGate } from '../message-player.js';
import type { ReplayContext } from '../replay-context.js';
import { requestBodyOf, serverMessagesOf, type ScriptExchange } from '../replay-script.js';
import { parseJsonBody } from './request-body.js';
import { hadContentLength, hasHeader, recordedResponseHeaders } from './response-head.js';
import { PlaybackClock } from '../timing.js';
import { ExchangeErrorCode } from '../../core/errors.js';
import { endedBy } from '../../core/exchange-ending.js';
import type { ChosenFaults } from '../fault/fault-plan.js';
import { FAULT_INJECTED, faultErrorMessage } from '../fault/fault-notice.js';
import { replayHintsOf } from '../../protocols/catalog.js';
import type { InjectedFault } from '../../protocols/fault-answers.js';

/**
 * How an exchange of an HTTP session (http/live-sessions.ts) is played: with the ids learnt in the
 * whole session, each message held until the client messages the recording received before it have
 * arrived, a stream the recording left open held open until the session ends, and a resumed stream
 * from the event after the client's Last-Event-ID.
 */
export interface SessionPlayback {
  substitution: Substitution;
  gate: MessageGate;
  /** Aborts when the session ends: what it holds open ends then. */
  ended: AbortSignal;
  holdsOpen: boolean;
  /** The first server message to play (a resumption plays the rest of a stream); 0 by default. */
  from?: number;
}

/** What correlation learns from a live request matched to a recorded exchange: the recorded ids paired with the live ones. */
export function correlationPairs(exchange: ScriptExchange, live: { req: IncomingMessage; body: Buffer }): CorrelationPair[] {
  const recordedBody = requestBodyOf(exchange);
  return learnCorrelation(
    echoFieldsOf(exchange.protocol),
    { body: recordedBody?.json ?? (recordedBody ? parseJsonBody(recordedBody.raw) : undefined), headers: exchange.requestHeaders },
    { body: parseJsonBody(live.body), headers: live.req.headers },
  );
}

/**
 * Plays one recorded HTTP exchange to a live client: recorded status and headers, then the body
 * (byte for byte) or the stream (frame by frame, paced), with live ids substituted for echoed
 * ones. Ends the way the recording ended: normally, or abruptly after an upstream reset.
 * `faults` may hold the answer back (latency), space a stream out (gap) or cut it short (cut).
 * Resolves to the number of messages sent.
 */
export async function playRecordedResponse(
  exchange: ScriptExchange,
  live: { req: IncomingMessage; body: Buffer; res: ServerResponse },
  context: ReplayContext,
  faults: ChosenFaults,
  session?: SessionPlayback,
): Promise<{ messages: number; substitutions: number }> {
  const { res } = live;
  const substitution = session?.substitution ?? context.correlations.substitutionFor(correlationPairs(exchange, live));
  // Counted once played: the ids this exchange's answer really carried, not every pair learnt so far.
  const usedBefore = substitution.used;
  const done = (messages: number) => ({ messages, substitutions: substitution.used - usedBefore });

  if (exchange.status === null) {
    // Nothing was answered when it was recorded (the client left first): answer nothing now.
    res.destroy();
    return done(0);
  }
  const stopped = new AbortController();
  // Shutdown: a stream ends at once; a plain answer still waiting for its recorded moment (or a
  // latency fault) is sent now, on a connection that closes after it.
  const untrack = context.track(() => {
    if (!res.headersSent) res.shouldKeepAlive = false;
    stopped.abort();
  });
  res.once('close', () => stopped.abort());
  try {
    // A plain answer has no events to hold the stall between: its head is its first.
    const holdMs = faults.latencyMs + (exchange.transport === 'http' ? (faults.stall?.ms ?? 0) : 0);
    if (holdMs > 0) await context.clock.sleep(holdMs, stopped.signal);
    return done(await playAnswer(exchange, exchange.status, res, context, faults, substitution, stopped.signal, session));
  } finally {
    untrack();
  }
}

/** The recorded answer itself, once any latency fault has passed: the messages sent. */
async function playAnswer(
  exchange: ScriptExchange,
  status: number,
  res: ServerResponse,
  context: ReplayContext,
  faults: ChosenFaults,
  substitution: Substitution,
  signal: AbortSignal,
  session: SessionPlayback | undefined,
): Promise<number> {
  const cut = faults.cut;
  if (cut?.how === 'reset' && cut.after === 0 && exchange.transport === 'http') {
    // Not a byte of a plain answer: the client's connection is reset before the status line.
    res.destroy();
    return 0;
  }
  // The recorder answered in the upstream's place (unreachable, an invalid answer): its body was
  // never recorded, so the same JSON error is sent again.
  const proxyAnswer = exchange.outcome === 'error' && exchange.responseHeaders === null ? PROXY_ANSWER_CODES[exchange.errorCode ?? ''] : undefined;
  if (proxyAnswer !== undefined) {
    const message = exchange.errorMessage ?? `recorded as ${exchange.errorCode}`;
    const tls = exchange.errorCode === 'E_UPSTREAM_TLS' ? tlsAnswerFieldsOfMessage(exchange.errorMessage) : {};
    sendJson(res, status, { error: { code: proxyAnswer, message, target: context.script.target, ...tls } });
    return 0;
  }

  // Paced from the moment the recorded request had fully arrived.
  const all = serverMessagesOf(exchange);
  const from = session?.from ?? 0;
  // A resumed stream is paced from the event the client had last.
  const anchorMs = from > 0 ? all[from - 1].tOffsetMs : exchange.messages.reduce((latest, m) => (m.sender === 'client' ? Math.max(latest, m.tOffsetMs) : latest), exchange.startedMs);
  const messages = from > 0 ? all.slice(from) : all;
  const headers = recordedResponseHeaders(exchange, substitution);
  if (exchange.transport === 'http') {
    const pace = new PlaybackClock(context.timing, anchorMs, context.clock);
    const last = messages.at(-1);
    // A session's JSON answer may have waited for the client's answer to a server request.
    if (session && last && !session.gate.ready(last.tOffsetMs)) pace.reanchor(await session.gate.wait(last.tOffsetMs, AbortSignal.any([signal, session.ended])));
    await pace.wait(last?.tOffsetMs ?? anchorMs, signal);
    // A cut plain answer keeps its first `after` messages (its body is usually one): a clean cut
    // sends that as the whole body, a reset sends it under the full length and then drops the connection.
    const kept = cut ? messages.slice(0, cut.after) : messages;
    const body = Buffer.concat(kept.map((m) => substitution.apply(m.raw)));
    const full = kept === messages || cut?.how !== 'reset' ? body : Buffer.concat(messages.map((m) => substitution.apply(m.raw)));
    if (hadContentLength(exchange) || full.length === 0 || cut) headers.push('Content-Length', String(full.length));
    writeRecordedHead(res, exchange.id, status, headers);
    if (cut?.how === 'reset') {
      res.write(body, () => res.destroy());
    } else res.end(body);
    return kept.length;
  }
  // An event stream must reach the client frame by frame: no proxy buffering, head first.
  if (!hasHeader(headers, 'x-accel-buffering')) headers.push('X-Accel-Buffering', 'no');
  writeRecordedHead(res, exchange.id, status, headers);
  res.flushHeaders();
  const error = faults.error;
  const ending = cut ?? error;
  const played = ending ? messages.slice(0, ending.after) : messages;
  const playing = session ? AbortSignal.any([signal, session.ended]) : signal;
  const sent = await playMessages(res, played, { timing: context.timing, clock: context.clock, anchorMs, substitution, signal: playing, gapMs: faults.gapMs, stall: faults.stall, gate: session?.gate });
  // A binary stream (protobuf frames) has no text event to carry it: it ends there, as a clean cut would.
  if (error && exchange.transport === 'sse' && sent === played.length && !playing.aborted && !res.destroyed) {
    // The server fails mid-answer: its error event, then the end of the stream (no `[DONE]`, no last event).
    res.end(streamErrorEvent(exchange, error, played.at(-1)?.json));
    return sent;
  }
  const recordedReset = exchange.outcome === 'aborted' && exchange.errorCode === ExchangeErrorCode.E_UPSTREAM_RESET && played === messages;
  // A session's stream the recording left open (the client or the recorder cut it, not the server)
  // stays open, as the server kept it: its client would otherwise reconnect and ask again. One the
  // server ended (on DELETE, say) ends once what the client sent before that has arrived.
  if ((session?.holdsOpen ?? longLivedLeftOpen(exchange)) && !cut && !playing.aborted) await untilAborted(playing);
  else if (session && !cut && exchange.endedMs !== null && !playing.aborted && !session.gate.ready(exchange.endedMs)) await session.gate.wait(exchange.endedMs, playing);
  // A reset (recorded, or a cut fault) drops the connection without the stream's last chunk, so the
  // client sees the stream break off; unless the replay is shutting down, which ends streams cleanly.
  if ((recordedReset || cut?.how === 'reset') && !signal.aborted) res.destroy();
  else res.end();
  return sent;
}

/** The error event of an `error` fault, in the stream shape of the exchange's protocol, else a generic `error` event. */
function streamErrorEvent(exchange: ScriptExchange, error: NonNullable<ChosenFaults['error']>, last: unknown): string {
  const fault: InjectedFault = { status: error.status, spec: error.spec, message: faultErrorMessage(error.status, error.spec) };
  const protocolEvent = exchange.protocol === undefined ? undefined : replayHintsOf(exchange.protocol)?.faultAnswers?.streamError;
  if (protocolEvent) return protocolEvent(fault, { path: exchange.path ?? '/', last });
  return `event: error\ndata: ${JSON.stringify({ error: { code: FAULT_INJECTED, status: fault.status, message: fault.message, fault: fault.spec } })}\n\n`;
}

/** A recording imported from NDJSON may hold a status or header Node will not send: say which exchange, and why. */
function writeRecordedHead(res: ServerResponse, exchangeId: number, status: number, headers: string[]): void {
  try {
    res.writeHead(status, headers);
  } catch (error) {
    throw new Error(`exchange ${exchangeId} cannot be replayed: its recorded answer is not valid HTTP: ${(error as Error).message}`, { cause: error });
  }
}

/** A stream its protocol keeps open until the client closes it (MCP's listen), which the recording left open: not ended by the server. */
function longLivedLeftOpen(exchange: ScriptExchange): boolean {
  const by = endedBy(exchange.errorCode);
  if ((by !== 'client' && by !== 'shutdown') || exchange.protocol === undefined) return false;
  const longLived = replayHintsOf(exchange.protocol)?.longLived;
  const body = requestBodyOf(exchange);
  return longLived !== undefined && body?.json !== undefined && longLived(body.json);
}

/** Resolves when `signal` aborts. */
function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
