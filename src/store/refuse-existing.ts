import { existsSync, statSync } from 'node:fs';
import { existsError } from './recording-files.js';

/** Refuses to write over an existing non-empty file unless overwriting was asked for (E_STORE_EXISTS). */
export function refuseExistingRecording(path: string, overwrite = false): void {
  if (!overwrite && existsSync(path) && statSync(path).size > 0) throw existsError(path);
}
