/**
 * MCP 2026-07-28's encoding of a body value mirrored into a header (`Mcp-Name`, `Mcp-Param-{Name}`):
 * a value that is not plain visible ASCII (non-ASCII, control characters, leading or trailing
 * whitespace), or that looks like the sentinel itself, travels as `=?base64?{UTF-8 in Base64}?=`
 * (the Streamable HTTP transport page, "Value Encoding"). A server decodes before it compares.
 */
const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** RFC 9110's field value characters: visible ASCII, space and horizontal tab. */
const PLAIN = /^[\x20-\x7e\t]*$/;

export type DecodedHeader = { ok: true; value: string } | { ok: false; reason: string };

/** A mirrored header's value as the body would hold it, or why it cannot be read (the server's HeaderMismatch). */
export function decodeMirroredHeader(raw: string): DecodedHeader {
  const sentinel = SENTINEL.exec(raw);
  if (sentinel === null) {
    if (PLAIN.test(raw)) return { ok: true, value: raw };
    return { ok: false, reason: 'it holds characters a header value may not (only visible ASCII, space and tab), and is not in the =?base64?…?= form' };
  }
  const text = sentinel[1];
  // Padding may be left out (length % 4 of 2 or 3); a length of 1 more than a multiple of 4 is no Base64.
  if (!BASE64.test(text) || text.length % 4 === 1) return { ok: false, reason: 'its =?base64?…?= form does not hold Base64' };
  try {
    return { ok: true, value: new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'base64')) };
  } catch {
    return { ok: false, reason: 'its =?base64?…?= form does not decode to UTF-8' };
  }
}
