/** One length-prefixed frame: 4-byte big-endian length, then the payload. */
export interface LengthPrefixedFrame {
  /** Prefix and payload, exactly as they travelled. */
  raw: Buffer;
  payload: Buffer;
}

/** The AG-UI client refuses frames over 10 MB; so do we, as a finding rather than a crash. */
export const MAX_PROTO_FRAME_BYTES = 10 * 1024 * 1024;

/**
 * Splits the AG-UI protobuf binding (`application/vnd.ag-ui.event+proto`) into frames.
 * Frames abut with no separator and may be split across chunks.
 */
export class LengthPrefixedFramer {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Uint8Array): LengthPrefixedFrame[] {
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const frames: LengthPrefixedFrame[] = [];
    let offset = 0;
    while (this.pending.length - offset >= 4) {
      const length = this.pending.readUInt32BE(offset);
      if (this.pending.length - offset - 4 < length) break;
      const raw = this.pending.subarray(offset, offset + 4 + length);
      frames.push({ raw: Buffer.from(raw), payload: Buffer.from(raw.subarray(4)) });
      offset += 4 + length;
    }
    this.pending = this.pending.subarray(offset);
    return frames;
  }

  /** Bytes left over when the stream ended mid-frame (the client calls this an error). */
  end(): Buffer | undefined {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    return rest.length > 0 ? Buffer.from(rest) : undefined;
  }

  /** The length the next frame announces, once its prefix has arrived; for oversize checks. */
  nextLength(): number | undefined {
    return this.pending.length >= 4 ? this.pending.readUInt32BE(0) : undefined;
  }
}
