import { WebSocket } from 'ws';
import { headerValue } from '../core/header-value.js';
import type { Substitution } from '../match/correlation.js';
import type { ScriptExchange } from '../replay/replay-script.js';
import type { RedriveRequest } from './redrive-request.js';
import type { SentRequest } from './send-request.js';
import { ConnectionIds } from './connection-ids.js';
import { AS_FAST_AS_ANSWERED, connectionSchedule, type Pacing } from './pacing.js';

/** Headers the WebSocket client sets for its own handshake. */
const HANDSHAKE_HEADERS = /^sec-websocket-/i;

/** How long a redrive waits for an answer the recording had before it sends the next frame anyway (or ends). */
export const ANSWER_WAIT_MS = 30_000;

/**
 * Plays the client side of a recorded WebSocket conversation against the recorder at `base`: the
 * recorded upgrade (path, headers, subprotocols), then each client frame in recorded order, sent
 * once as many frames have come from the server as had come before it in the recording (the
 * answers it waited for) and, paced, once it is due (`pacing`), with the carried-forward ids in place, those the server minted earlier in
 * this conversation too (learnt into `ids` as its frames come). Ends as the recording did: the
 * client's close with its code, or once the server has closed. Resolves with the server frames'
 * text; a failure is an outcome, never a throw.
 */
export function sendWsConversation(
  base: URL,
  exchange: ScriptExchange,
  request: RedriveRequest,
  ids: Substitution,
  pacing: Pacing = AS_FAST_AS_ANSWERED,
  waitMs = ANSWER_WAIT_MS,
): Promise<SentRequest & { frames: string[] }> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < request.headers.length; i += 2) {
      const name = request.headers[i];
      if (!HANDSHAKE_HEADERS.test(name) && name.toLowerCase() !== 'content-length') headers[name] = request.headers[i + 1];
    }
    const protocols = (headerValue(exchange.requestHeaders, 'sec-websocket-protocol') ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const url = `ws://${base.host}${request.url}`;
    const ws = new WebSocket(url, protocols, { headers, perMessageDeflate: false });
    const frames: string[] = [];
    const minted = new ConnectionIds(
      exchange.messages.filter((m) => m.sender === 'server' && (m.channel === 'text' || m.channel === 'binary')).map((m) => (m.channel === 'text' ? m.json : undefined)),
      ids,
    );
    let serverClosed = false;
    let waiter: (() => void) | undefined;
    let settled = false;
    const settle = (error?: string) => {
      if (settled) return;
      settled = true;
      minted.learn(frames);
      resolve({ status: undefined, headers: {}, body: Buffer.alloc(0), frames, ...(error === undefined ? {} : { error }) });
    };
    const wake = () => {
      const w = waiter;
      waiter = undefined;
      w?.();
    };
    /** Resolves once `n` server frames have come, the server has closed, or the wait is over. */
    const answers = (n: number) =>
      new Promise<void>((done) => {
        const timer = setTimeout(() => finish(), waitMs);
        timer.unref();
        const finish = () => {
          clearTimeout(timer);
          waiter = undefined;
          done();
        };
        const check = () => {
          if (frames.length >= n || serverClosed) finish();
          else waiter = check;
        };
        check();
      });
    ws.on('message', (data, isBinary) => {
      frames.push(isBinary ? '' : data.toString());
      wake();
    });
    ws.on('close', () => {
      serverClosed = true;
      wake();
      settle();
    });
    ws.on('error', (error) => {
      serverClosed = true;
      wake();
      settle(error.message);
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      settle(`the upgrade was answered ${res.statusCode}`);
    });
    ws.on('open', () => {
      const schedule = connectionSchedule(pacing, exchange);
      void (async () => {
        let serverSoFar = 0;
        for (const message of exchange.messages) {
          if (message.sender === 'server') {
            if (message.channel === 'text' || message.channel === 'binary') serverSoFar++;
            continue;
          }
          await answers(serverSoFar);
          await schedule.wait(message.tOffsetMs);
          if (ws.readyState !== WebSocket.OPEN) return;
          minted.learn(frames);
          if (message.channel === 'text') ws.send(ids.apply(message.raw).toString('utf8'));
          else if (message.channel === 'binary') ws.send(message.raw, { binary: true });
          else if (message.channel === 'close') {
            ws.close(exchange.closeCode ?? 1000, exchange.closeReason ?? undefined);
            return;
          }
        }
        await answers(serverSoFar);
        if (ws.readyState === WebSocket.OPEN) ws.close(exchange.closeCode ?? 1000, exchange.closeReason ?? undefined);
      })().catch((error: Error) => {
        ws.terminate();
        settle(error.message);
      });
    });
  });
}
