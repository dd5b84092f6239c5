import type { Transform } from 'node:stream';
import type { HttpContext, Sender } from '../../core/message.js';
import { SseFramer } from '../../framing/sse-framer.js';
import { LengthPrefixedFramer, MAX_PROTO_FRAME_BYTES } from '../../framing/length-prefixed-framer.js';
import { KeptBytes } from '../../framing/kept-bytes.js';
import { sseStartOf, type SseStart } from '../../framing/sse-start.js';
import type { BodyKind, BodyTap, BodyTapSpec, ExchangeSink } from './recording-sink.js';

export type { BodyKind, BodyTap } from './recording-sink.js';
import { protoDecodeCost } from '../../judge/proto-decode-cost.js';
import { CATALOG_SUMMARY } from '../../protocols/catalog-summary.js';
import { bindingOfMediaType } from '../../protocols/binding-media-type.js';
import type { WireBinding } from '../../protocols/protocol.js';

export function bodyKindOf(contentType: string | undefined): BodyKind {
  // The usual REST response, without splitting the header.
  if (contentType === 'application/json') return 'json';
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'text/event-stream') return 'sse';
  // A protocol's binary encoding (AG-UI's protobuf), by its media type: the AG-UI client compares
  // the whole header with ===, and a parameter makes it treat the body as SSE; framed as announced still.
  // From the catalog's summary: the capture thread tells bodies apart without the protocols' facts.
  if (bindingOfMediaType(CATALOG_SUMMARY.bindings, contentType) !== undefined) return 'proto';
  if (type === 'application/json' || type.endsWith('+json') || type === 'application/x-ndjson' || type === '') return 'json';
  return 'other';
}

/** Records every SSE block, including comments and keep-alives, with its exact bytes. */
export class SseTap implements BodyTap {
  private readonly framer: SseFramer;
  constructor(
    private readonly exchange: ExchangeSink,
    private readonly sender: Sender,
    /** Of a longer event only this many bytes are kept: it is stored truncated to that anyway. */
    keepBytes?: number,
  ) {
    this.framer = new SseFramer(keepBytes);
  }

  push(chunk: Buffer, at?: number): void {
    for (const frame of this.framer.push(chunk)) this.record(frame, at);
  }

  end(_complete: boolean, at?: number): void {
    for (const frame of this.framer.end()) this.record(frame, at);
  }

  /** `at`: the arrival of the chunk that completed the frame. */
  private record(frame: ReturnType<SseFramer['end']>[number], at: number | undefined): void {
    if (frame.totalBytes > frame.raw.length) {
      // Too long to keep whole: stored truncated with its size, not parsed.
      this.exchange.record(this.sender, frame.raw, { carrier: 'event', totalBytes: frame.totalBytes, at });
      return;
    }
    if (frame.data === undefined) {
      this.exchange.record(this.sender, frame.raw, { carrier: 'event', channel: 'comment', json: false, at });
      return;
    }
    this.exchange.record(this.sender, frame.raw, { carrier: 'event', payload: frame.data, at });
  }
}

/**
 * Splits a body in a protocol's binary encoding (its WireBinding: AG-UI's protobuf) into frames and
 * records each decoded message with its raw bytes.
 * The decoder is loaded on the first such stream; chunks that arrive meanwhile wait, in order.
 * A body that opens like SSE (`data:`, `event:`, `id:`, a `:` comment) is an SSE stream sent under
 * the protobuf type: it is kept whole as one message that says so, not read as a frame announcing
 * some 1.7 billion bytes (`data` read as a length).
 */
export class ProtoTap implements BodyTap {
  /** Frames the client accepts are kept whole, to be decoded; of a longer one only its start. */
  private readonly framer = new LengthPrefixedFramer(4 + MAX_PROTO_FRAME_BYTES);
  private waiting: Array<{ chunk: Buffer; at?: number }> | undefined;
  private readonly loaded: Promise<void> | undefined;
  /** The body's first bytes while too few have come to tell SSE from protobuf; undefined once told. */
  private head: Buffer | undefined = Buffer.alloc(0);
  /** Set when the body opens like SSE: how it opens, and the body (its start, when long). */
  private sse: { start: SseStart; body: KeptBytes } | undefined;
  private readonly binding: WireBinding;

