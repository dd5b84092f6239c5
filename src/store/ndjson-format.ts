import type { ExchangeRow } from './store-types.js';
import type { Finding } from '../core/finding.js';
import type { VerdictStatus } from '../core/verdict.js';

/** The `format` value of the first line of an agent-proxy NDJSON recording. */
export const NDJSON_FORMAT = 'agent-proxy/ndjson';
/** The version of the NDJSON text form (independent of the SQLite format version). */
export const NDJSON_VERSION = 1;

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
 * One line per message. Exactly one of `raw` (the bytes as UTF-8 text, when they are valid UTF-8)
 * and `rawBase64` (otherwise) is present; `json` is absent when the message was not JSON.
 */
export interface NdjsonMessageLine {
  type: 'message';
  exchange: number;
  seq: number;
  sender: 'client' | 'server';
  carrier: 'body' | 'event' | 'frame' | 'line';
  channel: string | null;
  tOffsetMs: number;
  raw?: string;
  rawBase64?: string;
  rawTruncatedFrom: number | null;
  json?: unknown;
  verdict: { status: VerdictStatus; schemaRef: string | null; reason: string | null; findings: Finding[] };
}

export type NdjsonLine = NdjsonRecordingLine | NdjsonExchangeLine | NdjsonMessageLine;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `{raw}` when the bytes are valid UTF-8, else `{rawBase64}`. */
export function encodeRaw(raw: Uint8Array): { raw: string } | { rawBase64: string } {
  try {
    return { raw: UTF8.decode(raw) };
  } catch {
    return { rawBase64: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') };
  }
}

export function decodeRaw(line: { raw?: unknown; rawBase64?: unknown }): Buffer | undefined {
  if (typeof line.raw === 'string') return Buffer.from(line.raw, 'utf8');
  if (typeof line.rawBase64 === 'string') return Buffer.from(line.rawBase64, 'base64');
  return undefined;
}
