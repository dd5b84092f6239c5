import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROXY_ANSWER_CODES, sendJson } from '../../net/proxy-answers.js';
import { tlsAnswerFieldsOfMessage } from '../../net/tls-failure.js';
import { echoFieldsOf, learnCorrelation } from '../match/correlation.js';
import { playMessages } from '../message-player.js';
import type { ReplayContext } from '../replay-context.js';
import { requestBodyOf, serverMessagesOf, type ScriptExchange } from '../replay-script.js';
import { parseJsonBody } from './request-body.js';
import { hadContentLength, hasHeader, recordedResponseHeaders } from './response-head.js';
import { PlaybackClock } from '../timing.js';
import { ExchangeErrorCode } from '../../core/errors.js';

/**
 * Plays one recorded HTTP exchange to a live client: recorded status and headers, then the body
 * (byte for byte) or the stream (frame by frame, paced), with live ids substituted for echoed
 * ones. Ends the way the recording ended: normally, or abruptly after an upstream reset.
 * Resolves to the number of messages sent.
 */
export async function playRecordedResponse(
  exchange: ScriptExchange,
  live: { req: IncomingMessage; body: Buffer; res: ServerResponse },
  context: ReplayContext,
): Promise<{ messages: number; substitutions: number }> {
  const { res } = live;
  const recordedBody = requestBodyOf(exchange);
  const substitution = context.correlations.substitutionFor(
    learnCorrelation(
      echoFieldsOf(exchange.protocol),
      { body: recordedBody?.json ?? (recordedBody ? parseJsonBody(recordedBody.raw) : undefined), headers: exchange.requestHeaders },
      { body: parseJsonBody(live.body), headers: live.req.headers },
    ),
  );
  // Counted once played: the ids this exchange's answer really carried, not every pair learnt so far.
  const done = (messages: number) => ({ messages, substitutions: substitution.used });

  if (exchange.status === null) {
    // Nothing was answered when it was recorded (the client left first): answer nothing now.
    res.destroy();
    return done(0);
  }
  // The recorder answered in the upstream's place (unreachable, an invalid answer): its body was
  // never recorded, so the same JSON error is sent again.
  const proxyAnswer = exchange.outcome === 'error' && exchange.responseHeaders === null ? PROXY_ANSWER_CODES[exchange.errorCode ?? ''] : undefined;
  if (proxyAnswer !== undefined) {
    const message = exchange.errorMessage ?? `recorded as ${exchange.errorCode}`;
    const tls = exchange.errorCode === 'E_UPSTREAM_TLS' ? tlsAnswerFieldsOfMessage(exchange.errorMessage) : {};
    sendJson(res, exchange.status, { error: { code: proxyAnswer, message, target: context.script.target, ...tls } });
    return done(0);
  }

  // Paced from the moment the recorded request had fully arrived.
  const anchorMs = exchange.messages.reduce((latest, m) => (m.sender === 'client' ? Math.max(latest, m.tOffsetMs) : latest), exchange.startedMs);
  const messages = serverMessagesOf(exchange);
  const headers = recordedResponseHeaders(exchange, substitution);
  const stopped = new AbortController();
  // Shutdown: a stream ends at once; a plain answer still waiting for its recorded moment is sent
  // now, on a connection that closes after it.
  const untrack = context.track(() => {
    if (!res.headersSent) res.shouldKeepAlive = false;
    stopped.abort();
  });
  res.once('close', () => stopped.abort());
  try {
    if (exchange.transport === 'http') {
      await new PlaybackClock(context.timing, anchorMs, context.clock).wait(messages.at(-1)?.tOffsetMs ?? anchorMs, stopped.signal);
      const body = Buffer.concat(messages.map((m) => substitution.apply(m.raw)));
      if (hadContentLength(exchange) || body.length === 0) headers.push('Content-Length', String(body.length));
      writeRecordedHead(res, exchange.id, exchange.status, headers);
      res.end(body);
      return done(messages.length);
    }
    // An event stream must reach the client frame by frame: no proxy buffering, head first.
    if (!hasHeader(headers, 'x-accel-buffering')) headers.push('X-Accel-Buffering', 'no');
    writeRecordedHead(res, exchange.id, exchange.status, headers);
    res.flushHeaders();
    const sent = await playMessages(res, messages, { timing: context.timing, clock: context.clock, anchorMs, substitution, signal: stopped.signal });
    const reset = exchange.outcome === 'aborted' && exchange.errorCode === ExchangeErrorCode.E_UPSTREAM_RESET;
    if (reset && !stopped.signal.aborted) res.destroy();
    else res.end();
    return done(sent);
  } finally {
    untrack();
  }
}

/** A recording imported from NDJSON may hold a status or header Node will not send: say which exchange, and why. */
function writeRecordedHead(res: ServerResponse, exchangeId: number, status: number, headers: string[]): void {
  try {
    res.writeHead(status, headers);
  } catch (error) {
    throw new Error(`exchange ${exchangeId} cannot be replayed: its recorded answer is not valid HTTP: ${(error as Error).message}`, { cause: error });
  }
}
