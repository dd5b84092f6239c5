import { RecordingReader } from '../store/recording-reader.js';
import { ChunkPool, ndjsonByteChunks } from './ndjson-export.js';
import { writeWholeFile } from './whole-file.js';

/**
 * Writes a recording's NDJSON form to `out` whole or not at all (writeWholeFile): replacing what is
 * there, unless `overwrite` is false (`export` without --overwrite).
 */
export function writeNdjsonFile(reader: RecordingReader, out: string, overwrite = true, onMessage?: () => void): void {
  // The CLI's reader, read for this alone: its rows once, in order.
  RecordingReader.readsOnce(reader);
  writeWholeFile(out, overwrite, (write) => {
    // Written synchronously: each chunk is filled again for the next.
    const pool = new ChunkPool();
    for (const chunk of ndjsonByteChunks(reader, onMessage, pool)) {
      write(chunk);
      pool.give(chunk);
    }
  });
}
