import { chooseProtocol, type ProtocolChoice } from '../../judge/protocol-choice.js';
import type { ProtocolId } from '../../protocols/catalog.js';
import { lineJson, recordLine, type PendingLine } from './line-record.js';
import type { ExchangeSink } from './recording-sink.js';
import { STDIO_PROTOCOLS, stdioHint, type StdioProtocol } from './stdio-protocols.js';

/** Lines held back (already forwarded) while the protocol is not known yet. */
const MAX_SNIFF_LINES = 16;
/** ... and their bytes: sixteen lines of ten megabytes each, as text, would fill the recorder's heap. */
const MAX_SNIFF_BYTES = 1024 * 1024;

/**
 * Holds the first lines (already forwarded) until one of them says which of the protocols that run
 * over stdio the child speaks, so that every line is judged by the right protocol; then records in
 * order. A line its protocol says does not decide (`decidesStdio`: a plain JSON-RPC response, when
 * a dialect's answers are JSON-RPC responses too) is kept as the fallback: the first line that does
 * decide wins, or, once MAX_SNIFF_LINES lines (or a megabyte of them) are held or the child's
 * streams end, the fallback. With nothing recognised by then, the lines are recorded unjudged and
 * the sniffer keeps looking.
 */
export class StdioProtocolSniffer {
  private pending: PendingLine[] = [];
  private pendingBytes = 0;
  private decided = false;
  private openTaps = 0;
  /** A protocol seen only in lines that do not decide (plain JSON-RPC responses): what the stream is if nothing more specific comes. */
  private fallback?: ProtocolChoice;

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
    if (!this.decided && line.judge) this.sniff(line);
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
    if (!this.decided && this.fallback) this.decide(this.fallback);
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const line of pending) recordLine(this.exchange, line);
  }

  private sniff(line: PendingLine): void {
    const value = lineJson(line.frame, this.parseBudget);
    const choice = value === undefined ? undefined : chooseProtocol({ hint: { transport: 'stdio' }, sample: [value] });
    if (!choice || !(STDIO_PROTOCOLS as readonly ProtocolId[]).includes(choice.module.id)) return;
    if (choice.module.decidesStdio?.(value) === false) this.fallback ??= choice;
    else this.decide(choice);
  }

  private decide(choice: ProtocolChoice): void {
    this.exchange.classify(stdioHint(choice.module.id as StdioProtocol, choice.evidence));
    this.decided = true;
  }
}
