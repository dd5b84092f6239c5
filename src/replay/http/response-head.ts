import { endToEndHeaders } from '../../net/headers.js';
import type { Substitution } from '../../match/correlation.js';
import type { ScriptExchange } from '../replay-script.js';

/**
 * Headers replay never copies from the recording: the framing headers describe the bytes that
 * travelled then, and the recording stores bodies decoded (a gzip body was recorded inflated), so
 * the replay sends identity bytes and frames them itself.
 */
const REFRAMED = ['content-length', 'content-encoding', 'transfer-encoding', 'date'];

/**
 * The recorded response headers as raw name/value pairs (original spelling and order), minus
 * hop-by-hop and framing headers, with live values substituted for echoed ones.
 */
export function recordedResponseHeaders(exchange: ScriptExchange, substitution: Substitution): string[] {
  const raw: string[] = [];
  for (const [name, value] of Object.entries(exchange.responseHeaders ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) raw.push(name, substitution.applyText(v));
  }
  return endToEndHeaders(raw, { drop: REFRAMED });
}

export function hasHeader(raw: readonly string[], name: string): boolean {
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === name) return true;
  return false;
}

/** Did the recorded response carry a Content-Length (rather than chunked framing)? */
export function hadContentLength(exchange: ScriptExchange): boolean {
  return Object.keys(exchange.responseHeaders ?? {}).some((k) => k.toLowerCase() === 'content-length');
}
