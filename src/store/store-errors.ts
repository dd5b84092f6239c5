import { ProxyError, type StoreErrorCode } from '../core/errors.js';

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

/** A stored JSON column that does not parse: the file was damaged, or written by another tool. */
export class CorruptColumnError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CorruptColumnError';
  }
}

/** Parses a JSON column of a stored row; `exchange` and `seq` say which row (neither: the recording row), for the error. */
export function jsonColumn(text: string, column: string, exchange?: number, seq?: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const row = exchange === undefined ? 'the recording row' : seq === undefined ? `exchange ${exchange}` : `exchange ${exchange} message ${seq}`;
    throw new CorruptColumnError(`${row}: ${column} is not JSON: ${messageOf(error)}`, { cause: error });
  }
}

/** Runs `read`, turning a corrupt stored column into "<file>: not a recording (…)". */
export function readingRows<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof CorruptColumnError) throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (${error.message})`, { cause: error });
    throw error;
  }
}
