import { ProxyError } from '../core/errors.js';

/** The error codes the store raises; each is also in the core `ErrorCode` union. */
export type StoreErrorCode =
  | 'E_STORE_OPEN'
  | 'E_STORE_NOT_RECORDING'
  | 'E_STORE_VERSION'
  | 'E_STORE_EXISTS'
  | 'E_STORE_WRITE'
  | 'E_STORE_STATE';

/** A failure of the recording store, with the file it concerns. */
export class StoreError extends ProxyError {
  declare readonly code: StoreErrorCode;
  /** The recording file, as resolved by the store. */
  readonly file: string;
  constructor(code: StoreErrorCode, file: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.file = file;
    this.name = 'StoreError';
  }
}

/** The SQLite result code of a better-sqlite3 error (`SQLITE_NOTADB`, `SQLITE_CANTOPEN`, ...), if it is one. */
export function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
