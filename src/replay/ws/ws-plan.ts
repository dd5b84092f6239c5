import { parseCloseFramePayload } from '../../net/ws-close-codes.js';
import type { ScriptExchange, ScriptMessage } from '../replay-script.js';
import { ExchangeErrorCode } from '../../core/errors.js';

/** One step of a recorded conversation: a client frame the replay waits for, and the server frames that followed it. */
export interface WsTurn {
  /** A `text`, `binary`, `ping` or `pong` frame the client sent. */
  client: ScriptMessage;
  /** What the server sent after it, up to the next client frame (no close rows). */
  replies: ScriptMessage[];
}

/** How the recorded connection ended, seen from the server's side. */
export type WsEnding =
  /** The server sent the first close frame: send it too, after its last frame. `at`: its recorded offset. */
  | { by: 'server'; code: number; reason: string; at: number }
  /** The server's side went away without a close frame (1006): cut the connection. */
  | { by: 'server-reset'; at: number }
  /** The client closed (or left), or the recording stopped first: wait for the live client. */
  | { by: 'client' };

/** A recorded WebSocket connection as a script: frames to send first, then turns, then the ending. */
export interface WsPlan {
  /** Server frames sent before the first client frame (`attach_ready`). */
  preamble: ScriptMessage[];
  turns: WsTurn[];
  ending: WsEnding;
}

/**
 * Splits a recorded connection at its client frames. Everything after the first close row is the
 * close handshake (the peer's echo), which the live WebSocket does by itself, so it is left out.
 */
export function planConnection(exchange: ScriptExchange): WsPlan {
  const preamble: ScriptMessage[] = [];
  const turns: WsTurn[] = [];
  let firstClose: ScriptMessage | undefined;
  for (const message of exchange.messages) {
    if (message.channel === 'close') {
      firstClose = message;
      break;
    }
    if (message.sender === 'client') turns.push({ client: message, replies: [] });
    else (turns.at(-1)?.replies ?? preamble).push(message);
  }
  return { preamble, turns, ending: endingOf(exchange, firstClose) };
}

function endingOf(exchange: ScriptExchange, firstClose: ScriptMessage | undefined): WsEnding {
  // A connection cut by the recorder's own shutdown had not ended: it stays open until the client
  // (or the replay's shutdown) ends it.
  if (exchange.errorCode === ExchangeErrorCode.E_PROXY_SHUTDOWN) return { by: 'client' };
  if (firstClose?.sender === 'server') return { by: 'server', ...parseCloseFramePayload(firstClose.raw), at: firstClose.tOffsetMs };
  if (!firstClose && exchange.errorCode === ExchangeErrorCode.E_UPSTREAM_RESET) {
    return { by: 'server-reset', at: exchange.endedMs ?? exchange.messages.at(-1)?.tOffsetMs ?? exchange.startedMs };
  }
  return { by: 'client' };
}
