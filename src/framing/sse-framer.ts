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
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream into SSE blocks without losing a byte, so that concatenating every
 * frame's `raw` gives the body back exactly. Accepts LF, CRLF and CR line endings
 * (the WHATWG event-stream grammar), including a CRLF split across two chunks.
 */
export class SseFramer {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  /** Start of the current line within the pending buffer. */
  private lineStart = 0;
  /** Where scanning resumes; everything before it has been looked at. */
  private scanFrom = 0;
  private lines: string[] = [];

  push(chunk: Uint8Array): SseFrame[] {
    if (chunk.length === 0) return [];
    this.pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.pendingLength += chunk.length;
    return this.scan(false);
  }

  /** Ends the stream; the trailing bytes (a block with no blank line) become one last frame. */
  end(): SseFrame[] {
    const frames = this.scan(true);
    if (this.pendingLength > 0) {
      const buf = this.buffer();
      if (this.lineStart < buf.length) this.lines.push(decodeLine(buf.subarray(this.lineStart)));
      frames.push(buildFrame(Buffer.from(buf), this.lines, true));
    }
    this.pending = [];
    this.pendingLength = 0;
    this.lineStart = 0;
    this.scanFrom = 0;
    this.lines = [];
    return frames;
  }

  private buffer(): Buffer {
    if (this.pending.length > 1) this.pending = [Buffer.concat(this.pending, this.pendingLength)];
    return this.pending[0] ?? Buffer.alloc(0);
  }

  private scan(final: boolean): SseFrame[] {
    const frames: SseFrame[] = [];
    let buf = this.buffer();
    let i = this.scanFrom;
    while (i < buf.length) {
      const byte = buf[i];
      if (byte !== LF && byte !== CR) {
        i++;
        continue;
      }
      let terminator = 1;
      if (byte === CR) {
        // A CR at the end of a chunk may be the first half of a CRLF: wait for the next byte.
        if (i + 1 >= buf.length && !final) break;
        if (buf[i + 1] === LF) terminator = 2;
      }
      const next = i + terminator;
      if (i === this.lineStart) {
        // A blank line ends the block; the frame keeps every byte up to and including it.
        frames.push(buildFrame(Buffer.from(buf.subarray(0, next)), this.lines, false));
        const rest = buf.subarray(next);
        this.pending = rest.length > 0 ? [rest] : [];
        this.pendingLength = rest.length;
        this.lines = [];
        buf = rest;
        this.lineStart = 0;
        i = 0;
        continue;
      }
      this.lines.push(decodeLine(buf.subarray(this.lineStart, i)));
      this.lineStart = next;
      i = next;
    }
    this.scanFrom = i;
    return frames;
  }
}

function decodeLine(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

function buildFrame(raw: Buffer, lines: string[], unterminated: boolean): SseFrame {
  const frame: SseFrame = { raw, comments: [], unterminated };
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
