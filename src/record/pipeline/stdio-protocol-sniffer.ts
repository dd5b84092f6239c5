import { chooseProtocol } from '../../judge/protocol-choice.js';
import type { ProtocolId } from '../../protocols/protocol.js';
import { lineJson, recordLine, type PendingLine } from './line-record.js';
import type { ExchangeSink } from './recording-sink.js';
import { STDIO_PROTOCOLS, stdioHint, type StdioProtocol } from './stdio-protocols.js';

/** Lines held back (already forwarded) while the protocol is not known yet. */
const MAX_SNIFF_LINES = 16;
/** ... and their bytes: sixteen lines of ten megabytes each, as text, would fill the recorder's heap. */
const MAX_SNIFF_BYTES = 1024 * 1024;

/**
 * Holds the first lines (already forwarded) until one of them says whether the child speaks Pi RPC
 * or ACP, so that every line is judged by the right protocol; then records in order. After
 * MAX_SNIFF_LINES undecided lines (or a megabyte of them) it records them unjudged and keeps looking.
 */
export class StdioProtocolSniffer {
  private pending: PendingLine[] = [];
  private pendingBytes = 0;
  private decided = false;
  private openTaps = 0;

  constructor(
    private readonly exchange: ExchangeSink,
    /** Heap the parse of one line may take (see jsonParseCost). */
    private readonly parseBudget: number,
  ) {}

  attach(): void {
    this.openTaps++;
  }

  /** A tap ended; once all have, nothing more can decide, so what is held is recorded as it is. */
  detach(): void {
    if (--this.openTaps === 0) this.flush();
  }

  push(line: PendingLine): void {
    if (!this.decided && line.judge) {
      const value = lineJson(line.frame, this.parseBudget);
      const module = value === undefined ? undefined : chooseProtocol({ sample: [value] });
      if (module && (STDIO_PROTOCOLS as readonly ProtocolId[]).includes(module.id)) {
        this.exchange.classify(stdioHint(module.id as StdioProtocol));
        this.decided = true;
      }
    }
    if (this.decided) {
      this.flush();
      recordLine(this.exchange, line);
      return;
    }
    this.pending.push(line);
    this.pendingBytes += line.frame.raw.length;
    if (this.pending.length >= MAX_SNIFF_LINES || this.pendingBytes > MAX_SNIFF_BYTES) this.flush();
  }

  flush(): void {
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const line of pending) recordLine(this.exchange, line);
  }
}
