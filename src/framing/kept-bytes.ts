/** Pieces shorter than this are copied together rather than kept as views of their chunks. */
const SMALL_PIECE_BYTES = 1024;
/** The buffer small pieces are copied into: small at first (most messages are), then this big. */
const FIRST_SLAB_BYTES = 2 * 1024;
const SLAB_BYTES = 16 * 1024;

/**
 * The bytes of one message being framed (a line, an SSE block, a protobuf frame), collected as they
 * arrive, of which only the first `limit` are kept while the rest are counted: a peer that sends a
 * gigabyte in one message must not make the recorder hold what it will store truncated anyway.
 *
 * Large pieces are kept as views of the chunks they came in and copied once, by `take`. Small ones
 * are copied together into a slab first: a message that arrives a byte at a time must not become
 * millions of views, each a heap object many times the size of its byte. So the pieces held number
 * at most about two per kilobyte kept, whatever the chunking.
 */
export class KeptBytes {
  private parts: Buffer[] = [];
  /** Bytes kept. */
  private keptLength = 0;
  /** Where small pieces are copied to; the part of it from `slabStart` to `slabUsed` is not in `parts` yet. */
  private slab?: Buffer;
  private slabStart = 0;
  private slabUsed = 0;
  /** Bytes seen, kept or not. */
  total = 0;

  constructor(private readonly limit = Number.POSITIVE_INFINITY) {}

  /** More was seen than can be kept. */
  get over(): boolean {
    return this.total > this.limit;
  }

  /** How many bytes are kept. */
  get length(): number {
    return this.keptLength;
  }

  add(bytes: Buffer): void {
    if (bytes.length === 0) return;
    const room = this.limit - this.keptLength;
    if (room > 0) {
      const part = bytes.length <= room ? bytes : bytes.subarray(0, room);
      if (part.length < SMALL_PIECE_BYTES) this.gather(part);
      else {
        this.closeSlab();
        this.parts.push(part);
      }
      this.keptLength += part.length;
    }
    this.total += bytes.length;
  }

  /** Counts `n` bytes seen and not kept (nor looked at). */
  skip(n: number): void {
    this.total += n;
  }

  /** The first `n` bytes kept (`n` within what is kept). */
  first(n: number): Buffer {
    this.closeSlab();
    return this.parts[0].length >= n ? this.parts[0] : Buffer.concat(this.parts, n);
  }

  /** What was kept, as one new buffer (the chunks may be views into larger buffers), and how much was seen; then starts again. */
  take(): { raw: Buffer; total: number } {
    this.closeSlab();
    const taken = { raw: Buffer.concat(this.parts, this.keptLength), total: this.total };
    this.parts = [];
    this.keptLength = 0;
    this.total = 0;
    this.slab = undefined;
    this.slabStart = 0;
    this.slabUsed = 0;
    return taken;
  }

  private gather(piece: Buffer): void {
    if (this.slab === undefined || this.slab.length - this.slabUsed < piece.length) {
      this.closeSlab();
      // The first from the shared pool (cheap, and held only until `take`), larger ones on their own.
      this.slab = this.slab === undefined ? Buffer.allocUnsafe(FIRST_SLAB_BYTES) : Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.slabStart = 0;
      this.slabUsed = 0;
    }
    piece.copy(this.slab, this.slabUsed);
    this.slabUsed += piece.length;
  }

  /** Moves what the slab has gathered into `parts`, in its place in the order. */
  private closeSlab(): void {
    if (this.slab === undefined || this.slabUsed === this.slabStart) return;
    this.parts.push(this.slab.subarray(this.slabStart, this.slabUsed));
    this.slabStart = this.slabUsed;
  }
}
