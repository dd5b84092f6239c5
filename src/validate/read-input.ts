import type { LoadedInput, ReadProgress } from './message-source.js';
import { isRecordingFile, readMessageFile } from './message-file.js';
import { recordingInput } from './recording-input.js';

/**
 * Reads a file of messages in any of the forms `proxy validate` accepts: a JSON array, NDJSON/JSONL,
 * a raw SSE body, a capture document (`{records:[...]}`), or a recording (.db or its NDJSON form),
 * which is told by its first bytes and read by the store. A malformed input names the file and line.
 */
export function readInput(file: string): LoadedInput {
  return readInputReporting(file);
}

/** readInput, telling `progress` how far the reading of a recording is (the CLI's progress line); a file is read at once. */
export function readInputReporting(file: string, progress?: ReadProgress): LoadedInput {
  return isRecordingFile(file) ? recordingInput(file, progress) : readMessageFile(file);
}
