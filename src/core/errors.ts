/**
 * Every error code agent-proxy uses, in one place, of two kinds:
 * - `ErrorCode`: the errors it raises (`ProxyError` and its subclasses, `StoreError`); library
 *   callers and tests match on `error.code`, a command prints the message as one line and exits
 *   non-zero.
 * - `ExchangeErrorCode`: what a recording keeps in `exchanges.error_code` for an exchange the proxy
 *   saw end without completing (see docs/recording-format.md). Node's own code (`ENOENT`,
 *   `ECONNREFUSED` …) goes into the stored message, never in place of the code: the same Node code
 *   means different things on different transports. (Stdio and NDJSON-socket exchanges recorded
 *   before this rule hold Node's code there.)
 *
 * Each list is a constant object whose names are its values, so `ExchangeErrorCode.E_UPSTREAM_RESET`
 * is the stored string, a search for the string finds every use, and a misspelt name does not compile.
 */

/** Takes a `{ CODE: 'CODE' }` list as it is; a name that differs from its value does not compile. */
function codeList<const T extends { readonly [K in keyof T]: K }>(codes: T): Readonly<T> {
  return Object.freeze(codes);
}

/** The codes of the recording store's errors (`StoreError`). */
export const StoreErrorCode = codeList({
  /** The recording file cannot be opened (missing, unreadable, locked). */
  E_STORE_OPEN: 'E_STORE_OPEN',
  /** The file is not a recording: not SQLite, or SQLite without the recording tables. */
  E_STORE_NOT_RECORDING: 'E_STORE_NOT_RECORDING',
  /** The recording was written by a newer format version than this build knows. */
  E_STORE_VERSION: 'E_STORE_VERSION',
  /** `record` would overwrite an existing recording. */
  E_STORE_EXISTS: 'E_STORE_EXISTS',
  /** Another process (or another writer in this one) is writing the recording: one writer at a time. */
  E_STORE_LOCKED: 'E_STORE_LOCKED',
  /** A batch could not be written (disk full, I/O error); later rows are dropped. */
  E_STORE_WRITE: 'E_STORE_WRITE',
  /** The writer was used wrongly: closed, or an unknown exchange/message id. */
  E_STORE_STATE: 'E_STORE_STATE',
  /** better-sqlite3's native module cannot load (built for another Node.js, or not built). */
  E_STORE_NATIVE: 'E_STORE_NATIVE',
});
export type StoreErrorCode = keyof typeof StoreErrorCode;

/** The codes of every error agent-proxy raises. */
export const ErrorCode = codeList({
  /** A command line, option value or API option that cannot be used as given (`UsageError`). */
  E_USAGE: 'E_USAGE',
  /** An input file cannot be read (`InputError`). */
  E_INPUT_UNREADABLE: 'E_INPUT_UNREADABLE',
  /** An input file is read but is not what it should be: not JSON, a bad line, a wrong field (`InputError`). */
  E_INPUT_MALFORMED: 'E_INPUT_MALFORMED',
  /** A schema cannot be read, parsed or compiled (`SchemaLoadError`). */
  E_SCHEMA_LOAD: 'E_SCHEMA_LOAD',
  /** A protocol id no module knows (`ProtocolUnknownError`, a `UsageError`): `--protocol`, an API option, a recording's exchange. */
  E_PROTOCOL_UNKNOWN: 'E_PROTOCOL_UNKNOWN',
  /** An address given to listen on cannot be used (in use, no permission, no such address). */
  E_LISTEN: 'E_LISTEN',
  /** The recording worker ended (out of memory, a bug) while traffic was forwarded; nothing later is recorded. */
  E_RECORDER_EXITED: 'E_RECORDER_EXITED',
  /** The local CA's key file can be read or written by other users (`CaError`): it is refused, never used. */
  E_CA_KEY_EXPOSED: 'E_CA_KEY_EXPOSED',
  /** The local CA's folder holds files that are not a usable CA (a key without its certificate, a key that does not match it) (`CaError`). */
  E_CA_INVALID: 'E_CA_INVALID',
  /** A certificate was asked for a host that is neither a DNS name nor an IP address (`CaError`). */
  E_CA_HOST_NAME: 'E_CA_HOST_NAME',
  ...StoreErrorCode,
});
export type ErrorCode = keyof typeof ErrorCode;

/**
 * The codes the proxy stores for an exchange that did not complete, in `exchanges.error_code`. They
 * are part of the recording format: replay, `show`, `diff` and the inspector read them back, from
 * recordings made by any version, so a code is never renamed or reused.
 */