  constructor(
    private readonly exchange: ExchangeSink,
    private readonly sender: Sender,
    /** Heap the decoding of one frame may take (see protoDecodeCost). */
    private readonly decodeBudget: number,
    /** The catalog's binding of the `proto` channel (bindingOfChannel), found by the recorder. */
    binding: WireBinding | undefined,
  ) {
    // bodyKindOf says `proto` only for a binding's media type.
    if (binding === undefined) throw new Error('a proto body with no protocol declaring a binary binding');
    this.binding = binding;
    if (!binding.settled()) {
      this.waiting = [];
      this.loaded = binding.load().then(() => {
        const waiting = this.waiting ?? [];
        this.waiting = undefined;
        for (const { chunk, at } of waiting) this.push(chunk, at);
      });
    }
  }

  push(chunk: Buffer, at?: number): void {
    if (this.waiting) {
      this.waiting.push({ chunk, at });
      return;
    }
    let bytes = chunk;
    if (this.head !== undefined) {
      bytes = this.head.length === 0 ? chunk : Buffer.concat([this.head, chunk]);
      const start = sseStartOf(bytes);
      if (start === 'more') {
        this.head = Buffer.from(bytes);
        return;
      }
      this.head = undefined;
      if (start !== 'no') this.sse = { start, body: new KeptBytes(4 + MAX_PROTO_FRAME_BYTES) };
    }
    if (this.sse) this.sse.body.add(bytes);
    else this.frame(bytes, at);
  }

  end(_complete: boolean, at?: number): Promise<void> | void {
    if (this.waiting) return this.loaded!.then(() => this.endNow(at));
    this.endNow(at);
  }

  private frame(chunk: Buffer, at: number | undefined): void {
    for (const frame of this.framer.push(chunk)) {
      if (!frame.payload) {
        this.exchange.record(this.sender, frame.raw, {
          carrier: 'event',
          channel: 'proto',
          parseError: `a protobuf frame of ${frame.totalBytes - 4} bytes, more than the client's ${MAX_PROTO_FRAME_BYTES}-byte limit; not decoded`,
          totalBytes: frame.totalBytes,
          at,
        });
        continue;
      }
      const cost = protoDecodeCost(frame.payload, this.decodeBudget);
      if (cost > this.decodeBudget) {
        this.exchange.record(this.sender, frame.raw, { carrier: 'event', channel: 'proto', parseCost: cost, at });
        continue;
      }
      const decoded = this.binding.decode(frame.payload);
      this.exchange.record(this.sender, frame.raw, { carrier: 'event', channel: 'proto', value: decoded.value, parseError: decoded.error, at });
    }
  }

  private endNow(at?: number): void {
    // A body shorter than any SSE line start: framed as what it was announced as.
    if (this.head !== undefined && this.head.length > 0) this.frame(this.head, at);
    this.head = undefined;
    if (this.sse) {
      const { raw, total } = this.sse.body.take();
      this.exchange.record(this.sender, raw, {
        carrier: 'event',
        channel: 'proto',
        parseError: `the body looks like SSE (\`${this.sse.start}\`) but the content type says ${this.binding.encoding} (${this.binding.mediaType}): the ${this.binding.client} client reads it as length-prefixed frames and fails; an SSE body is sent as text/event-stream`,
        ...(total > raw.length ? { totalBytes: total } : {}),
        at,
      });
      return;
    }
    const announced = this.framer.nextLength();
    const rest = this.framer.end();
    if (rest) {
      const over = announced !== undefined && announced > MAX_PROTO_FRAME_BYTES ? ` (its frame announced ${announced} bytes, more than the client's limit)` : '';
      this.exchange.record(this.sender, rest.raw, {
        carrier: 'event',
        channel: 'proto',
        parseError: `the binary stream ended mid-frame: ${rest.totalBytes} trailing bytes could not be read as a complete message${over}`,
        ...(rest.totalBytes > rest.raw.length ? { totalBytes: rest.totalBytes } : {}),
        at,
      });
    }
  }
}

/** Collects a whole body (up to the limit) and records it as one message when it ends. */
export class WholeBodyTap implements BodyTap {
  private readonly chunks: Buffer[] = [];
  private stored = 0;
  private total = 0;
  constructor(
    private readonly exchange: ExchangeSink,
    private readonly sender: Sender,
    private readonly limit: number,
    private readonly json: boolean,
    private readonly http: HttpContext | undefined,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.stored > this.limit) return;
    const room = this.limit + 1 - this.stored;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(kept);
    this.stored += kept.length;
  }

  /** `at`: the end of the body, which is when the message is complete. */
  end(_complete: boolean, at?: number): void {
    if (this.total === 0) return;
    const body = Buffer.concat(this.chunks, this.stored);
    this.exchange.record(this.sender, body, { carrier: 'body', json: this.json, totalBytes: this.total, http: this.http, at });
  }
}

