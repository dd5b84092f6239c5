/**
 * The bytes of one message being framed (a line, an SSE block, a protobuf frame), collected as they
 * arrive, of which only the first `limit` are kept while the rest are counted: a peer that sends a
 * gigabyte in one message must not make the recorder hold what it will store truncated anyway.
 * Parts are kept as views of the chunks they came in and copied once, by `take`.
 */
export class KeptBytes {
  private parts: Buffer[] = [];
  /** Bytes kept. */
  private keptLength = 0;
  /** Bytes seen, kept or not. */
  total = 0;

  constructor(private readonly limit = Number.POSITIVE_INFINITY) {}

  /** More was seen than can be kept. */
  get over(): boolean {
    return this.total > this.limit;
  }

  add(bytes: Buffer): void {
    if (bytes.length === 0) return;
    const room = this.limit - this.keptLength;
    if (room > 0) {
      const part = bytes.length <= room ? bytes : bytes.subarray(0, room);
      this.parts.push(part);
      this.keptLength += part.length;
    }
    this.total += bytes.length;
  }

  /** The first `n` bytes kept (`n` within what is kept). */
  first(n: number): Buffer {
    return this.parts[0].length >= n ? this.parts[0] : Buffer.concat(this.parts, n);
  }

  /** What was kept, as one new buffer (the chunks may be views into larger buffers), and how much was seen; then starts again. */
  take(): { raw: Buffer; total: number } {
    const taken = { raw: Buffer.concat(this.parts, this.keptLength), total: this.total };
    this.parts = [];
    this.keptLength = 0;
    this.total = 0;
    return taken;
  }
}
