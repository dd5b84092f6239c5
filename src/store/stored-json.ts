/**
 * A message's JSON text is stored once: most messages carry it byte for byte inside their raw bytes
 * (a body, a frame or a line is its JSON; an SSE event ends with its `data:` line), so the file keeps
 * only where it starts (`messages.json_at`) and `messages.json` is NULL. Only a JSON text the raw
 * bytes do not hold as it is (re-serialised from spaced or escaped text, an event of several data
 * lines, a redacted value, a JSON line a protocol made of binary bytes) is stored in `json` (format 7;
 * older rows all have `json`). The JSON text runs from `json_at` to the last byte of raw that is not
 * white space, which SQLite can read too (storedJsonSql).
 */
import { rawBytesSql } from './raw-blocks.js';

/** How far the JSON text of raw runs: up to its last byte that is not a space, tab, LF or CR. */
export function jsonEnd(raw: Uint8Array): number {
  let end = raw.length;
  for (;;) {
    const byte = raw[end - 1];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return end;
    end--;
  }
}

/**
 * Where `json` starts in `raw`, when raw holds it byte for byte up to its trailing white space;
 * null when it does not (then `json` is stored as it is).
 */
export function jsonStartIn(raw: Buffer, json: string): number | null {
  const end = jsonEnd(raw);
  const start = end - Buffer.byteLength(json);
  if (start < 0) return null;
  // U+FFFD: the decoder's stand-in for bytes that are not UTF-8, which SQLite would read as they are.
  if (raw.toString('utf8', start, end) !== json || json.includes('\uFFFD')) return null;
  return start;
}

/** The JSON text stored at `start` of `raw` (jsonStartIn's). */
export function jsonTextAt(raw: Buffer, start: number): string {
  return raw.toString('utf8', start, jsonEnd(raw));
}

/** A message row's JSON text, wherever it is stored; null when the message is not JSON. */
export function storedJsonText(m: { raw: Uint8Array; json: string | null; jsonAt: number | null }): string | null {
  if (m.json !== null || m.jsonAt === null) return m.json;
  const raw = Buffer.isBuffer(m.raw) ? m.raw : Buffer.from(m.raw.buffer, m.raw.byteOffset, m.raw.byteLength);
  return jsonTextAt(raw, m.jsonAt);
}

/** The same in SQL, for a query over `messages` (`alias`: the table's alias in it): the JSON text or NULL. */
export function storedJsonSql(alias?: string): string {
  const c = alias === undefined ? '' : `${alias}.`;
  return `coalesce(${c}json, CASE WHEN ${c}json_at IS NOT NULL THEN rtrim(CAST(substr(${rawBytesSql(alias)}, ${c}json_at + 1) AS TEXT), char(32, 9, 10, 13)) END)`;
}
