import { readFileHead, SQLITE_MAGIC } from './file-head.js';
import { RecordingReader } from './recording-reader.js';

/**
 * openRecording, for a caller that can wait: a file that starts with the SQLite header is opened as
 * openRecording opens it, without loading the NDJSON importer and the recording writer it imports
 * with (~60 KB of the bundle, a few ms of every start of `replay`, `show`, `findings` and `export`
 * of a .db); anything else goes to openRecording itself, which tells NDJSON from the rest.
 */
export async function openRecordingAsync(path: string): Promise<RecordingReader> {
  if (startsAsSqlite(path)) return RecordingReader.open(path);
  const { openRecording } = await import('./open-recording.js');
  return openRecording(path);
}

function startsAsSqlite(path: string): boolean {
  try {
    return readFileHead(path, 16).toString('latin1') === SQLITE_MAGIC;
  } catch {
    return false;
  }
}
