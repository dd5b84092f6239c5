import type { Carrier, Sender } from '../core/message.js';
import type { Finding, Severity } from '../core/finding.js';
import type { Verdict } from '../core/verdict.js';
import type { SerialisedJson } from '../core/serialised-json.js';
import type { ExchangeEndFields, ExchangeFields, ExchangeStartFields, ExchangeUpdateFields, Headers, Outcome, StoredMessage, Transport } from './schema.js';

/** What the recording file says about itself; written once when the recording starts. */
export interface RecordingMeta {
  /** The agent-proxy version that wrote the file. */
  toolVersion: string;
  /** The upstream the proxy forwarded to (URL, socket path or command line). */
  target?: string;
  /** Where the proxy listened. */
  listen?: string;
  /** `record`: captured live. `import`: converted from another format. An imported NDJSON copy keeps its original's. */
  mode: string;
  /** Hash of each schema document used for the verdicts, keyed by `$id`. */
  schemaHashes: Record<string, string>;
  startedAt: Date;
  /** The rules version the verdicts are made by: this build's when absent; null for a copy of a recording that did not say. */
  rulesVersion?: number | null;
}

export type { Headers, Outcome, Transport } from './schema.js';

/**
 * Headers as the writer takes them: the object, or its JSON text made where they were captured
 * (the recording worker gets them so), which is stored as it is unless it holds a credential.
 */
export type GivenHeaders = Headers | SerialisedJson<Headers>;

export interface ExchangeStart extends Omit<ExchangeStartFields, 'requestHeaders'> {
  requestHeaders?: GivenHeaders;
  transport: Transport;
  /** Milliseconds since the recording started. */
  tOffsetMs: number;
}

/** Fields learnt after the exchange started; undefined fields keep their stored value. */
export type ExchangeUpdate = Omit<ExchangeUpdateFields, 'responseHeaders'> & { responseHeaders?: GivenHeaders };

export interface ExchangeEnd extends ExchangeEndFields {
  outcome: Outcome;
  /** Milliseconds since the recording started. */
  tOffsetMs: number;
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
  /**
   * `json` already serialised: the text it was parsed from, as it came on the wire (the raw bytes, or
   * an SSE event's data lines), so that the writer need not stringify it again, nor look for
   * credentials in it when the raw bytes hold none.
   */
  jsonText?: string;
  verdict: Verdict;
  /** The original size when raw was cut by --max-body. */
  rawTruncatedFrom?: number;
}

/** A message as the recorder hands it to the writer: what it knows of its bytes besides (not public: MessageInput is). */
export interface WireMessageInput extends MessageInput {
  /**
   * Where `jsonText` was read from in `raw`: it is the UTF-8 text of raw's bytes from this offset, for
   * its byte length (0: a WebSocket text frame or a body, all of raw; after `data:` or `data: `, an SSE
   * event's one data line). Then the writer finds the JSON's place in raw, and (after nothing but an
   * SSE field name, before nothing but white space) looks for credentials in that text, without
   * decoding raw again. Absent: not known.
   */
  jsonTextAt?: number;
}

/** Running totals, for the live status line and `proxy show`. */
export interface StoreTotals {
  exchanges: number;
  messages: number;
  /** Messages whose status is invalid. */
  invalid: number;
  findings: number;
}

/** What a recording holds so far (or in the end), as every command prints it. */
export interface RecordingTotals {
  exchanges: number;
  messages: number;
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
  /** The version of the rules its verdicts were made by (core/rules-version.ts); absent: older than the first stored one. */
  rulesVersion?: number;
}

/** One exchange as stored, with the counts of its messages. Columns that are SQL NULL are `null`. */
export interface ExchangeRow extends ExchangeFields {
  messageCount: number;
  invalidCount: number;
  /** Messages nothing could judge (see Verdict): an exchange whose messages are all unchecked is not "valid". */
  uncheckedCount: number;
}

/** The columns of a message that make its verdict. */
type VerdictFields = 'status' | 'schemaRef' | 'reason' | 'findingCount';

/** One message as stored, with its verdict and findings. */
export interface MessageRow extends Omit<StoredMessage, 'raw' | 'json' | 'jsonAt' | 'schemaRefId' | VerdictFields> {
  raw: Buffer;
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

/**
 * A message as `export` reads it (RecordingReader.messagesWithTextInOrder): a MessageRow with its
 * stored JSON text when that text is what JSON.stringify writes for its value, so the NDJSON line
 * takes the text as it is instead of writing the value again. When raw holds that text at json_at and
 * is UTF-8 text, the line needs only raw's text around it, and `raw` is not read (null).
 */
export interface MessageTextRow extends Omit<MessageRow, 'raw'> {
  /**
   * The bytes as they travelled; null when `jsonText`, `textBefore` and `textAfter` are raw's text,
   * whole (then `json` is undefined: the value is not parsed, `jsonText` is its text).
   */
  raw: Buffer | null;
  /** The stored JSON text, when JSON.stringify writes `json` back the same (isCompactJson); else undefined. */
  jsonText: string | undefined;
  /** When raw is null: raw's text before jsonText, and after it (its trailing white space); else ''. */
  textBefore: string;
  textAfter: string;
}

/**
 * A message as `validate` reads it to judge it again (RecordingReader.messagesToJudge): a MessageRow
 * without what judging does not read, and with its raw bytes and stored verdict only when it is not JSON.
 */
export interface MessageToJudge extends Pick<MessageRow, 'id' | 'exchangeId' | 'seq' | 'sender' | 'carrier' | 'channel' | 'json' | 'deepJson'> {
  /** Its stored findings (judging again carries over those it cannot find again). */
  findings: Finding[];
  /** The bytes as they travelled, when the message is not JSON; null when it is. */
  raw: Buffer | null;
  /** Its stored verdict (with `findings`), when it is not JSON: it is kept, not judged again. */
  stored?: Verdict;
}

/** Which findings to list; every field narrows the list, none means all. */
export interface FindingFilter {
  /** Only these rule ids. */
  rules?: readonly string[];
  /** Only findings of this severity. */
  severity?: Severity;
  /** Only findings of this exchange. */
  exchange?: number;
}

/** One finding with where it is: its exchange and message. */
export interface FindingListRow {
  exchange: number;
  transport: string;
  protocol: string | null;
  method: string | null;
  path: string | null;
  /** The message's seq; 0 for a finding of the exchange itself (core/exchange-findings.ts), which has no message. */
  seq: number;
  /** Who sent the message; `server` for a finding of the exchange (the upstream's failure). */
  sender: 'client' | 'server';
  /** The message's type (`RUN_STARTED`, `response:get_state`, `session/prompt` …), or its channel or carrier. */
  label: string;
  rule: string;
  severity: Severity;
  pointer: string;
  message: string;
}
