import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileHead, SQLITE_MAGIC } from './file-head.js';
import { RecordingReader } from './recording-reader.js';
import { StoreError } from './store-errors.js';
import { importNdjsonFile, isNdjsonRecordingText } from './ndjson-import.js';
import { NDJSON_FORMAT } from './ndjson-format.js';

/** Does the file start like an agent-proxy NDJSON recording (whatever its extension)? */
export function isNdjsonRecording(path: string): boolean {
  try {
    return isNdjsonRecordingText(readFileHead(path, 4096).toString('utf8'));
  } catch {
    return false;
  }
}

/** Does the file start with the SQLite header? */
export function isSqliteFile(path: string): boolean {
  try {
    return readFileHead(path, 16).toString('latin1') === SQLITE_MAGIC;
  } catch {
    return false;
  }
}

/**
 * Opens a recording given as `.db` or as its NDJSON text form (told apart by content, not by
 * extension). An NDJSON recording is imported into a temporary .db that is deleted when the
 * reader is closed (or, at the latest, when the process exits).
 */
export function openRecording(path: string): RecordingReader {
  // One read of the file's head tells the three apart: a .db (opened without decoding its first page as text), NDJSON, neither.
  let head: Buffer | undefined;
  try {
    head = readFileHead(path, 4096);
  } catch {
    // Unreadable, or missing: the store says why.
  }
  if (head === undefined || head.toString('latin1', 0, 16) === SQLITE_MAGIC) return RecordingReader.open(path);
  if (!isNdjsonRecordingText(head.toString('utf8'))) {
    const problem = notRecordingReasonOfHead(head);
    if (problem !== undefined) throw new StoreError('E_STORE_NOT_RECORDING', path, `${path}: not a recording (${problem})`);
    return RecordingReader.open(path);
  }
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-ndjson-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', cleanup);
  try {
    const db = join(dir, 'recording.db');
    // A copy to read, of the file as it is.
    importNdjsonFile(path, db, { scratch: true, keepSecrets: 'all' });
    const reader = RecordingReader.open(db);
    const close = reader.close.bind(reader);
    reader.close = () => {
      close();
      cleanup();
      process.off('exit', cleanup);
    };
    return reader;
  } catch (error) {
    cleanup();
    process.off('exit', cleanup);
    throw error;
  }
}

/**
 * Why a file that exists is neither kind of recording, judged from its first bytes; undefined when
 * it starts like an SQLite database (the store says more), or cannot be read (the store says why).
 */
export function notRecordingReason(path: string): string | undefined {
  let head: Buffer;
  try {
    head = readFileHead(path, 4096);
  } catch {
    return undefined;
  }
  return notRecordingReasonOfHead(head);
}

/** notRecordingReason, of the file's first 4096 bytes (fewer when it is shorter). */
function notRecordingReasonOfHead(head: Buffer): string | undefined {
  if (head.length === 0) return 'the file is empty';
  if (head.toString('latin1', 0, 16) === SQLITE_MAGIC) return undefined;
  if (head.includes(0)) return 'binary data: neither an SQLite recording nor NDJSON text';
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const end = text.indexOf('\n');
  const first = (end < 0 ? text : text.slice(0, end)).trim();
  const expected = `a recording is an agent-proxy .db, or NDJSON whose first line is {"type":"recording","format":"${NDJSON_FORMAT}",…}`;
  if (looksLikeJson(first)) return `JSON, but ${expected}; validate checks a file of protocol messages`;
  return `text, but ${expected}`;
}

/** Parses as JSON, or starts as a pretty-printed JSON object or array does. */
function looksLikeJson(firstLine: string): boolean {
  if (firstLine === '{' || firstLine === '[') return true;
  try {
    JSON.parse(firstLine);
    return /^[[{]/.test(firstLine);
  } catch {
    return false;
  }
}
