import { OP, type DecodedOp, type RecorderOp } from './recorder-ops.js';

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

/**
 * Where an op holds its bytes (push: the chunk, record: the raw message); an encoded op holds their length
 * there. The payloads lie in the batch's buffer in op order, so each one's offset is the sum of the lengths
 * before it: an offset per op would be an array more per WebSocket frame, made on the forwarding thread,
 * serialised and parsed again in the worker.
 */
const PAYLOAD_AT = 2;
const RAW_AT = 3;

/** A batch's ops encoded, their payloads still where capture left them, in op order. */
export interface EncodedOps {
  ops: string;
  payload: Uint8Array[];
  payloadBytes: number;
}

/**
 * Encodes `ops`, whose payloads add up to `payloadBytes`. The ops are rewritten in place (their
 * bytes become their lengths): the caller hands the batch over and keeps nothing of it. A value JSON has
 * no form for (undefined) in an op tuple arrives as null. The payloads are
 * not copied here: the spool writes them from where they are, the worker gets them packed.
 * Ops hold only JSON-safe values: strings, finite numbers, booleans, plain objects and arrays.
 */
export function encodeOps(ops: RecorderOp[], payloadBytes: number): EncodedOps {
  const payload: Uint8Array[] = [];
  let offset = 0;
  // Several views (the chunks of one read) lie consecutive in the payload, so one length covers them
  // all: the worker gets one Buffer.
  const place = (views: Uint8Array | readonly Uint8Array[]): number => {
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
    return offset - start;
  };
  // In place: the op tuples are the caller's no more.
  const encoded = ops as unknown[][];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op[0] === OP.push) encoded[i][PAYLOAD_AT] = place(op[2]);
    else if (op[0] === OP.record) encoded[i][RAW_AT] = place(op[3]);
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
  let offset = 0;
  for (const op of ops) {
    const at = op[0] === OP.push ? PAYLOAD_AT : op[0] === OP.record ? RAW_AT : -1;
    if (at < 0) continue;
    const length = op[at] as number;
    if (offset + length > batch.bytes.byteLength) throw new RangeError(`a recorder batch's ops name ${offset + length} payload bytes, more than the ${batch.bytes.byteLength} it holds`);
    op[at] = Buffer.from(batch.bytes, offset, length);
    offset += length;
  }
  return ops as DecodedOp[];
}
