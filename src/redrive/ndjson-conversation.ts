import { createConnection } from 'node:net';
import { ExchangeErrorCode } from '../core/errors.js';
import type { Substitution } from '../match/correlation.js';
import type { ScriptExchange } from '../replay/replay-script.js';
import { LineAnswers } from './line-answers.js';
import { ConnectionIds } from './connection-ids.js';
import { AS_FAST_AS_ANSWERED, connectionSchedule, type Pacing } from './pacing.js';
import { ANSWER_WAIT_MS } from './ws-conversation.js';

export interface SentLines {
  /** The lines the daemon sent, as text. */
  lines: string[];
  error?: string;
}

/**
 * Plays the client side of a recorded NDJSON socket connection against the recorder listening at
 * `socketPath`: each client line, with the carried-forward ids in place (those minted earlier on this
 * connection too, learnt into `ids` as the daemon's lines come), once as many lines have
 * come from the daemon as had come before it in the recording and, paced, once it is due; then the client ends its side, as
 * recorded, or, where the daemon had ended first, once the daemon has (or the wait is over). A
 * failure is an outcome, never a throw.
 */
export function sendNdjsonConversation(socketPath: string, exchange: ScriptExchange, ids: Substitution, pacing: Pacing = AS_FAST_AS_ANSWERED, waitMs = ANSWER_WAIT_MS): Promise<SentLines> {
  return new Promise((resolve) => {
    const socket = createConnection({ path: socketPath, allowHalfOpen: true });
    const answers = new LineAnswers(socket);
    const minted = new ConnectionIds(
      exchange.messages.filter((m) => m.sender === 'server' && m.carrier === 'line').map((m) => m.json),
      ids,
    );
    let error: string | undefined;
    socket.on('end', () => answers.end());
    socket.on('error', (e) => {
      error ??= e.message;
      answers.end();
    });
    socket.on('close', () => {
      clearTimeout(cut);
      answers.end();
      minted.learn(answers.received);
      resolve({ lines: answers.received, ...(error === undefined ? {} : { error }) });
    });
    // Cut once the daemon has had the wait to close after our end; armed when we end.
    let cut: NodeJS.Timeout | undefined;
    socket.once('connect', () => {
      const schedule = connectionSchedule(pacing, exchange);
      void (async () => {
        let serverSoFar = 0;
        for (const message of exchange.messages) {
          if (message.carrier !== 'line') continue;
          if (message.sender === 'server') {
            serverSoFar++;
            continue;
          }
          await answers.wait(serverSoFar, waitMs);
          await schedule.wait(message.tOffsetMs);
          if (answers.hasEnded) break;
          minted.learn(answers.received);
          socket.write(ids.apply(message.raw));
        }
        await answers.wait(serverSoFar, waitMs);
        if (exchange.errorCode === ExchangeErrorCode.E_UPSTREAM_ENDED) await answers.wait(Number.POSITIVE_INFINITY, waitMs);
        socket.end();
        cut = setTimeout(() => socket.destroy(), waitMs);
        cut.unref();
      })();
    });
  });
}
