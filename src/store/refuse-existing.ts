import { existsSync, statSync } from 'node:fs';
import { StoreError } from './store-errors.js';

/** Refuses to record over an existing non-empty file unless overwriting was asked for (E_STORE_EXISTS). */
export function refuseExistingRecording(path: string, overwrite = false): void {
  if (!overwrite && existsSync(path) && statSync(path).size > 0) {
    throw new StoreError('E_STORE_EXISTS', path, `${path} already exists; choose another file or allow overwriting it`);
  }
}
