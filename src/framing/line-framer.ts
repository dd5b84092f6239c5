import { isUtf8 } from 'node:buffer';
import { KeptBytes } from './kept-bytes.js';

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
  /** The line's whole size in bytes, LF included; more than `raw.length` when only its start was kept. */
  totalBytes: number;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Strict LF framing for JSONL/NDJSON (Pi RPC, ACP stdio, the daemon's unix socket).
 * U+2028 and U+2029 are content, not line breaks, so readline is not used.
 *
 * With `keepBytes`, only the first that-many bytes of a longer line are kept (`totalBytes` tells its
 * real size): a peer that writes a gigabyte without a LF must not make the recorder hold a gigabyte
 * of a line it will store truncated anyway. Such a line has no `text` and is not checked for UTF-8.
 */
export class LineFramer {
  /** The open line, begun in an earlier chunk. */
  private readonly pending: KeptBytes;
  private lineNumber = 0;

  constructor(private readonly keepBytes = Number.POSITIVE_INFINITY) {
    this.pending = new KeptBytes(keepBytes);
  }

  push(chunk: Uint8Array): LineFrame[] {
    const frames: LineFrame[] = [];
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    let at = buf.indexOf(LF, start);
    while (at >= 0) {
      const piece = buf.subarray(start, at + 1);
      if (this.pending.total === 0 && piece.length <= this.keepBytes) {
        // The usual line, whole within one chunk: one copy, nothing to gather.
        frames.push(this.frame(Buffer.from(piece), false, piece.length));
      } else {
        this.pending.add(piece);
        const { raw, total } = this.pending.take();
        frames.push(this.frame(raw, false, total));
      }
      start = at + 1;
      at = buf.indexOf(LF, start);
    }
    if (start < buf.length) this.pending.add(buf.subarray(start));
    return frames;
  }

  /** The unterminated last line, if the stream ended without a final LF. */
  end(): LineFrame[] {
    if (this.pending.total === 0) return [];
    const { raw, total } = this.pending.take();
    return [this.frame(raw, true, total)];
  }

  private frame(raw: Buffer, unterminated: boolean, totalBytes: number): LineFrame {
    this.lineNumber++;
    if (totalBytes > raw.length) return { raw, text: '', line: this.lineNumber, unterminated, invalidUtf8: false, totalBytes };
    let end = unterminated ? raw.length : raw.length - 1;
    if (end > 0 && raw[end - 1] === CR) end--;
    const content = raw.subarray(0, end);
    return { raw, text: content.toString('utf8'), line: this.lineNumber, unterminated, invalidUtf8: !isUtf8(content), totalBytes };
  }
}
