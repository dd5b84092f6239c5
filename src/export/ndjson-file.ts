import type { RecordingReader } from '../store/recording-reader.js';
import { ndjsonByteChunks } from './ndjson-export.js';
import { writeWholeFile } from './whole-file.js';

/**
 * Writes a recording's NDJSON form to `out` whole or not at all (writeWholeFile): replacing what is
 * there, unless `overwrite` is false (`export` without --overwrite).
 */
export function writeNdjsonFile(reader: RecordingReader, out: string, overwrite = true, onMessage?: () => void): void {
  writeWholeFile(out, overwrite, (write) => {
    for (const chunk of ndjsonByteChunks(reader, onMessage)) write(chunk);
  });
}
