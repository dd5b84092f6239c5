import { compactJson, stringifyJson } from '../core/json-text.js';
import { copyExchangeColumns } from '../store/exchange-record.js';
import { RecordingReader } from '../store/recording-reader.js';
import type { MessageTextRow, RecordingInfo } from '../store/store-types.js';
import type { ExchangeFields } from '../store/schema.js';
import { NUMBER_TEXT_MOST, numberText, writeNumberText } from './ascii-number.js';
import { LineHeads, NO_PART, type HeadPart } from './ndjson-line-head.js';
import { NDJSON_FORMAT, NDJSON_VERSION, encodeRaw, rawAround, utf8Text, type NdjsonExchangeLine, type NdjsonMessageLine, type NdjsonRecordingLine } from '../store/ndjson-format.js';
import { jsonEnd, jsonStartIn } from '../store/stored-json.js';
import { tryParseJson } from '../core/json.js';

/**
 * Writes a recording as NDJSON: the recording line, then every exchange, then every message in the
 * order record judged them (across exchanges: an MCP session's answers on its GET stream come between
 * the POSTs they answer, and `validate` of the file judges them again in that order, as the import
 * keeps it). Keys are always in the same order and nothing depends on the clock, so exporting the
 * same recording twice (or an imported copy of it) gives the same bytes. `write` gets whole lines;
 * `onMessage` is told of each message written (the CLI's progress line).
 */
export function exportNdjson(reader: RecordingReader, write: (text: string) => void, onMessage?: () => void): void {
  let chunk = '';
  const line = (head: string, json: string | undefined): void => {
    chunk += json === undefined ? `${head}\n` : `${head}${json}}\n`;
    if (chunk.length >= CHUNK_CHARS) {
      write(chunk);
      chunk = '';
    }
  };
  const sink: LineSink = { line, message: (parts) => line(messageHeadText(parts), parts.json) };
  for (const _ of ndjsonLinePages(reader, sink, onMessage));
  if (chunk.length > 0) write(chunk);
}

/**
 * exportNdjson as UTF-8 bytes, in chunks of about a MiB of whole lines (each its own Buffer, never
 * written to again): each line is encoded into the chunk as it is made, which costs less than
 * encoding a MiB string built of a few thousand lines (a tree of pieces, flattened first).
 */
export function* ndjsonByteChunks(reader: RecordingReader, onMessage?: () => void, pool?: ChunkPool): IterableIterator<Buffer> {
  const chunks = new ByteChunks(pool);
  for (const _ of ndjsonLinePages(reader, chunks, onMessage)) {
    yield* chunks.full;
    chunks.full.length = 0;
  }
  const last = chunks.last();
  if (last !== undefined) yield last;
}

/**
 * The chunks ndjsonByteChunks fills, given back once their bytes are written, to be filled again: a
 * new MiB is 256 pages of memory the kernel maps on first touch (~1 in 6 of an export's page faults).
 * Whoever gives one back must not read it again.
 */
export class ChunkPool {
  private readonly free: Buffer[] = [];

  /** A chunk to fill: one given back, else a new one. */
  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
  }

  /** `chunk` (a chunk ndjsonByteChunks yielded) is written: its memory may be filled again. */
  give(chunk: Buffer): void {
    // A chunk made bigger for one long line is not kept.
    if (chunk.buffer.byteLength === CHUNK_BYTES && chunk.byteOffset === 0 && this.free.length < KEPT_CHUNKS) this.free.push(Buffer.from(chunk.buffer));
  }
}

/** At most this many chunks wait to be filled again (a pipe holds a few in flight). */
const KEPT_CHUNKS = 4;

/** Lines encoded into chunks of about a MiB (ndjsonByteChunks): those filled wait in `full`. */
class ByteChunks implements LineSink {
  readonly full: Buffer[] = [];
  private readonly pool: ChunkPool | undefined;
  private chunk: Buffer;
  private used = 0;

  constructor(pool: ChunkPool | undefined) {
    this.pool = pool;
    this.chunk = pool?.take() ?? Buffer.allocUnsafe(CHUNK_BYTES);
  }

