import { closeSync, openSync, readSync } from 'node:fs';
import { NDJSON_FORMAT } from './ndjson-format.js';

/** The SQLite file header's first 16 bytes. */
export const SQLITE_MAGIC = 'SQLite format 3\0';

/** The first `length` bytes of a file (fewer when it is shorter); throws when it cannot be read. */
export function readFileHead(path: string, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(length);
    return head.subarray(0, readSync(fd, head, 0, length, 0));
  } finally {
    closeSync(fd);
  }
}

/** How every export begins: a recording cut short inside its first line still starts this way. */
const EXPORT_START = /^\{\s*"type"\s*:\s*"recording"\s*,\s*"format"\s*:\s*"agent-proxy\/ndjson"/;

/**
 * Is this text (the start of a file is enough) an agent-proxy NDJSON recording? Its first line is
 * the recording line; one that is cut short or broken but starts as an export does counts too, so
 * that the importer can say what is wrong with it.
 */
export function isNdjsonRecordingText(text: string): boolean {
  const end = text.indexOf('\n');
  const first = (end < 0 ? text : text.slice(0, end)).replace(/^\uFEFF/, '').trim();
  if (!first.startsWith('{')) return false;
  try {
    const value = JSON.parse(first) as { type?: unknown; format?: unknown };
    return value.type === 'recording' && value.format === NDJSON_FORMAT;
  } catch {
    return EXPORT_START.test(first);
  }
}
