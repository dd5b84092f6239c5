import type { Sender } from '../../core/message.js';
import { LineFramer } from '../../framing/line-framer.js';
import { recordLine, type PendingLine } from './line-record.js';
import type { BodyTap, ExchangeSink, LinesTapSpec } from './recording-sink.js';
import { StdioProtocolSniffer } from './stdio-protocol-sniffer.js';
import { parseBudgetBytes } from '../worker/recorder-memory.js';

export { recordLine, type PendingLine } from './line-record.js';

/**
 * Frames one direction of a line-based channel (a stdio stream, one side of an NDJSON socket) with
 * strict LF framing and records every line with the arrival time of the chunk that completed it.
 * It runs where the recording runs (the worker): capture hands it raw chunks after forwarding them,
 * so the forwarding thread never splits lines.
 *
 * A last line without its LF (the peer went away mid-line) is recorded too, as incomplete: its bytes
 * are kept and the verdict carries the finding, so it is never lost.
 */
export class LineTap implements BodyTap {
  private readonly framer: LineFramer;

  constructor(
    private readonly sender: Sender,
    private readonly channel: string | undefined,
    private readonly deliver: (line: PendingLine) => void,
    private readonly judge = true,
    private readonly onEnd?: () => void,
    /** Of a longer line only this many bytes are kept: it is stored truncated to that anyway. */
    keepBytes?: number,
  ) {
    this.framer = new LineFramer(keepBytes);
  }

  push(chunk: Buffer, at = 0): void {
    for (const frame of this.framer.push(chunk)) this.deliver({ sender: this.sender, channel: this.channel, frame, at, judge: this.judge });
  }

  end(_complete?: boolean, at = 0): void {
    for (const frame of this.framer.end()) this.deliver({ sender: this.sender, channel: this.channel, frame, at, judge: this.judge });
    this.onEnd?.();
  }
}

/** One protocol sniffer per exchange, shared by its stdin, stdout and stderr taps so lines stay in order. */
const sniffers = new WeakMap<ExchangeSink, StdioProtocolSniffer>();

/** The tap for a `lines` TapSpec on `exchange`, keeping at most `keepBytes` of any one line. */
export function linesTap(exchange: ExchangeSink, spec: LinesTapSpec, keepBytes: number): LineTap {
  if (!spec.sniffStdio) return new LineTap(spec.sender, spec.channel, (line) => recordLine(exchange, line), spec.judge ?? true, undefined, keepBytes);
  let sniffer = sniffers.get(exchange);
  if (!sniffer) sniffers.set(exchange, (sniffer = new StdioProtocolSniffer(exchange, parseBudgetBytes(keepBytes))));
  const shared = sniffer;
  shared.attach();
  // The last tap to end records whatever the sniffer still holds, before the exchange ends.
  return new LineTap(spec.sender, spec.channel, (line) => shared.push(line), spec.judge ?? true, () => shared.detach(), keepBytes);
}