  /** A line as LineSink hands it: `head`, then `json` and `}`, then the newline. */
  line(head: string, json: string | undefined): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8; then `}` and the newline.
    const chunk = this.room((head.length + (json === undefined ? 0 : json.length)) * 3 + 2);
    let used = this.used;
    used += chunk.write(head, used);
    if (json !== undefined) {
      used += chunk.write(json, used);
      chunk[used++] = 0x7d;
    }
    chunk[used++] = 0x0a;
    this.used = used;
  }

  /**
   * A plain message's line, its head written part by part: a kept part's bytes copied, the numbers'
   * digits written, so that no head string is joined (and flattened, and encoded) for each line.
   */
  message(line: MessageLine): void {
    const json = line.json;
    const most = partMost(line.exchange) + partMost(line.route) + partMost(line.verdict) + partMost(line.before) + partMost(line.after) + 2 * NUMBER_TEXT_MOST + RAW_JSON.length + json.length * 3 + 2;
    const chunk = this.room(most);
    let used = putPart(chunk, this.used, line.exchange);
    used = writeNumberText(chunk, used, line.seq);
    used = putPart(chunk, used, line.route);
    used = writeNumberText(chunk, used, line.tOffsetMs);
    used = putPart(chunk, used, line.verdict);
    used = putPart(chunk, used, line.before);
    used = putPart(chunk, used, line.after);
    used = putBytes(chunk, used, RAW_JSON);
    used += chunk.write(json, used);
    chunk[used++] = 0x7d;
    chunk[used++] = 0x0a;
    this.used = used;
  }

  /** The chunk to write a line of at most `most` bytes into, at `used`: this one, or the next once it is full. */
  private room(most: number): Buffer {
    const chunk = this.chunk;
    if (this.used + most <= chunk.length) return chunk;
    if (this.used > 0) this.full.push(chunk.subarray(0, this.used));
    this.used = 0;
    return (this.chunk = most <= CHUNK_BYTES && this.pool !== undefined ? this.pool.take() : Buffer.allocUnsafe(Math.max(CHUNK_BYTES, most)));
  }

  /** What is left once every line was added. */
  last(): Buffer | undefined {
    return this.used > 0 ? this.chunk.subarray(0, this.used) : undefined;
  }
}

/**
 * exportNdjson to a stream that can be full (stdout on a pipe), as bytes (ndjsonByteChunks): when
 * `write` says it is (returns false, as a stream's write does), waits for `drained` before reading on,
 * so that an export is never queued in memory whole. `write` calls `written` once the chunk's bytes
 * are written (a stream's write callback), and does not read the chunk after: its memory is filled again.
 * The reader's rows are read once (RecordingReader.readsOnce): the CLI's reader, read for this alone.
 */
export async function exportNdjsonPaced(reader: RecordingReader, write: (chunk: Buffer, written: () => void) => boolean, drained: () => Promise<void>, onMessage?: () => void): Promise<void> {
  RecordingReader.readsOnce(reader);
  const pool = new ChunkPool();
  for (const chunk of ndjsonByteChunks(reader, onMessage, pool)) if (!write(chunk, () => pool.give(chunk))) await drained();
}

/**
 * Where the export's lines go as they are made, without their newlines: `line` gets `head`, or, for a
 * message whose JSON text the line takes as it is, `head`, that text and `}`: the text is written into
 * the chunk from the string the reader made (a slice of raw's text) instead of a line joined of it,
 * which encoding copies whole first. `message` gets a plain message's line (most of them) in parts.
 */
interface LineSink {
  line(head: string, json: string | undefined): void;
  message(line: MessageLine): void;
}

/**
 * A plain message's line (raw's text whole, not cut: plainMessageLine): its head's parts in the
 * line's order, each number between two parts, then `"rawJson":` and its JSON text, then `}`.
 */
interface MessageLine {
  exchange: HeadPart;
  seq: number;
  route: HeadPart;
  tOffsetMs: number;
  verdict: HeadPart;
  before: HeadPart;
  after: HeadPart;
  json: string;
}

