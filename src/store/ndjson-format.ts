import type { ExchangeRow } from './store-types.js';
import type { Finding } from '../core/finding.js';
import type { VerdictStatus } from '../core/verdict.js';

/** The `format` value of the first line of an agent-proxy NDJSON recording. */
export const NDJSON_FORMAT = 'agent-proxy/ndjson';
/**
 * The version of the NDJSON text form (independent of the SQLite format version). 2: a message line
 * leaves out what is null or empty, and a message whose bytes hold its JSON as it is written carries
 * that JSON once, as `rawJson` between `rawBefore` and `rawAfter`. 3: a verdict's `schemaRef` is left
 * out when it is the one derived for the message (ndjson-derived-ref.ts), the verdict when it is then
 * plain valid, and an `event`'s `rawBefore` and `rawAfter` when they are `data: ` and a blank line
 * (RAW_AROUND). Version 1 and 2 lines are read too.
 */
export const NDJSON_VERSION = 3;

/** What a version 3 line's `rawBefore` and `rawAfter` are when it leaves them out, by carrier: an SSE event's `data: ` and its blank line. */
export const RAW_AROUND: Readonly<Record<string, { before: string; after: string }>> = {
  event: { before: 'data: ', after: '\n\n' },
  body: { before: '', after: '' },
  frame: { before: '', after: '' },
  line: { before: '', after: '' },
};

/** RAW_AROUND of a line of this version (before 3, none are left out). */
export function rawAround(version: number, carrier: string): { before: string; after: string } {
  return version >= 3 && Object.hasOwn(RAW_AROUND, carrier) ? RAW_AROUND[carrier] : NO_RAW_AROUND;
}

const NO_RAW_AROUND = { before: '', after: '' };

/** Line 1: the recording itself. Keys are always written in this order. */
export interface NdjsonRecordingLine {
  type: 'recording';
  format: typeof NDJSON_FORMAT;
  version: number;
  toolVersion: string;
  target: string | null;
  listen: string | null;
  mode: string;
  startedAt: string;
  endedAt: string | null;
  schemaHashes: Record<string, string>;
  /** The version of the rules its verdicts were made by; absent in a recording older than the first stored one. */
  rulesVersion?: number;
}

/** One line per exchange, before the lines of its messages (an export writes every exchange line first, then the messages in id order). */
export type NdjsonExchangeLine = { type: 'exchange' } & Omit<ExchangeRow, 'messageCount' | 'invalidCount' | 'uncheckedCount'>;

/**
 * One line per message; a field that is null (or an empty list of findings) is left out, and so is
 * the verdict when it is plain valid with the derived ref (version 3). The bytes are in one of three forms:
 * - `rawJson` (the last key): a message whose bytes are `rawBefore`, then its JSON written as
 *   JSON.stringify writes it, then `rawAfter` (white space): an SSE event `data: {…}\n\n`, a frame, a
 *   line or a body. The JSON is written once, as JSON, not as a string. Left out, `rawBefore` and
 *   `rawAfter` are RAW_AROUND's for the carrier (version 3), or '' (versions 1 and 2);
 * - `raw` (the bytes as UTF-8 text, when they are valid UTF-8) or `rawBase64` (otherwise), with
 *   `jsonAt` when the message's JSON text is raw's from that byte to its trailing white space, or
 *   `json` (its value) when raw does not hold it as it is, or neither when the message is not JSON.
 * Version 1 lines always have `raw` or `rawBase64`, every null field, and `json` for every JSON message.
 */
export interface NdjsonMessageLine {
  type: 'message';
  exchange: number;
  seq: number;
  sender: 'client' | 'server';
  carrier: 'body' | 'event' | 'frame' | 'line';
  channel?: string | null;
  tOffsetMs: number;
  rawTruncatedFrom?: number | null;
  /** Absent (version 3): valid, with the derived ref. Its `schemaRef` absent (version 3): the derived one; null: none. */
  verdict?: { status: VerdictStatus; schemaRef?: string | null; reason?: string | null; findings?: Finding[] };
  raw?: string;
  rawBase64?: string;
  jsonAt?: number;
  json?: unknown;
  rawBefore?: string;
  rawAfter?: string;
  rawJson?: unknown;
}

export type NdjsonLine = NdjsonRecordingLine | NdjsonExchangeLine | NdjsonMessageLine;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as text when they are valid UTF-8; undefined otherwise. */
export function utf8Text(raw: Uint8Array): string | undefined {
  try {
    return UTF8.decode(raw);
  } catch {
    return undefined;
  }
}

/** `{raw}` when the bytes are valid UTF-8, else `{rawBase64}`. */
export function encodeRaw(raw: Uint8Array): { raw: string } | { rawBase64: string } {
  const text = utf8Text(raw);
  return text !== undefined ? { raw: text } : { rawBase64: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') };
}

export function decodeRaw(line: { raw?: unknown; rawBase64?: unknown }): Buffer | undefined {
  if (typeof line.raw === 'string') return Buffer.from(line.raw, 'utf8');
  if (typeof line.rawBase64 === 'string') return Buffer.from(line.rawBase64, 'base64');
  return undefined;
}
