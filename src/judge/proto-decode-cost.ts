/** Heap a decoded sub-message can take: @ag-ui/proto makes an object with every field defaulted and checks it (measured ~860 bytes for an empty one). */
const MESSAGE_COST = 1024;
/** ... and each field. */
const FIELD_COST = 64;
/** Nesting read before the rest is assumed to be as costly as it could be. */
const MAX_DEPTH = 16;

/**
 * About how much JS heap decoding an AG-UI protobuf payload would take, in bytes, erring high; or 0
 * when even the worst payload of this size stays within `budget`, which is then not looked at.
 *
 * A decoded sub-message costs hundreds of times its two bytes on the wire (a MESSAGES_SNAPSHOT of
 * 100,000 empty messages is 200 KB and decodes to 86 MB), so the recorder reads the wire format
 * first, without the schema: every length-delimited field whose bytes read as a message is counted
 * as one, with its fields. A string that happens to read as a message is counted too: high, not low.
 */
export function protoDecodeCost(payload: Uint8Array, budget: number): number {
  if ((payload.length / 2) * MESSAGE_COST <= budget) return 0;
  const counted = countMessage(payload, 0, payload.length, 0);
  return payload.length + (counted < 0 ? 0 : counted);
}

/**
 * The cost of the fields in [start, end) read as a message, with those of every length-delimited
 * field that reads as a message too; -1 when the bytes are not a message.
 */
function countMessage(buf: Uint8Array, start: number, end: number, depth: number): number {
  let cost = 0;
  let i = start;
  while (i < end) {
    const tag = readVarint(buf, i, end);
    if (tag === undefined) return -1;
    i = tag.next;
    const wireType = tag.value % 8;
    if (tag.value < 8) return -1; // field number 0
    if (wireType === 0) {
      const value = readVarint(buf, i, end);
      if (value === undefined) return -1;
      i = value.next;
    } else if (wireType === 1) i += 8;
    else if (wireType === 5) i += 4;
    else if (wireType === 2) {
      const length = readVarint(buf, i, end);
      if (length === undefined || length.next + length.value > end) return -1;
      i = length.next;
      const inner = depth < MAX_DEPTH ? countMessage(buf, i, i + length.value, depth + 1) : ((length.value + 1) / 2) * MESSAGE_COST;
      if (inner >= 0) cost += MESSAGE_COST + inner;
      i += length.value;
    } else return -1; // groups (deprecated) and reserved wire types: not what the decoder reads
    cost += FIELD_COST;
  }
  return i === end ? cost : -1;
}

function readVarint(buf: Uint8Array, at: number, end: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = at; i < end && i < at + 10; i++) {
    value += (buf[i] & 0x7f) * scale;
    if (buf[i] < 0x80) return { value, next: i + 1 };
    scale *= 128;
  }
  return undefined;
}
