// A row that holds several messages of a stream, as `node bench/record-floor.js --pack N` measures it: a
// recording format to cost, not the recording format (which stores a `messages` row per message). One
// `message_packs` row per run of N consecutive messages of an exchange holds what their N rows hold today:
//   raw         their bytes, concatenated in seq order
//   meta        per message PACK_STRIDE bytes, little-endian: t_offset_ms (float64), the end of its bytes in
//               raw (uint32), seq (uint32), schema_ref_id (uint32, 0: none), json_at (uint16, 0xffff: none),
//               sender, carrier and channel (one byte: their indexes in SENDERS, CARRIERS and CHANNELS), a byte unused
//   exceptions  what is not the plain case, as the real format keeps `messages_invalid` for the few invalid
//               rows: a verdict other than valid with no finding, a JSON text kept apart, a text schema ref, a
//               cut body; JSON [[index, status, reason, findingCount, json, schemaRef, rawTruncatedFrom], …],
//               null when every message of the pack is plain
// and the indexes such a table needs: by exchange and first seq (unique, as `messages_by_exchange`: the readers'
// way to an exchange's messages in order, and to one message by seq), and the packs with an exception (as
// `messages_invalid`).
import { Buffer } from 'node:buffer';

export const PACK_TABLE_SQL = `
CREATE TABLE message_packs (
  id           INTEGER PRIMARY KEY,
  exchange_id  INTEGER NOT NULL REFERENCES exchanges (id),
  first_seq    INTEGER NOT NULL,
  count        INTEGER NOT NULL,
  raw          BLOB NOT NULL,
  meta         BLOB NOT NULL,
  exceptions   TEXT
);
CREATE UNIQUE INDEX message_packs_by_exchange ON message_packs (exchange_id, first_seq);
CREATE INDEX message_packs_flagged ON message_packs (id) WHERE exceptions IS NOT NULL;
`;

/** The table's columns for the store's ChunkedInsert, made with a build's column helpers (store/columns.js). */
export const packColumns = ({ requiredInteger, blob, text }) => ({
  id: requiredInteger('id'),
  exchangeId: requiredInteger('exchange_id'),
  firstSeq: requiredInteger('first_seq'),
  count: requiredInteger('count'),
  raw: blob('raw'),
  meta: blob('meta'),
  exceptions: text('exceptions'),
});

export const PACK_STRIDE = 24;
const NO_JSON_AT = 0xffff;
export const SENDERS = ['client', 'server'];
export const CARRIERS = ['body', 'event', 'frame', 'line'];
export const CHANNELS = [null, 'text', 'binary', 'ping', 'pong', 'close', 'stdin', 'stdout', 'stderr'];

/** The byte that says a message's sender, carrier and channel (computed once per stream, not per message). */
export function messageKind(sender, carrier, channel) {
  const s = SENDERS.indexOf(sender);
  const c = CARRIERS.indexOf(carrier);
  const h = CHANNELS.indexOf(channel);
  if (s < 0 || c < 0 || h < 0) throw new RangeError(`no kind for ${sender} / ${carrier} / ${channel}`);
  return (s << 7) | (c << 4) | h;
}

/**
 * Gathers one exchange's messages N at a time. `add` takes a message (`raw` is held as given, a view, until
 * its pack is taken: then copied once into the pack's raw) and says whether the pack is full; `take` hands out
 * the pack's row and begins the next.
 */
export class PackBuilder {
  constructor(size) {
    if (!Number.isInteger(size) || size < 1 || size > 0xffff) throw new RangeError(`a pack holds 1 to 65,535 messages, not ${size}`);
    this.size = size;
    this.views = [];
    this.begin();
  }

  begin() {
    this.views.length = 0;
    this.count = 0;
    this.bytes = 0;
    this.firstSeq = 0;
    this.meta = Buffer.allocUnsafe(this.size * PACK_STRIDE);
    this.at = new DataView(this.meta.buffer, this.meta.byteOffset, this.meta.length);
    this.exceptions = undefined;
  }

