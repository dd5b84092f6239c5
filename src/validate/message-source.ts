import { isJsonObject } from '../core/json.js';
import type { HttpContext, Sender } from '../core/message.js';
import type { ChannelHint } from '../protocols/protocol.js';
import type { ProtocolId } from '../protocols/catalog.js';
import type { Finding } from '../core/finding.js';
import type { Verdict } from '../core/verdict.js';

/** One message read from a file, before judging. */
export interface SourceMessage {
  value: unknown;
  /** Set when the file says who sent it; otherwise the protocol guesses from the shape. */
  sender?: Sender;
  /** 1-based line in the file where the message starts, when known. */
  line?: number;
  /** 0-based position in the file's message list. */
  index: number;
  text?: string;
  http?: HttpContext;
  carrier: 'body' | 'event' | 'frame' | 'line';
  /** A recorded message's exchange id and its place in it (`show --exchange` numbers them so). */
  exchange?: number;
  seq?: number;
  /** What record knew of it besides its value (a close frame is not judged); a file's message has none. */
  facts?: { channel?: string; judge?: boolean };
  /**
   * A recorded message record could not parse (not JSON, over --max-body, cut off): its stored
   * verdict is kept, since what decided it (the limits, the content type) is not in the file and no
   * checker ever saw the message.
   */
  stored?: Verdict;
  /** Stored findings the recording can no longer re-derive (a leaked secret, stored scrubbed): carried over. */
  carried?: Finding[];
}

/** Messages that share one checker: one SSE body, one WebSocket connection, one stdio session, or all REST calls. */
export interface SourceStream {
  label: string;
  hint?: ChannelHint;
  /**
   * The protocol `record` judged the stream by, read from a recording (null: none claimed it):
   * validate judges it by the same. Absent for a file, whose protocol the hint and messages choose.
   */
  protocol?: ProtocolId | null;
  /**
   * How the stream ended, for its checker's end-of-stream rules: 'complete' for a file; a recorded
   * exchange's outcome; 'cut' when no stream rule applies (an upstream that failed, a stream its
   * client or the proxy's shutdown cut), or 'none' for an exchange never closed, as record decided.
   */
  ending?: 'complete' | 'aborted' | 'cut' | 'none';
  /** A recorded HTTP exchange's status, for its checker's end (an MCP DELETE that the server accepted ends its session). */
  status?: number;
  messages: SourceMessage[];
}

/** What reading a recording tells the CLI's progress line: how many messages it holds, then each one read. */
export interface ReadProgress {
  /** The recording holds this many messages; told once, before the first is read. */
  total(messages: number): void;
  /** One more message read. */
  read(): void;
}

export type InputFormat = 'json-array' | 'ndjson' | 'sse' | 'capture';

/** A finding of a whole recorded exchange (core/exchange-findings.ts): no message carries it. */
export interface ExchangeFinding extends Finding {
  /** The exchange, as a stream label names it: `#3 GET /health`. */
  stream: string;
  /** The exchange's id. */
  exchange: number;
}

export interface LoadedInput {
  file: string;
  format: InputFormat;
  streams: SourceStream[];
  /** A recording's findings of whole exchanges; absent for other inputs and when there are none. */
  exchangeFindings?: ExchangeFinding[];
}

const CLIENT_DIRS = new Set(['in', 'client', 'client->server', 'request', 'stdin', 'send', 'sent']);
const SERVER_DIRS = new Set(['out', 'server', 'server->client', 'response', 'stdout', 'receive', 'received']);

/** Accepts bare messages and `{dir|direction, msg|message|data}` wrappers. */
export function toSourceMessage(item: unknown, index: number, line?: number): SourceMessage {
  if (isJsonObject(item)) {
    const record = item;
    const dir = record.dir ?? record.direction;
    const inner = 'msg' in record ? record.msg : 'message' in record ? record.message : 'data' in record && typeof dir === 'string' ? record.data : undefined;
    if (typeof dir === 'string' && inner !== undefined) {
      const sender: Sender | undefined = CLIENT_DIRS.has(dir) ? 'client' : SERVER_DIRS.has(dir) ? 'server' : undefined;
      return { value: inner, sender, index, line, carrier: 'frame' };
    }
  }
  return { value: item, index, line, carrier: 'frame' };
}

