import type { ValidationReport } from './judge-input.js';

/** About how much JSON text is gathered before it is written out. */
const CHUNK_CHARS = 1 << 20;

/**
 * Writes `JSON.stringify(report)` in pieces, message by message, so a report of a million messages
 * never has to exist as one string (hundreds of megabytes, near V8's limit on a string's length).
 * The text is the same, key order included. `write` may return a promise to make the writer wait
 * (for a stream's drain); a boolean goes on at once.
 */
export async function writeReportJson(report: ValidationReport, write: (text: string) => boolean | Promise<void>): Promise<void> {
  const { messages, ...head } = report;
  // The fields around `messages`, in the order JSON.stringify(report) gives them.
  const keys = Object.keys(report);
  const at = keys.indexOf('messages');
  const before = JSON.stringify(Object.fromEntries(keys.slice(0, at).map((k) => [k, head[k as keyof typeof head]])));
  const after = JSON.stringify(Object.fromEntries(keys.slice(at + 1).map((k) => [k, head[k as keyof typeof head]])));
  let chunk = `${before.slice(0, -1)}${at > 0 ? ',' : ''}"messages":[`;
  for (let i = 0; i < messages.length; i++) {
    chunk += (i > 0 ? ',' : '') + JSON.stringify(messages[i]);
    if (chunk.length >= CHUNK_CHARS) {
      // Waits while the reader is behind, so memory holds one chunk, not the whole report.
      const written = write(chunk);
      if (written !== true && written !== false) await written;
      chunk = '';
    }
  }
  await write(`${chunk}]${after === '{}' ? '' : ',' + after.slice(1, -1)}}\n`);
}
