import type { LoadedInput } from './message-source.js';
import { isRecordingFile, readMessageFile } from './message-file.js';
import { recordingInput } from './recording-input.js';

/**
 * Reads a file of messages in any of the forms `proxy validate` accepts: a JSON array, NDJSON/JSONL,
 * a raw SSE body, a capture document (`{records:[...]}`), or a recording (.db or its NDJSON form),
 * which is told by its first bytes and read by the store. A malformed input names the file and line.
 * (The CLI takes the two paths itself, loading the store only for a recording, with a progress line.)
 */
export function readInput(file: string): LoadedInput {
  return isRecordingFile(file) ? recordingInput(file) : readMessageFile(file);
}
