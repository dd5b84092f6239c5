import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RecordingReader } from '../store/recording-reader.js';
import { importNdjsonFile, isNdjsonRecordingText } from './ndjson-import.js';

/** Does the file start like an agent-proxy NDJSON recording (whatever its extension)? */
export function isNdjsonRecording(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(4096);
    const n = readSync(fd, head, 0, head.length, 0);
    return isNdjsonRecordingText(head.subarray(0, n).toString('utf8'));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Does the file start with the SQLite header? */
export function isSqliteFile(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    return n === 16 && head.toString('latin1') === 'SQLite format 3\0';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Opens a recording given as `.db` or as its NDJSON text form (told apart by content, not by
 * extension). An NDJSON recording is imported into a temporary .db that is deleted when the
 * reader is closed (or, at the latest, when the process exits).
 */
export function openRecording(path: string): RecordingReader {
  if (!isNdjsonRecording(path)) return RecordingReader.open(path);
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-ndjson-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', cleanup);
  try {
    const db = join(dir, 'recording.db');
    importNdjsonFile(resolve(path), db);
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
