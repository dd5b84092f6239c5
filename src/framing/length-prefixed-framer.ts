import { KeptBytes } from './kept-bytes.js';

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
  /** The frame being read, prefix included. */
  private readonly frame: KeptBytes;
  /** The payload length the frame being read announces, once its prefix is in. */
  private announced?: number;

  constructor(keepBytes = Number.POSITIVE_INFINITY) {
    if (keepBytes < PREFIX_BYTES) throw new RangeError(`keepBytes must hold the ${PREFIX_BYTES}-byte prefix`);
    this.frame = new KeptBytes(keepBytes);
  }

  push(chunk: Uint8Array): LengthPrefixedFrame[] {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const frames: LengthPrefixedFrame[] = [];
    let offset = 0;
    while (offset < buf.length) {
      if (this.announced === undefined) {
        offset = this.take(buf, offset, PREFIX_BYTES - this.frame.total);
        if (this.frame.total < PREFIX_BYTES) break;
        this.announced = this.frame.first(PREFIX_BYTES).readUInt32BE(0);
      }
      offset = this.take(buf, offset, PREFIX_BYTES + this.announced - this.frame.total);
      if (this.frame.total === PREFIX_BYTES + this.announced) frames.push(this.emit());
    }
    return frames;
  }

  /** Bytes left over when the stream ended mid-frame (the client calls this an error). */
  end(): TrailingBytes | undefined {
    if (this.frame.total === 0) return undefined;
    const { raw, total } = this.frame.take();
    this.announced = undefined;
    return { raw, totalBytes: total };
  }

  /** The payload length the frame being read announces, once its prefix has arrived. */
  nextLength(): number | undefined {
    return this.announced;
  }

  /** Adds up to `wanted` bytes of `buf` from `offset` to the frame; returns the new offset. */
  private take(buf: Buffer, offset: number, wanted: number): number {
    const end = Math.min(buf.length, offset + wanted);
    this.frame.add(buf.subarray(offset, end));
    return end;
  }

  private emit(): LengthPrefixedFrame {
    const { raw, total } = this.frame.take();
    this.announced = undefined;
    const frame: LengthPrefixedFrame = { raw, totalBytes: total };
    if (raw.length === total) frame.payload = raw.subarray(PREFIX_BYTES);
    return frame;
  }
}