export const ExchangeErrorCode = codeList({
  /** The upstream could not be reached; the client got the proxy's own 502 `upstream_unreachable`. */
  E_UPSTREAM_UNREACHABLE: 'E_UPSTREAM_UNREACHABLE',
  /**
   * The upstream answered with something the proxy cannot pass on (a status or reason phrase no
   * HTTP peer may send, bytes Node's parser rejects, a 101 nobody asked for); the client got the
   * proxy's own 502 `upstream_invalid_response` instead.
   */
  E_UPSTREAM_INVALID_RESPONSE: 'E_UPSTREAM_INVALID_RESPONSE',
  /**
   * The upstream's TLS failed: its certificate did not pass the check (expired, for another host
   * name, from an unknown issuer) or the handshake did; the client got the proxy's own 502
   * `upstream_tls_failed` saying which.
   */
  E_UPSTREAM_TLS: 'E_UPSTREAM_TLS',
  /** The upstream's WebSocket handshake failed; the client got a 502. */
  E_UPSTREAM_HANDSHAKE: 'E_UPSTREAM_HANDSHAKE',
  /** The upstream closed the connection mid-response, or a WebSocket without a close frame. */
  E_UPSTREAM_RESET: 'E_UPSTREAM_RESET',
  /**
   * The upstream ended a line conversation before its client did: the daemon ended an NDJSON
   * connection, or the stdio agent exited, while the client's side was still open. Stored with the
   * outcome the exchange had (usually `complete`); replay ends the conversation at the same point.
   */
  E_UPSTREAM_ENDED: 'E_UPSTREAM_ENDED',
  /** The client went away first. */
  E_CLIENT_ABORTED: 'E_CLIENT_ABORTED',
  /**
   * An intercepted client's TLS handshake with the forward proxy failed: it does not trust the local
   * CA (it refused the certificate, or closed during the handshake), spoke no TLS, or asked for a name
   * no certificate can be made for (`ClientTlsError`, src/net/intercepted-tls.ts). Stored on the CONNECT's `tunnel` exchange.
   */
  E_CLIENT_TLS: 'E_CLIENT_TLS',
  /** The proxy shut down first: a stream it ended, or an answer still unfinished after the grace period. */
  E_PROXY_SHUTDOWN: 'E_PROXY_SHUTDOWN',
  /** The client's upgrade request could not be relayed; the client got a 400. */
  E_INVALID_UPGRADE: 'E_INVALID_UPGRADE',
  /**
   * The forward proxy refused a client without its `--proxy-auth` credentials (407, outcome
   * `rejected`): the proxy's own answer, not an origin's, so replay and redrive leave it out.
   */
  E_PROXY_AUTH: 'E_PROXY_AUTH',
  /** An NDJSON socket could not be connected to: only in older recordings, which now store E_UPSTREAM_UNREACHABLE. */
  E_UPSTREAM: 'E_UPSTREAM',
  /** The stdio agent could not be started (no such command, not executable); Node's code is in the message. */
  E_SPAWN: 'E_SPAWN',
  /**
   * The stdio agent exited before it wrote a line on stdout, with a non-zero code or killed by a
   * signal the proxy did not forward: it never came up to answer.
   */
  E_AGENT_EXITED_EARLY: 'E_AGENT_EXITED_EARLY',
});
export type ExchangeErrorCode = keyof typeof ExchangeErrorCode;

export class ProxyError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'ProxyError';
  }
}

export class UsageError extends ProxyError {
  constructor(message: string, code: 'E_USAGE' | 'E_PROTOCOL_UNKNOWN' = 'E_USAGE') {
    super(code, message);
    this.name = 'UsageError';
  }
}

/** A protocol id no module knows: in `--protocol`, an API option, or a recording's exchange. A usage error with its own code. */
export class ProtocolUnknownError extends UsageError {
  constructor(message: string) {
    super(message, 'E_PROTOCOL_UNKNOWN');
    this.name = 'ProtocolUnknownError';
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

/** The forward proxy's local certificate authority cannot be used as it is on disk, or cannot issue what was asked. */
export class CaError extends ProxyError {
  constructor(code: 'E_CA_KEY_EXPOSED' | 'E_CA_INVALID' | 'E_CA_HOST_NAME', message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'CaError';
  }
}

export class SchemaLoadError extends ProxyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_SCHEMA_LOAD', message, options);
    this.name = 'SchemaLoadError';
  }
}
