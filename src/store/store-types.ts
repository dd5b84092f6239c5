import type { Carrier, Sender } from '../core/message.js';
import type { Verdict } from '../core/verdict.js';

/** What the recording file says about itself; written once when the recording starts. */
export interface RecordingMeta {
  /** The agent-proxy version that wrote the file. */
  toolVersion: string;
  /** The upstream the proxy forwarded to (URL, socket path or command line). */
  target?: string;
  /** Where the proxy listened. */
  listen?: string;
  /** `record`: captured live. `import`: converted from another format. */
  mode: 'record' | 'import';
  /** Hash of each schema document used for the verdicts, keyed by `$id`. */
  schemaHashes: Record<string, string>;
  startedAt: Date;
}

/** How the exchange travelled. `proto` is an AG-UI protobuf event stream. */
export type Transport = 'http' | 'sse' | 'proto' | 'ws' | 'stdio' | 'ndjson';

/**
 * How an exchange ended. complete: both sides finished normally. aborted: a side went away
 * mid-stream. error: the proxy or upstream failed (see errorCode). rejected: the proxy or upstream refused it
 * (e.g. a WebSocket upgrade answered with a non-101 status).
 */
export type Outcome = 'complete' | 'aborted' | 'error' | 'rejected';

/** Header values as they were given to the writer; redaction happens before the writer is called. */
export type Headers = Record<string, string | string[]>;

export interface ExchangeStart {
  transport: Transport;
  /** The protocol module that classified the exchange (`agui`, `pi-rest`, `acp`, ...), when known. */
  protocol?: string;
  method?: string;
  /** Path without the query string. */
  path?: string;
  /** The query string without `?`. */
  query?: string;
  url?: string;
  subprotocol?: string;
  requestHeaders?: Headers;
  /** Milliseconds since the recording started. */
  tOffsetMs: number;
}

/** Fields learnt after the exchange started; undefined fields keep their stored value. */
export interface ExchangeUpdate {
  transport?: Transport;
  protocol?: string;
  status?: number;
  responseHeaders?: Headers;
  subprotocol?: string;
}

export interface ExchangeEnd {
  outcome: Outcome;
  /** Milliseconds since the recording started. */
  tOffsetMs: number;
  /** A stable error code (`E_...` or a Node code such as `ECONNRESET`) when outcome is error. */
  errorCode?: string;
  errorMessage?: string;
  /** WebSocket close code and reason. */
  closeCode?: number;
  closeReason?: string;
  /** Exit code and signal of a stdio child. */
  exitCode?: number;
  signal?: string;
}

export interface MessageInput {
  exchangeId: number;
  sender: Sender;
  carrier: Carrier;
  /** Milliseconds since the recording started. */
  tOffsetMs: number;
  /** The bytes as they travelled (the writer copies them). */
  raw: Uint8Array;
  /** ws opcode: 'text' | 'binary' | 'ping' | 'pong' | 'close'; stdio: 'stdin' | 'stdout' | 'stderr'. */
  channel?: string;
  /** The parsed value, stored as JSON text; undefined when the message is not JSON. */
  json?: unknown;
  /** `json` already serialised (the text it was parsed from), so the writer need not stringify it again. */
  jsonText?: string;
  verdict: Verdict;
  /** The original size when raw was cut by --max-body. */
  rawTruncatedFrom?: number;
}

/** Running totals, for the live status line and `proxy show`. */
export interface StoreTotals {
  exchanges: number;
  messages: number;
  /** Messages whose status is invalid. */
  invalid: number;
  findings: number;
}

/** The single `recording` row, as the reader returns it. */
export interface RecordingInfo {
  /** The format version of the file (PRAGMA user_version). */
  formatVersion: number;
  toolVersion: string;
  target?: string;
  listen?: string;
  mode: string;
  /** ISO 8601. */
  startedAt: string;
  /** ISO 8601; absent when the recorder did not close the file (crash, kill -9). */
  endedAt?: string;
  schemaHashes: Record<string, string>;
}

/** One exchange as stored. Columns that are SQL NULL are `null`. */
export interface ExchangeRow {
  id: number;
  transport: Transport;
  protocol: string | null;
  method: string | null;
  path: string | null;
  query: string | null;
  url: string | null;
  status: number | null;
  subprotocol: string | null;
  requestHeaders: Headers | null;
  responseHeaders: Headers | null;
  startedMs: number;
  endedMs: number | null;
  /** null while the exchange is open, or when the recorder stopped before it ended. */
  outcome: Outcome | null;
  errorCode: string | null;
  errorMessage: string | null;
  closeCode: number | null;
  closeReason: string | null;
  exitCode: number | null;
  signal: string | null;
  messageCount: number;
  invalidCount: number;
  /** Messages nothing could judge (see Verdict): an exchange whose messages are all unchecked is not "valid". */
  uncheckedCount: number;
}

/** One message as stored, with its verdict and findings. */
export interface MessageRow {
  id: number;
  exchangeId: number;
  /** 1-based position within the exchange, in the order the recorder saw the messages. */
  seq: number;
  sender: Sender;
  carrier: Carrier;
  channel: string | null;
  tOffsetMs: number;
  raw: Buffer;
  rawTruncatedFrom: number | null;
  /**
   * The parsed value; undefined when the message was not JSON (JSON `null` stays null), or when it
   * nests deeper than MAX_JSON_DEPTH: then `deepJson` holds its text.
   */
  json: unknown;
  /**
   * The stored JSON text of a message nested deeper than MAX_JSON_DEPTH, which is not handed out
   * parsed: the recursive walks of whoever reads it (normalizing, comparing, showing) would overflow
   * the stack. Such a message is compared and served byte for byte; what carries it on (export,
   * `show --json`) parses it and writes it with stringifyJson.
   */
  deepJson?: string;
  verdict: Verdict;
}