/** A MessageLine's head as text, up to its JSON text. */
function messageHeadText(line: MessageLine): string {
  return `${line.exchange.text}${line.seq}${line.route.text}${numberText(line.tOffsetMs)}${line.verdict.text}${line.before.text}${line.after.text}${RAW_JSON_TEXT}`;
}

const RAW_JSON_TEXT = ',"rawJson":';
const RAW_JSON = Buffer.from(RAW_JSON_TEXT, 'latin1');

/** The most bytes a part takes. */
function partMost(part: HeadPart): number {
  return part.bytes === undefined ? part.text.length * 3 : part.bytes.length;
}

/** Writes a part into `chunk` at `used` and returns where it ends: its bytes copied, or its text encoded. */
function putPart(chunk: Buffer, used: number, part: HeadPart): number {
  return part.bytes === undefined ? used + chunk.write(part.text, used) : putBytes(chunk, used, part.bytes);
}

/** Copies a part's bytes (TypedArray#set: a copy of memory, ~4× cheaper than a loop over a part's few dozen bytes). */
function putBytes(chunk: Buffer, used: number, bytes: Uint8Array): number {
  if (bytes.length > 0) chunk.set(bytes, used);
  return used + bytes.length;
}

/**
 * Hands the export's lines to `line` in order, and yields after the recording's and exchanges' lines
 * and after each page of messages, so that the caller passes on what they made a page at a time: one
 * step of a generator per page, not per line.
 */
function* ndjsonLinePages(reader: RecordingReader, sink: LineSink, onMessage?: () => void): IterableIterator<void> {
  // Read before writing anything, so that a damaged recording row or exchange fails with no output.
  const recording = recordingLine(reader.recording());
  const exchanges = RecordingReader.exchangeColumns(reader);
  const protocols = new Map(exchanges.map((e) => [e.id, e.protocol]));
  sink.line(JSON.stringify(recording), undefined);
  for (const exchange of exchanges) sink.line(JSON.stringify(exchangeLine(exchange)), undefined);
  yield;
  const pieces: LinePieces = { head: '', json: undefined };
  const parts: MessageLine = { exchange: NO_PART, seq: 0, route: NO_PART, tOffsetMs: 0, verdict: NO_PART, before: NO_PART, after: NO_PART, json: '' };
  const heads = new LineHeads();
  for (const page of RecordingReader.messagePagesWithTextInOrder(reader)) {
    for (const message of page) {
      const protocol = protocols.get(message.exchangeId) ?? null;
      if (plainMessageLine(message, protocol, parts, heads)) sink.message(parts);
      else {
        messageLinePieces(message, protocol, pieces, heads);
        sink.line(pieces.head, pieces.json);
      }
      onMessage?.();
    }
    yield;
  }
}

/** A line in the pieces LineSink takes. */
interface LinePieces {
  head: string;
  json: string | undefined;
}

/** About this many characters, or bytes, are written at a time. */
const CHUNK_CHARS = 1 << 20;
const CHUNK_BYTES = 1 << 20;

/** The whole export as one string (small recordings, tests). */
export function exportNdjsonText(reader: RecordingReader): string {
  const parts: string[] = [];
  exportNdjson(reader, (t) => parts.push(t));
  return parts.join('');
}

export function recordingLine(info: RecordingInfo): NdjsonRecordingLine {
  return {
    type: 'recording',
    format: NDJSON_FORMAT,
    version: NDJSON_VERSION,
    toolVersion: info.toolVersion,
    target: info.target ?? null,
    listen: info.listen ?? null,
    mode: info.mode,
    startedAt: info.startedAt,
    endedAt: info.endedAt ?? null,
    schemaHashes: info.schemaHashes,
    ...(info.rulesVersion === undefined ? {} : { rulesVersion: info.rulesVersion }),
  };
}

/** The exchange's columns, in column order (store/schema.ts), after `type`. */
export function exchangeLine(e: ExchangeFields): NdjsonExchangeLine {
  return copyExchangeColumns(e, { type: 'exchange' as const });
}

