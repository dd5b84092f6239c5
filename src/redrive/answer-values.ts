import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { tooDeepToWalk } from '../core/json-depth.js';

/**
 * The JSON values of an answer as the client got it: one for a JSON body, one per event of an
 * event stream; none for anything else (which carries no ids redrive can read). The body is decoded
 * as its Content-Encoding says.
 */
export function answerValues(body: Buffer, headers: Record<string, string | string[] | undefined>): unknown[] {
  const decoded = decode(body, String(headers['content-encoding'] ?? '').toLowerCase().trim());
  if (decoded === undefined) return [];
  const text = decoded.toString('utf8');
  if (String(headers['content-type'] ?? '').toLowerCase().includes('text/event-stream')) return splitSseEvents(text).flatMap(parsed);
  return parsed(text);
}

function decode(body: Buffer, encoding: string): Buffer | undefined {
  try {
    if (encoding === '' || encoding === 'identity') return body;
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(body);
    if (encoding === 'deflate') return inflateSync(body);
    if (encoding === 'br') return brotliDecompressSync(body);
  } catch {
    // A body that does not decode carries no ids we can read; the recording tells what it was.
  }
  return undefined;
}

function parsed(text: string): unknown[] {
  // A value nested too deep to walk is left unread, as every other walk of the tool leaves it.
  if (tooDeepToWalk(text)) return [];
  try {
    return [JSON.parse(text)];
  } catch {
    return [];
  }
}

/** The data of each event of an SSE stream (its `data:` lines joined by newlines), comments and empty events left out. */
function splitSseEvents(text: string): string[] {
  const events: string[] = [];
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) events.push(data.join('\n'));
      data = [];
    } else if (line.startsWith('data:')) {
      data.push(line.slice(line[5] === ' ' ? 6 : 5));
    }
  }
  if (data.length > 0) events.push(data.join('\n'));
  return events;
}
