import { closeSync, openSync, writeSync } from 'node:fs';
import type { RecordingReader } from '../store/recording-reader.js';
import { partialPath, publishFile, removeIfThere } from '../store/recording-files.js';
import { exportNdjson } from './ndjson-export.js';

/**
 * Writes a recording's NDJSON form to `out`, replacing what is there, under a temporary name
 * beside it that is renamed once complete: a failure halfway leaves the old file, never half a new one.
 */
export function writeNdjsonFile(reader: RecordingReader, out: string): void {
  const partial = partialPath(out);
  const fd = openSync(partial, 'w');
  try {
    exportNdjson(reader, (text) => writeSync(fd, text));
  } catch (error) {
    closeSync(fd);
    removeIfThere(partial);
    throw error;
  }
  closeSync(fd);
  publishFile(partial, out, true);
}
