import { KeptBytes } from './kept-bytes.js';

/** One SSE event block as it travelled: its exact bytes, and the fields parsed from them. */
export interface SseFrame {
  /** Bytes from the end of the previous frame through this frame's terminating blank line. */
  raw: Buffer;
  /** The joined `data:` lines (LF-joined, per the SSE spec); undefined when the block had none. */
  data?: string;
  event?: string;
  id?: string;
  retry?: string;
  /** Comment lines (after the colon), e.g. keep-alives. */
  comments: string[];
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
 * With `keepBytes`, only the start of a longer block is kept and its size counted, and its fields
 * are not parsed: it would be stored truncated and unparsed anyway.
 */
export class SseFramer {
  /** The block being read (everything since the last frame). */
  private readonly block: KeptBytes;
  /** The start of the line being read, when it began in an earlier chunk. */
  private line: Buffer[] = [];
  private lineLength = 0;
  private lines: string[] = [];

  constructor(private readonly keepBytes = Number.POSITIVE_INFINITY) {
    this.block = new KeptBytes(keepBytes);
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
      const blank = this.lineLength === 0 && i === lineFrom;
      if (!blank) this.lines.push(this.takeLine(buf.subarray(lineFrom, i)));
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
      // A line of a block that is over the limit is not parsed: only its length matters.
      if (!this.block.over) this.line.push(buf.subarray(lineFrom));
      this.lineLength += buf.length - lineFrom;
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
      if (this.lineLength > 0) this.lines.push(this.takeLine(Buffer.alloc(0)));
      frames.push(this.endBlock(true));
    }
    return frames;
  }

  /** The line that ends with `tail`, decoded; its earlier parts are let go. */
  private takeLine(tail: Buffer): string {
    const parts = this.line;
    const length = this.lineLength + tail.length;
    this.line = [];
    this.lineLength = 0;
    // Within a block that went over the limit, lines are counted, not read (nor kept: see push).
    if (this.block.over) return '';
    return decodeLine(parts.length === 0 ? tail : Buffer.concat([...parts, tail], length));
  }

  /** The block, ending with `tail`, as a frame. */
  private endBlock(unterminated: boolean, tail?: Buffer): SseFrame {
    let raw: Buffer;
    let totalBytes: number;
    if (this.block.total === 0 && (tail?.length ?? 0) <= this.keepBytes) {
      // The usual event, whole within one chunk: one copy, nothing to gather.
      raw = Buffer.from(tail ?? Buffer.alloc(0));
      totalBytes = raw.length;
    } else {
      if (tail) this.block.add(tail);
      ({ raw, total: totalBytes } = this.block.take());
    }
    const frame = totalBytes > raw.length ? { raw, comments: [], unterminated, totalBytes } : buildFrame(raw, this.lines, unterminated);
    this.lines = [];
    return frame;
  }
}

function decodeLine(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

function buildFrame(raw: Buffer, lines: string[], unterminated: boolean): SseFrame {
  const frame: SseFrame = { raw, comments: [], unterminated, totalBytes: raw.length };
  let data: string[] | undefined;
  for (const line of lines) {
    if (line.startsWith(':')) {
      frame.comments.push(line.slice(1));
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') (data ??= []).push(value);
    else if (field === 'event') frame.event = value;
    else if (field === 'id') frame.id = value;
    else if (field === 'retry') frame.retry = value;
  }
  if (data) frame.data = data.join('\n');
  return frame;
}
