import { isUtf8 } from 'node:buffer';

/** One line of a line-delimited stream, with its exact bytes. */
export interface LineFrame {
  /** The line's bytes including its LF (absent on an unterminated last line). A trailing CR is kept. */
  raw: Buffer;
  /** The line's content: raw without the LF, and without one trailing CR (Pi RPC strips it). */
  text: string;
  /** 1-based line number in the stream. */
  line: number;
  unterminated: boolean;
  /** True when the content is not valid UTF-8. */
  invalidUtf8: boolean;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Strict LF framing for JSONL/NDJSON (Pi RPC, ACP stdio, the daemon's unix socket).
 * U+2028 and U+2029 are content, not line breaks, so readline is not used.
 * A line longer than `maxLineBytes` is still emitted whole, with `oversized` left to the caller.
 */
export class LineFramer {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private lineNumber = 0;

  push(chunk: Uint8Array): LineFrame[] {
    const frames: LineFrame[] = [];
    let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    let at = buf.indexOf(LF, start);
    while (at >= 0) {
      let raw = buf.subarray(start, at + 1);
      if (this.pendingLength > 0) {
        raw = Buffer.concat([...this.pending, raw], this.pendingLength + raw.length);
        this.pending = [];
        this.pendingLength = 0;
      } else raw = Buffer.from(raw);
      frames.push(this.frame(raw, false));
      start = at + 1;
      at = buf.indexOf(LF, start);
    }
    if (start < buf.length) {
      const rest = Buffer.from(buf.subarray(start));
      this.pending.push(rest);
      this.pendingLength += rest.length;
    }
    buf = Buffer.alloc(0);
    return frames;
  }

  /** The unterminated last line, if the stream ended without a final LF. */
  end(): LineFrame[] {
    if (this.pendingLength === 0) return [];
    const raw = Buffer.concat(this.pending, this.pendingLength);
    this.pending = [];
    this.pendingLength = 0;
    return [this.frame(raw, true)];
  }

  private frame(raw: Buffer, unterminated: boolean): LineFrame {
    this.lineNumber++;
    let end = unterminated ? raw.length : raw.length - 1;
    if (end > 0 && raw[end - 1] === CR) end--;
    const content = raw.subarray(0, end);
    return { raw, text: content.toString('utf8'), line: this.lineNumber, unterminated, invalidUtf8: !isUtf8(content) };
  }
}