  /**
   * One message: its bytes, time stamp, seq, kind (messageKind), where its JSON starts in raw (null: none),
   * its schema ref's id (null: none), and its exception (undefined: the plain case, a valid verdict with no
   * finding; else { status, reason, findingCount, json, schemaRef, rawTruncatedFrom }).
   */
  add(raw, tOffsetMs, seq, kind, jsonAt, schemaRefId, exception) {
    // A JSON text that starts further in than this is kept apart, in the exception's json, as `json` is today.
    if (jsonAt !== null && !(jsonAt >= 0 && jsonAt < NO_JSON_AT)) throw new RangeError(`json_at ${jsonAt}: past what a pack's meta holds`);
    const i = this.count++;
    if (i === 0) this.firstSeq = seq;
    this.views.push(raw);
    this.bytes += raw.length;
    const at = this.at;
    const o = i * PACK_STRIDE;
    at.setFloat64(o, tOffsetMs, true);
    at.setUint32(o + 8, this.bytes, true);
    at.setUint32(o + 12, seq, true);
    at.setUint32(o + 16, schemaRefId ?? 0, true);
    at.setUint16(o + 20, jsonAt ?? NO_JSON_AT, true);
    at.setUint8(o + 22, kind);
    at.setUint8(o + 23, 0);
    if (exception !== undefined) {
      (this.exceptions ??= []).push([i, exception.status, exception.reason ?? null, exception.findingCount ?? 0, exception.json ?? null, exception.schemaRef ?? null, exception.rawTruncatedFrom ?? null]);
    }
    return this.count === this.size;
  }

  /** The pack so far as a `message_packs` row (undefined when it is empty), and a new pack begun. */
  take(id, exchangeId) {
    if (this.count === 0) return undefined;
    const row = {
      id,
      exchangeId,
      firstSeq: this.firstSeq,
      count: this.count,
      raw: Buffer.concat(this.views, this.bytes),
      meta: this.count === this.size ? this.meta : this.meta.subarray(0, this.count * PACK_STRIDE),
      exceptions: this.exceptions === undefined ? null : JSON.stringify(this.exceptions),
    };
    this.begin();
    return row;
  }
}

/** A stored pack's messages, each with what its `messages` row would hold (the verdict's fields from the exceptions). */
export function unpack({ firstSeq, count, raw, meta, exceptions }) {
  if (meta.length !== count * PACK_STRIDE) throw new Error(`pack at seq ${firstSeq}: ${meta.length} bytes of meta for ${count} messages`);
  const at = new DataView(meta.buffer, meta.byteOffset, meta.length);
  const byIndex = new Map((exceptions === null ? [] : JSON.parse(exceptions)).map((e) => [e[0], e]));
  const messages = [];
  let start = 0;
  for (let i = 0; i < count; i++) {
    const o = i * PACK_STRIDE;
    const end = at.getUint32(o + 8, true);
    if (end < start || end > raw.length) throw new Error(`pack at seq ${firstSeq}: message ${i} ends at ${end}, outside ${start}..${raw.length}`);
    const jsonAt = at.getUint16(o + 20, true);
    const kind = at.getUint8(o + 22);
    const schemaRefId = at.getUint32(o + 16, true);
    const e = byIndex.get(i);
    messages.push({
      seq: at.getUint32(o + 12, true),
      tOffsetMs: at.getFloat64(o, true),
      raw: raw.subarray(start, end),
      jsonAt: jsonAt === NO_JSON_AT ? null : jsonAt,
      schemaRefId: schemaRefId === 0 ? null : schemaRefId,
      sender: SENDERS[kind >> 7],
      carrier: CARRIERS[(kind >> 4) & 7],
      channel: CHANNELS[kind & 15],
      status: e?.[1] ?? 'valid',
      reason: e?.[2] ?? null,
      findingCount: e?.[3] ?? 0,
      json: e?.[4] ?? null,
      schemaRef: e?.[5] ?? null,
      rawTruncatedFrom: e?.[6] ?? null,
    });
    start = end;
  }
  if (start !== raw.length) throw new Error(`pack at seq ${firstSeq}: ${raw.length - start} bytes of raw past its last message`);
  return messages;
}
