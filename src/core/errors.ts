/** Stable error codes. The CLI maps them to exit codes and the store keeps them. */
export type ErrorCode =
  | 'E_USAGE'
  | 'E_INPUT_UNREADABLE'
  | 'E_INPUT_MALFORMED'
  | 'E_SCHEMA_LOAD'
  | 'E_PROTOCOL_UNKNOWN'
  /** An address given to listen on cannot be used (in use, no permission, no such address). */
  | 'E_LISTEN'
  /** The recording file cannot be opened (missing, unreadable, locked). */
  | 'E_STORE_OPEN'
  /** The file is not a recording: not SQLite, or SQLite without the recording tables. */
  | 'E_STORE_NOT_RECORDING'
  /** The recording was written by a newer format version than this build knows. */
  | 'E_STORE_VERSION'
  /** `record` would overwrite an existing recording. */
  | 'E_STORE_EXISTS'
  /** A batch could not be written (disk full, I/O error); later rows are dropped. */
  | 'E_STORE_WRITE'
  /** The recording worker ended (out of memory, a bug) while traffic was forwarded; nothing later is recorded. */
  | 'E_RECORDER_EXITED'
  /** The writer was used wrongly: closed, or an unknown exchange/message id. */
  | 'E_STORE_STATE'
  /** better-sqlite3's native module cannot load (built for another Node.js, or not built). */
  | 'E_STORE_NATIVE';

export class ProxyError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'ProxyError';
  }
}

export class UsageError extends ProxyError {
  constructor(message: string) {
    super('E_USAGE', message);
    this.name = 'UsageError';
  }
}

export class InputError extends ProxyError {
  /** The file and 1-based line the problem is on, when known. */
  readonly file?: string;
  readonly line?: number;
  constructor(code: 'E_INPUT_UNREADABLE' | 'E_INPUT_MALFORMED', message: string, where?: { file?: string; line?: number; cause?: unknown }) {
    super(code, message, { cause: where?.cause });
    this.file = where?.file;
    this.line = where?.line;
    this.name = 'InputError';
  }
}

export class SchemaLoadError extends ProxyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_SCHEMA_LOAD', message, options);
    this.name = 'SchemaLoadError';
  }
}
