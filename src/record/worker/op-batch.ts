import { OP, type DecodedOp, type RecorderOp } from './recorder-ops.js';

/** Where an op's bytes lie in its batch's byte buffer: [offset, length]. */
export type ByteSpan = readonly [number, number];

/**
 * A batch of recorder ops as it crosses to the recording worker (or waits in the spool): the ops as
 * one JSON string, and every payload they carry packed into one buffer that the ops point into.
 *
 * Structured clone writes every property name of every op and costs the forwarding thread about
 * five times what JSON.stringify does for the same ops, and a string crosses a thread as one copy.
 * Payloads stay binary: they can be any bytes, and the buffer is handed over without a copy.
 */
export interface EncodedBatch {
  ops: string;
  bytes: ArrayBuffer;
}

/** Where an op holds its bytes (push: the chunk, record: the raw message); an encoded op holds a ByteSpan there. */
const PAYLOAD_AT = 2;
const RAW_AT = 3;

/** A batch's ops encoded, their payloads still where capture left them, in span order. */
export interface EncodedOps {
  ops: string;
  payload: Uint8Array[];
  payloadBytes: number;
}

/**
 * Encodes `ops`, whose payloads add up to `payloadBytes`. The ops are rewritten in place (their
 * bytes become spans): the caller hands the batch over and keeps nothing of it. A value JSON has
 * no form for (undefined) in an op tuple arrives as null. The payloads are
 * not copied here: the spool writes them from where they are, the worker gets them packed.
 * Ops hold only JSON-safe values: strings, finite numbers, booleans, plain objects and arrays.
 */
export function encodeOps(ops: RecorderOp[], payloadBytes: number): EncodedOps {
  const payload: Uint8Array[] = [];
  let offset = 0;
  // Several views (the chunks of one read) lie consecutive in the payload, so one span covers them
  // all: the worker gets one Buffer.
  const span = (views: Uint8Array | readonly Uint8Array[]): ByteSpan => {
    const start = offset;
    if (views instanceof Uint8Array) {
      payload.push(views);
      offset += views.byteLength;
    } else {
      for (const view of views) {
        payload.push(view);
        offset += view.byteLength;
      }
    }
    return [start, offset - start];
  };
  // In place: the op tuples are the caller's no more.
  const encoded = ops as unknown[][];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op[0] === OP.push) encoded[i][PAYLOAD_AT] = span(op[2]);
    else if (op[0] === OP.record) encoded[i][RAW_AT] = span(op[3]);
  }
  if (offset !== payloadBytes) throw new RangeError(`a recorder batch holds ${offset} payload bytes, not the ${payloadBytes} counted`);
  return { ops: JSON.stringify(encoded), payload, payloadBytes };
}

/** The batch to post: payloads packed into one buffer, which is transferred rather than copied again. */
export function packBatch(encoded: EncodedOps): EncodedBatch {
  // Socket chunks are often views into larger allocations: packing sends only the bytes used.
  // Not zero-filled (every byte is written below) and not from the shared pool (it is transferred).
  const packed = Buffer.allocUnsafeSlow(encoded.payloadBytes);
  let offset = 0;
  for (const view of encoded.payload) {
    packed.set(view, offset);
    offset += view.byteLength;
  }
  return { ops: encoded.ops, bytes: packed.buffer as ArrayBuffer };
}

/** The worker's side: the ops back, their payloads as Buffers over the batch buffer (no copy). */
export function decodeBatch(batch: EncodedBatch): DecodedOp[] {
  const ops = JSON.parse(batch.ops) as unknown[][];
  const view = ([offset, length]: ByteSpan) => Buffer.from(batch.bytes, offset, length);
  for (const op of ops) {
    if (op[0] === OP.push) op[PAYLOAD_AT] = view(op[PAYLOAD_AT] as ByteSpan);
    else if (op[0] === OP.record) op[RAW_AT] = view(op[RAW_AT] as ByteSpan);
  }
  return ops as DecodedOp[];
}
