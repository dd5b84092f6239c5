import type { Sender } from '../core/message.js';
import { LineFramer, type LineFrame } from '../framing/line-framer.js';
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

/**
 * Frames one direction of a line-based channel (a stdio stream, one side of an NDJSON socket) with
 * strict LF framing and records every line with the arrival time of the chunk that completed it.
 * Capture writes each chunk onward first and hands this a copy afterwards.
 *
 * A last line without its LF (the peer went away mid-line) is recorded too, as incomplete: its bytes
 * are kept and the verdict carries the finding, so it is never lost.
 */
export class LineTap {
  private readonly framer = new LineFramer();

  constructor(
    private readonly sender: Sender,
    private readonly channel: string | undefined,
    private readonly deliver: (line: PendingLine) => void,
    private readonly judge = true,
  ) {}

  push(chunk: Buffer, at: number): void {
    for (const frame of this.framer.push(chunk)) this.deliver({ sender: this.sender, channel: this.channel, frame, at, judge: this.judge });
  }

  end(at: number): void {
    for (const frame of this.framer.end()) this.deliver({ sender: this.sender, channel: this.channel, frame, at, judge: this.judge });
  }
}

/** Records one framed line on an exchange. */
export function recordLine(exchange: ExchangeSink, line: PendingLine): void {
  const { frame } = line;
  if (!line.judge) {
    exchange.record(line.sender, frame.raw, { carrier: 'line', channel: line.channel, json: false, judge: false, at: line.at });
    return;
  }
  const parseError = frame.unterminated
    ? `incomplete line: the stream ended after ${frame.raw.length} bytes without the line's LF`
    : frame.invalidUtf8
      ? 'the line is not valid UTF-8'
      : undefined;
  exchange.record(line.sender, frame.raw, { carrier: 'line', channel: line.channel, at: line.at, ...(parseError ? { parseError } : { payload: frame.text }) });
}

/** The parsed JSON of a line, or undefined (used only to sniff the protocol of the first lines). */
export function lineJson(frame: LineFrame): unknown {
  if (frame.invalidUtf8 || frame.text.trim() === '') return undefined;
  try {
    return JSON.parse(frame.text);
  } catch {
    return undefined;
  }
}