/** Bodies up to this size are collected where they are captured (CollectedBodyTap). */
export const COLLECTED_BODY_BYTES = 64 * 1024;

/**
 * A whole, uncompressed body collected in the capture thread and handed to the recorder as one
 * message, which is what the recorder's whole-body tap would store: a small REST body then costs
 * one hand-over instead of a tap, its chunks and its end. Past `limit` bytes it opens a regular tap
 * and streams the rest, so a large body never waits in the capture thread.
 */
export class CollectedBodyTap implements BodyTap {
  private chunks: Buffer[] = [];
  private size = 0;
  private tap?: BodyTap;
  constructor(
    private readonly exchange: ExchangeSink,
    private readonly spec: BodyTapSpec,
    private readonly limit = COLLECTED_BODY_BYTES,
  ) {}

  /** Only bodies the recorder would store whole and as they are qualify. */
  static fits(spec: BodyTapSpec): boolean {
    return (spec.kind === 'json' || spec.kind === 'other') && codingOf(spec.contentEncoding) === undefined;
  }

  push(chunk: Buffer, at?: number): void {
    if (this.tap) return this.tap.push(chunk, at);
    // A copy: socket chunks are views into larger buffers, which must not stay pinned meanwhile.
    this.chunks.push(Buffer.from(chunk));
    this.size += chunk.length;
    if (this.size <= this.limit) return;
    this.tap = this.exchange.tap(this.spec);
    for (const collected of this.chunks) this.tap.push(collected, at);
    this.chunks = [];
  }

  end(complete: boolean, at?: number): Promise<void> | void {
    if (this.tap) return this.tap.end(complete, at);
    // As WholeBodyTap: an empty body is no message, and a cut one is stored as far as it came.
    if (this.size === 0) return;
    const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    this.chunks = [];
    const { sender, kind, http } = this.spec;
    this.exchange.record(sender, body, { carrier: 'body', json: kind === 'json', totalBytes: this.size, http, at });
  }
}

/**
 * Feeds the tap the decoded bytes of a compressed body. The client gets the compressed bytes
 * untouched; only this copy is inflated.
 */
export function decodingTap(encoding: string | undefined, inner: BodyTap): BodyTap {
  const decoder = decoderFor(encoding);
  if (!decoder) return inner;
  let failed = false;
  // Decoded bytes come out later than the compressed chunk went in; they carry that chunk's arrival time.
  let lastAt: number | undefined;
  decoder.on('data', (chunk: Buffer) => inner.push(chunk, lastAt));
  decoder.on('error', () => {
    failed = true;
  });
  return {
    push(chunk, at) {
      lastAt = at;
      if (!failed) decoder.write(chunk);
    },
    end(complete, at) {
      lastAt = at ?? lastAt;
      if (failed) return inner.end(false, lastAt);
      return new Promise<void>((resolve) => {
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          resolve(inner.end(complete && !failed, lastAt));
        };
        decoder.once('end', finish);
        decoder.once('error', finish);
        decoder.end();
        // A truncated stream never emits 'end'; the flush above has delivered what could be decoded.
        if (!complete) setImmediate(() => decoder.destroy());
        decoder.once('close', finish);
      }).then(() => undefined);
    },
  };
}

/** node:zlib is loaded for the first compressed body, not at every recorder's start. */
function decoderFor(encoding: string | undefined): Transform | undefined {
  const { createBrotliDecompress, createGunzip, createInflate, constants: zlib } = process.getBuiltinModule('node:zlib');
  const options = { flush: zlib.Z_SYNC_FLUSH, finishFlush: zlib.Z_SYNC_FLUSH };
  switch (codingOf(encoding)) {
    case 'gzip':
      return createGunzip(options);
    case 'deflate':
      return createInflate(options);
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** The compression a Content-Encoding names, when it is one the tap decodes. */
function codingOf(encoding: string | undefined): 'gzip' | 'deflate' | 'br' | undefined {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return 'gzip';
    case 'deflate':
      return 'deflate';
    case 'br':
      return 'br';
    default:
      return undefined;
  }
}
