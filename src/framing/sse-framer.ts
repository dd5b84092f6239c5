import { KeptBytes } from './kept-bytes.js';
import { SseFields } from './sse-fields.js';

/** One SSE event block as it travelled: its exact bytes, and the fields parsed from them. */
export interface SseFrame {
  /** Bytes from the end of the previous frame through this frame's terminating blank line. */
  raw: Buffer;
  /** The joined `data:` lines (LF-joined, per the SSE spec); undefined when the block had none. */
  data?: string;
  event?: string;
  id?: string;
  retry?: string;
  /** True when the stream ended before this block's blank line. */
  unterminated: boolean;
  /** The block's whole size; more than `raw.length` when only its start was kept (its fields are then not parsed). */
  totalBytes: number;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream into SSE blocks without losing a byte, so that concatenating every
 * frame's `raw` gives the body back exactly. Accepts LF, CRLF and CR line endings
 * (the WHATWG event-stream grammar), including a CRLF split across two chunks.
 *
 * Each chunk is scanned once and each byte copied once more, when its line or its block is
 * complete: an event of many megabytes arriving in small chunks costs time in proportion to its size.
 * Fields are read as each line completes, so a block of a million lines holds its fields' values,
 * not a million lines. With `keepBytes`, only the start of a longer block is kept and its size
 * counted, and its fields are not read: it would be stored truncated and unparsed anyway. What the
 * framer holds is thus bounded by `keepBytes`, whatever the stream's lines.
 */
export class SseFramer {
  /** The block being read (everything since the last frame). */
  private readonly block: KeptBytes;
  /** The start of the line being read, when it began in an earlier chunk. */
  private readonly line: KeptBytes;
  /** The fields of the block being read, from its lines so far. */
  private readonly fields: SseFields;

  constructor(private readonly keepBytes = Number.POSITIVE_INFINITY) {
    this.block = new KeptBytes(keepBytes);
    this.line = new KeptBytes(keepBytes);
    this.fields = new SseFields(keepBytes);
  }

  /** The last chunk ended with the CR that ended a line: an LF first in the next one completes that CRLF. */
  private afterCR = false;
  /** ... and that line was blank: the block ends once it is known whether an LF follows. */
  private blockEndsAfterCR = false;

  push(chunk: Uint8Array): SseFrame[] {
    if (chunk.length === 0) return [];
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const frames: SseFrame[] = [];
    /** Where the bytes not yet added to the block start. */
    let from = 0;
    let i = 0;
    if (this.afterCR) {
      this.afterCR = false;
      if (buf[0] === LF) i = 1;
      if (this.blockEndsAfterCR) {
        this.blockEndsAfterCR = false;
        frames.push(this.endBlock(false, buf.subarray(0, i)));
        from = i;
      }
    }
    let lineFrom = i;
    while (i < buf.length) {
      const byte = buf[i];
      if (byte !== LF && byte !== CR) {
        i++;
        continue;
      }
      const blank = this.line.total === 0 && i === lineFrom;
      if (!blank) this.endLine(buf.subarray(lineFrom, i));
      let next = i + 1;
      if (byte === CR) {
        if (next === buf.length) {
          // Whether this is a CRLF is for the next chunk to tell.
          this.afterCR = true;
          this.blockEndsAfterCR = blank;
          lineFrom = next;
          break;
        }
        if (buf[next] === LF) next++;
      }
      if (blank) {
        // A blank line ends the block; the frame keeps every byte up to and including it.
        frames.push(this.endBlock(false, buf.subarray(from, next)));
        from = next;
      }
      i = next;
      lineFrom = next;
    }
    if (from < buf.length) this.block.add(buf.subarray(from));
    if (lineFrom < buf.length) {
      // A line of a block that is over the limit is not read: only its length matters.
      if (this.block.over) this.line.skip(buf.length - lineFrom);
      else this.line.add(buf.subarray(lineFrom));
    }
    return frames;
  }

  /** Ends the stream; the trailing bytes (a block with no blank line) become one last frame. */
  end(): SseFrame[] {
    const frames: SseFrame[] = [];
    if (this.afterCR && this.blockEndsAfterCR) frames.push(this.endBlock(false));
    this.afterCR = false;
    this.blockEndsAfterCR = false;
    if (this.block.total > 0) {
      if (this.line.total > 0) this.endLine(EMPTY);
      frames.push(this.endBlock(true));
    }
    return frames;
  }

  /** The line that ends with `tail` is complete: its field is read, and the line let go. */
  private endLine(tail: Buffer): void {
    // Within a block that went over the limit, lines are counted, not read (nor kept: see push).
    if (this.block.over) {
      if (this.line.total > 0) this.line.take();
      this.fields.clear();
      return;
    }
    if (this.line.total === 0) {
      this.fields.read(tail);
      return;
    }
    this.line.add(tail);
    const { raw, total } = this.line.take();
    // A line longer than keepBytes makes its block longer too: that block's fields are never used.
    if (raw.length === total) this.fields.read(raw);
  }

  /** The block, ending with `tail`, as a frame. */
  private endBlock(unterminated: boolean, tail?: Buffer): SseFrame {
    let raw: Buffer;
    let totalBytes: number;
    if (this.block.total === 0 && (tail?.length ?? 0) <= this.keepBytes) {
      // The usual event, whole within one chunk: one copy, nothing to gather.
      raw = Buffer.from(tail ?? EMPTY);
      totalBytes = raw.length;
    } else {
      if (tail) this.block.add(tail);
      ({ raw, total: totalBytes } = this.block.take());
    }
    if (totalBytes > raw.length) {
      this.fields.clear();
      return { raw, unterminated, totalBytes };
    }
    // Written out, not spread: once per event, and on Node 20 a spread among other properties is V8's slow path.
    // Every field is a key (undefined when absent): readers read them, none lists them.
    const { data, event, id, retry } = this.fields.take();
    return { raw, data, event, id, retry, unterminated, totalBytes };
  }
}

const EMPTY = Buffer.alloc(0);
