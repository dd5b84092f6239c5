/** One length-prefixed frame: 4-byte big-endian length, then the payload. */
export interface LengthPrefixedFrame {
  /** Prefix and payload, exactly as they travelled; of a frame longer than `keepBytes`, only its start. */
  raw: Buffer;
  /** The payload; undefined when only the start of the frame was kept. */
  payload?: Buffer;
  /** The frame's whole size, prefix included. */
  totalBytes: number;
}

/** What was left when the stream ended mid-frame. */
export interface TrailingBytes {
  /** The bytes, or their start when there were more than `keepBytes`. */
  raw: Buffer;
  totalBytes: number;
}

/** The AG-UI client refuses frames over 10 MB; so do we, as a finding rather than a crash. */
export const MAX_PROTO_FRAME_BYTES = 10 * 1024 * 1024;

const PREFIX_BYTES = 4;

/**
 * Splits the AG-UI protobuf binding (`application/vnd.ag-ui.event+proto`) into frames.
 * Frames abut with no separator and may be split across chunks.
 *
 * Each byte is copied once, when its frame is complete, whatever the chunking. With `keepBytes`,
 * only the start of a longer frame is kept and its size counted, so a frame that announces
 * gigabytes does not make the recorder hold them; framing carries on after it.
 */
export class LengthPrefixedFramer {
  /** The frame being read, as views of the chunks it came in (at most `keepBytes` of them). */
  private kept: Buffer[] = [];
  private keptLength = 0;
  /** Bytes of the frame being read so far, prefix included, kept or not. */
  private seen = 0;
  /** The payload length the frame being read announces, once its prefix is in. */
  private announced?: number;

  constructor(private readonly keepBytes = Number.POSITIVE_INFINITY) {
    if (keepBytes < PREFIX_BYTES) throw new RangeError(`keepBytes must hold the ${PREFIX_BYTES}-byte prefix`);
  }

  push(chunk: Uint8Array): LengthPrefixedFrame[] {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const frames: LengthPrefixedFrame[] = [];
    let offset = 0;
    while (offset < buf.length) {
      if (this.announced === undefined) {
        offset = this.take(buf, offset, PREFIX_BYTES - this.seen);
        if (this.seen < PREFIX_BYTES) break;
        const prefix = this.kept[0].length >= PREFIX_BYTES ? this.kept[0] : Buffer.concat(this.kept, PREFIX_BYTES);
        this.announced = prefix.readUInt32BE(0);
      }
      offset = this.take(buf, offset, PREFIX_BYTES + this.announced - this.seen);
      if (this.seen === PREFIX_BYTES + this.announced) frames.push(this.emit());
    }
    return frames;
  }

  /** Bytes left over when the stream ended mid-frame (the client calls this an error). */
  end(): TrailingBytes | undefined {
    if (this.seen === 0) return undefined;
    const rest = { raw: Buffer.concat(this.kept, this.keptLength), totalBytes: this.seen };
    this.reset();
    return rest;
  }

  /** The payload length the frame being read announces, once its prefix has arrived. */
  nextLength(): number | undefined {
    return this.announced;
  }

  /** Takes up to `wanted` bytes of `buf` from `offset` into the frame; returns the new offset. */
  private take(buf: Buffer, offset: number, wanted: number): number {
    const end = Math.min(buf.length, offset + wanted);
    const room = this.keepBytes - this.keptLength;
    if (room > 0 && end > offset) {
      const part = buf.subarray(offset, Math.min(end, offset + room));
      this.kept.push(part);
      this.keptLength += part.length;
    }
    this.seen += end - offset;
    return end;
  }

  private emit(): LengthPrefixedFrame {
    // A copy: the chunks may be views into larger buffers that must not be kept alive.
    const raw = Buffer.concat(this.kept, this.keptLength);
    const frame: LengthPrefixedFrame = { raw, totalBytes: this.seen };
    if (raw.length === this.seen) frame.payload = raw.subarray(PREFIX_BYTES);
    this.reset();
    return frame;
  }

  private reset(): void {
    this.kept = [];
    this.keptLength = 0;
    this.seen = 0;
    this.announced = undefined;
  }
}
