import type { Sender } from '../../core/message.js';
import type { LineFrame } from '../../framing/line-framer.js';
import { tryParseJson } from '../../core/json.js';
import { jsonParseCost } from '../../core/json-parse-cost.js';
import type { ExchangeSink } from './recording-sink.js';

/** A line about to be recorded: its frame, who sent it, on which stdio stream, and when it was complete. */
export interface PendingLine {
  sender: Sender;
  channel: string | undefined;
  frame: LineFrame;
  at: number;
  /** Protocol lines are judged; stderr is stored only. */
  judge: boolean;
}

/** Records one framed line on an exchange. */
export function recordLine(exchange: ExchangeSink, line: PendingLine): void {
  const { sender, channel, at, frame } = line;
  const { raw } = frame;
  // Only the start of an over-long line was kept: the recorder stores it truncated, with its size.
  const totalBytes = frame.totalBytes > raw.length ? frame.totalBytes : undefined;
  // Each line's facts written out, not spread: on Node 20 a spread among other properties is V8's slow path.
  if (!line.judge) {
    exchange.record(sender, raw, totalBytes === undefined ? { carrier: 'line', channel, json: false, judge: false, at } : { carrier: 'line', channel, json: false, judge: false, at, totalBytes });
    return;
  }
  const parseError = frame.unterminated
    ? `incomplete line: the stream ended after ${frame.totalBytes} bytes without the line's LF`
    : frame.invalidUtf8
      ? 'the line is not valid UTF-8'
      : undefined;
  if (parseError !== undefined) exchange.record(sender, raw, totalBytes === undefined ? { carrier: 'line', channel, at, parseError } : { carrier: 'line', channel, at, totalBytes, parseError });
  else exchange.record(sender, raw, totalBytes === undefined ? { carrier: 'line', channel, at, payload: frame.text } : { carrier: 'line', channel, at, totalBytes, payload: frame.text });
}

/**
 * The parsed JSON of a line, or undefined (used only to sniff the protocol of the first lines);
 * undefined too when parsing it would take more than `budget` bytes of heap (see jsonParseCost).
 */
export function lineJson(frame: LineFrame, budget: number): unknown {
  if (frame.invalidUtf8 || frame.text.trim() === '' || jsonParseCost(frame.text, budget) > budget) return undefined;
  return tryParseJson(frame.text);
}
