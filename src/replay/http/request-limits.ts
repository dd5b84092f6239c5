import { nestsDeeperThan } from '../../core/json-depth.js';
import { UsageError } from '../../core/errors.js';
import { parseByteSize } from '../../core/byte-size.js';

/**
 * What replay holds of one request to match it: a body, a WebSocket frame or a line of at most
 * this many bytes (`--max-request-body`). The same 10 MiB as `record --max-body`: a recording made
 * with the default keeps at most that much of a body, so nothing longer could match anyway.
 */
export const DEFAULT_MAX_REQUEST_BYTES = 10 * 1024 * 1024;

/** The flag that sets it, named in every refusal. */
export const MAX_REQUEST_FLAG = '--max-request-body';

/**
 * JSON nested deeper than this is not normalized but compared byte for byte: the walks that
 * normalize and compare are recursive, and no real request nests anywhere near this deep.
 */
export const MAX_MATCH_DEPTH = 512;

/** How much of a request body a miss report quotes. */
export const MISS_ECHO_BYTES = 4096;

/** Checks a `maxRequestBytes` option (a positive whole number of bytes) or the flag's value (a size: `10MB`, `64KiB`, bytes). */
export function maxRequestBytesOf(value: number | string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_REQUEST_BYTES;
  if (typeof value === 'string') return parseByteSize(value, MAX_REQUEST_FLAG);
  if (!Number.isSafeInteger(value) || value <= 0) throw new UsageError(`${MAX_REQUEST_FLAG} '${value}' is not a positive whole number of bytes`);
  return value;
}

/** Too deep for the recursive normalizer: such JSON is matched byte for byte. */
export function tooDeepToNormalize(text: Uint8Array): boolean {
  return nestsDeeperThan(text, MAX_MATCH_DEPTH);
}

/** What a miss report says about a body: its size, and at most MISS_ECHO_BYTES of it. */
export interface BodyEcho {
  /** The parsed JSON when the whole body is short JSON, else the start of it as text. */
  body?: unknown;
  /** The body's whole size in bytes. */
  bodyBytes?: number;
  /** True when `body` is only the first MISS_ECHO_BYTES. */
  bodyTruncated?: true;
  /** True when the body is JSON nested deeper than MAX_MATCH_DEPTH, so it was compared byte for byte. */
  bodyTooDeep?: true;
}

/** The echo of a body for a miss report; `json` parses a short one when it is JSON (undefined if not). */
export function bodyEcho(raw: Buffer, json: (raw: Buffer) => unknown): BodyEcho {
  if (raw.length === 0) return {};
  const echo: BodyEcho = { bodyBytes: raw.length };
  if (raw.length <= MISS_ECHO_BYTES) {
    const value = json(raw);
    echo.body = value !== undefined ? value : raw.toString('utf8');
  } else {
    echo.body = utf8Prefix(raw, MISS_ECHO_BYTES);
    echo.bodyTruncated = true;
  }
  if (tooDeepToNormalize(raw) && isJson(raw)) echo.bodyTooDeep = true;
  return echo;
}

/** The first `max` bytes as text, not cutting a UTF-8 character in two. */
export function utf8Prefix(raw: Buffer, max: number): string {
  let end = Math.min(raw.length, max);
  // Step back over continuation bytes (10xxxxxx) to the start of the character that was cut.
  if (end < raw.length) while (end > 0 && (raw[end] & 0xc0) === 0x80) end--;
  return raw.toString('utf8', 0, end);
}

function isJson(raw: Buffer): boolean {
  try {
    JSON.parse(raw.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}