/**
 * A message's line (store/ndjson-format.ts), null fields left out, written as text field by field
 * (no object is built for the head: this runs once per message of an export). When its bytes are some
 * text, its JSON as JSON.stringify writes it, and white space (an SSE event, a frame, a body), the
 * JSON is written once, as the last key `rawJson`; otherwise the bytes are `raw` (or `rawBase64`)
 * with `jsonAt` when they hold a JSON text of the same value, or the value as `json`. The verdict is
 * left out when it is plain valid with the ref derived for it (`protocol`: its exchange's), and its
 * ref when it is that one. The line depends on the bytes and the value only, not on how the file
 * stores them.
 */
export function messageLineText(m: MessageTextRow, protocol: string | null = null): string {
  const { head, json } = messageLinePieces(m, protocol, { head: '', json: undefined }, new LineHeads());
  return json === undefined ? head : `${head}${json}}`;
}

/**
 * A plain message's line (raw's text whole, not cut: most messages) in parts, set in `line`: true;
 * false for any other message, whose line messageLinePieces makes.
 */
function plainMessageLine(m: MessageTextRow, protocol: string | null, line: MessageLine, heads: LineHeads): boolean {
  if (m.raw !== null || m.rawTruncatedFrom !== null) return false;
  line.exchange = heads.exchange(m.exchangeId);
  line.seq = m.seq;
  line.route = heads.route(m.sender, m.carrier, m.channel);
  line.tOffsetMs = m.tOffsetMs;
  line.verdict = heads.verdict(m, protocol);
  // Its JSON text, in JSON.stringify's form, and what is around it.
  const around = rawAround(NDJSON_VERSION, m.carrier);
  line.before = m.textBefore === around.before ? NO_PART : heads.member(',"rawBefore":', m.textBefore);
  line.after = m.textAfter === around.after ? NO_PART : heads.member(',"rawAfter":', m.textAfter);
  line.json = m.jsonText!;
  return true;
}

/** messageLineText in pieces (LinePieces), set in `pieces`. */
function messageLinePieces(m: MessageTextRow, protocol: string | null, pieces: LinePieces, heads: LineHeads): LinePieces {
  const parts: MessageLine = { exchange: NO_PART, seq: 0, route: NO_PART, tOffsetMs: 0, verdict: NO_PART, before: NO_PART, after: NO_PART, json: '' };
  if (plainMessageLine(m, protocol, parts, heads)) {
    pieces.head = messageHeadText(parts);
    pieces.json = parts.json;
    return pieces;
  }
  let line = `${heads.exchange(m.exchangeId).text}${m.seq}${heads.route(m.sender, m.carrier, m.channel).text}${numberText(m.tOffsetMs)}`;
  if (m.rawTruncatedFrom !== null) line += `,"rawTruncatedFrom":${JSON.stringify(m.rawTruncatedFrom)}`;
  line += heads.verdict(m, protocol).text;
  if (m.raw === null) {
    // Raw's text, whole, but cut: its JSON text, in JSON.stringify's form, and what is around it.
    const around = rawAround(NDJSON_VERSION, m.carrier);
    if (m.textBefore !== around.before) line += heads.member(',"rawBefore":', m.textBefore).text;
    if (m.textAfter !== around.after) line += heads.member(',"rawAfter":', m.textAfter).text;
    pieces.head = `${line}${RAW_JSON_TEXT}`;
    pieces.json = m.jsonText;
    return pieces;
  }
  pieces.head = rawLine(line, m as WithRaw);
  pieces.json = undefined;
  return pieces;
}

type WithRaw = MessageTextRow & { raw: Buffer };

/** The rest of a message's line from its bytes: `rawJson` when they hold its JSON text as JSON.stringify writes it, else otherFormLine. */
function rawLine(line: string, m: WithRaw): string {
  // Nested too deep to be handed out parsed (deepJson), a value is written as `json`, as before. The
  // stored text is taken as it is when JSON.stringify writes it the same.
  const text = m.jsonText ?? (m.json === undefined ? undefined : stringifyJson(m.json));
  if (text !== undefined) {
    const at = spliceAt(m.raw, text);
    if (at !== null) {
      const around = rawAround(NDJSON_VERSION, m.carrier);
      if (!startsWithText(m.raw, at, around.before)) {
        const before = at === 0 ? '' : utf8Text(m.raw.subarray(0, at));
        if (before === undefined) return otherFormLine(line, m, text);
        line += `,"rawBefore":${JSON.stringify(before)}`;
      }
      const end = jsonEnd(m.raw);
      if (!endsWithText(m.raw, end, around.after)) line += `,"rawAfter":${JSON.stringify(m.raw.toString('latin1', end))}`;
      return `${line},"rawJson":${text}}`;
    }
  }
  return otherFormLine(line, m, text);
}

/** The line's bytes as `raw` (or `rawBase64`), with `jsonAt` or `json` (`text`: the value as stringifyJson writes it). */
function otherFormLine(line: string, m: WithRaw, text: string | undefined): string {
  const rest: Partial<NdjsonMessageLine> = encodeRaw(m.raw);
  const at = text === undefined ? null : jsonTextStart(m.raw, text);
  if (at !== null) rest.jsonAt = at;
  // A deep value, last, as stringifyJson writes it (as the import stores it, so that export → import →
  // export stays byte-identical): its text when already in that form, instead of parsed and written again.
  else if (m.deepJson !== undefined) return `${line},${JSON.stringify(rest).slice(1, -1)},"json":${compactJson(m.deepJson)}}`;
  else if (m.json !== undefined) rest.json = m.json;
  // stringifyJson: a message may nest deeper than JSON.stringify can go.
  return `${line},${stringifyJson(rest)!.slice(1)}`;
}

/** Where spliceAt writes a message's JSON text to compare it with its bytes, without allocating per message. */
const scratch = Buffer.allocUnsafe(1 << 16);

/**
 * Where raw holds `text` byte for byte up to its trailing white space (jsonStartIn's answer, found by
 * comparing bytes instead of decoding raw into a string again); null when it does not, or when the
 * text holds U+FFFD (the decoder's stand-in for bytes that are not UTF-8).
 */
function spliceAt(raw: Buffer, text: string): number | null {
  // A UTF-16 code unit takes at most 3 bytes of UTF-8.
  const buffer = text.length * 3 <= scratch.length ? scratch : Buffer.allocUnsafe(text.length * 3);
  const length = buffer.write(text, 0, 'utf8');
  const end = jsonEnd(raw);
  const start = end - length;
  if (start < 0 || raw.compare(buffer, 0, length, start, end) !== 0 || text.includes('\uFFFD')) return null;
  return start;
}

/** Does raw hold the (ASCII) `text` just before `at`, and nothing before it? */
function startsWithText(raw: Buffer, at: number, text: string): boolean {
  if (at !== text.length) return false;
  for (let i = 0; i < at; i++) if (raw[i] !== text.charCodeAt(i)) return false;
  return true;
}

/** Does raw end with the (ASCII) `text` from `end` on? */
function endsWithText(raw: Buffer, end: number, text: string): boolean {
  if (raw.length - end !== text.length) return false;
  for (let i = 0; i < text.length; i++) if (raw[end + i] !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * Where the bytes hold a JSON text of the value written `text` by stringifyJson, written otherwise
 * (spaced, escaped): the whole bytes, or the last line after `data:`, up to the trailing white space.
 */
function jsonTextStart(raw: Buffer, text: string): number | null {
  const end = jsonEnd(raw);
  const lineStart = raw.lastIndexOf(0x0a, end - 1) + 1;
  const candidates = [0];
  if (raw.toString('latin1', lineStart, lineStart + 5) === 'data:') candidates.push(lineStart + (raw[lineStart + 5] === 0x20 ? 6 : 5));
  for (const start of candidates) {
    const value = tryParseJson(raw.toString('utf8', start, end));
    if (value !== undefined && stringifyJson(value) === text && jsonStartIn(raw, raw.toString('utf8', start, end)) === start) return start;
  }
  return null;
}
