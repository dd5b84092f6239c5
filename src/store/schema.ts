import type { Carrier, Sender } from '../core/message.js';
import type { Severity } from '../core/finding.js';
import type { VerdictStatus } from '../core/verdict.js';
import type { TlsFacts } from '../core/tls-facts.js';
import type { TunnelFacts } from '../core/tunnel-facts.js';
import { blob, integer, jsonText, real, requiredInteger, requiredReal, requiredText, text, type RowOf, type StoredOf } from './columns.js';
import type { Transport } from '../core/transport.js';

/**
 * The recording's schema: every column of every table, in the file's column order, keyed by the
 * field name rows use in JavaScript. The reader's and writer's SQL, the row types, the NDJSON
 * exchange line and the inspector's and diff's queries all come from here. Adding a column means a
 * column here, a migration (store/migrations.ts) that adds it to existing files, and the column in a
 * new file's tables (store/newest-schema.ts); tests check that the three agree.
 * docs/recording-format.md describes every column.
 */

export type { Transport };

/**
 * How an exchange ended. complete: both sides finished normally. aborted: a side went away
 * mid-stream. error: the proxy or upstream failed (see errorCode). rejected: the proxy or upstream refused it
 * (e.g. a WebSocket upgrade answered with a non-101 status).
 */
export type Outcome = 'complete' | 'aborted' | 'error' | 'rejected';

/** Header values as they were given to the writer (redacted by name before it is called; it replaces well-known credentials itself). */
export type Headers = Record<string, string | string[]>;

/** The single `recording` row (id 1): what the file says about itself. */
export const RECORDING_COLUMNS = {
  id: requiredInteger('id'),
  /** The format version when the row was written (PRAGMA user_version is the current one). */
  formatVersion: requiredInteger('format_version'),
  toolVersion: requiredText('tool_version'),
  target: text('target'),
  listen: text('listen'),
  mode: requiredText('mode'),
  /** ISO 8601. */
  startedAt: requiredText('started_at'),
  /** ISO 8601; null when the recorder did not close the file (crash, kill -9). */
  endedAt: text('ended_at'),
  /** JSON text: the hash of each schema document used for the verdicts, keyed by `$id`. */
  schemaHashes: requiredText('schema_hashes'),
  /** The version of the rules the verdicts were made by (core/rules-version.ts); null: made before it was stored. */
  rulesVersion: integer('rules_version'),
} as const;

export const EXCHANGE_COLUMNS = {
  id: requiredInteger('id'),
  transport: requiredText<Transport>('transport'),
  /** The protocol module that classified the exchange (`agui`, `pi-rest`, `acp`, ...), when known. */
  protocol: text('protocol'),
  method: text('method'),
  /** Path without the query string. */
  path: text('path'),
  /** The query string without `?`. */
  query: text('query'),
  url: text('url'),
  status: integer('status'),
  subprotocol: text('subprotocol'),
  requestHeaders: jsonText<Headers>('request_headers'),
  responseHeaders: jsonText<Headers>('response_headers'),
  /** Milliseconds since the recording started. */
  startedMs: requiredReal('started_ms'),
  endedMs: real('ended_ms'),
  /** null while the exchange is open, or when the recorder stopped before it ended. */
  outcome: text<Outcome>('outcome'),
  /** A stable error code (`E_...` or a Node code such as `ECONNRESET`) when outcome is error. */
  errorCode: text('error_code'),
  errorMessage: text('error_message'),
  /** WebSocket close code and reason. */
  closeCode: integer('close_code'),
  closeReason: text('close_reason'),
  /** Exit code and signal of a stdio child. */
  exitCode: integer('exit_code'),
  signal: text('signal'),
  /** An https:// or wss:// upstream's TLS protocol, cipher and certificate, or what a failed check told of them. */
  tls: jsonText<TlsFacts>('tls'),
  /**
   * What chose `protocol` (`route GET /v1/session/{sessionRef}`, `RunAgentInput body`, `ACP method
   * initialize`, `--protocol flag`); null when no protocol claimed the exchange, or in a recording made
   * before format 3.
   */
  protocolEvidence: text('protocol_evidence'),
  /**
   * When the client ended a stdio agent's stdin (milliseconds since the recording started); null when
   * it never did (the agent exited first), for other transports, and in a recording made before format 5.
   */
  stdinEndedMs: real('stdin_ended_ms'),
  /** A forward proxy's CONNECT tunnel: the bytes each side sent through it unread; null for any other exchange. */
  tunnel: jsonText<TunnelFacts>('tunnel'),
} as const;

export const MESSAGE_COLUMNS = {
  id: requiredInteger('id'),
  exchangeId: requiredInteger('exchange_id'),
  /** 1-based position within the exchange, in the order the recorder saw the messages. */
  seq: requiredInteger('seq'),
  sender: requiredText<Sender>('sender'),
  carrier: requiredText<Carrier>('carrier'),
  /** ws opcode: 'text' | 'binary' | 'ping' | 'pong' | 'close'; stdio: 'stdin' | 'stdout' | 'stderr'. */
  channel: text('channel'),
  /** Milliseconds since the recording started. */
  tOffsetMs: requiredReal('t_offset_ms'),
  /**
   * The bytes as they travelled; empty when they are in a block (format 9, store/raw-blocks.ts): SQL
   * reads them with rawBytesSql(), never from this column alone. The block columns are not written here.
   */
  raw: blob('raw'),
  /** The original size when raw was cut by --max-body. */
  rawTruncatedFrom: integer('raw_truncated_from'),
  /**
   * The parsed value as JSON text, when `raw` does not hold it as it is (store/stored-json.ts); null
   * when the message is not JSON or `jsonAt` says where it is. Read by the reader, which keeps deep JSON as text.
   */
  json: text('json'),
  status: requiredText<VerdictStatus>('status'),
  /** The schema ref of a row written before format 8, or of a verdict rewritten in a scratch copy; else in `schemaRefId`. */
  schemaRef: text('schema_ref'),
  reason: text('reason'),
  findingCount: requiredInteger('finding_count'),
  /** Where the message's JSON text starts in `raw` (which holds it to its trailing white space); null: `json` holds it, or none. */
  jsonAt: integer('json_at'),
  /** The id of its schema ref in `schema_refs` (store/schema-refs.ts); null: `schemaRef` holds it, or none. */
  schemaRefId: integer('schema_ref_id'),
} as const;

/** Each schema ref of the file's messages, once. */
export const SCHEMA_REF_COLUMNS = {
  id: requiredInteger('id'),
  ref: requiredText('ref'),
} as const;

export const FINDING_COLUMNS = {
  id: requiredInteger('id'),
  messageId: requiredInteger('message_id'),
  exchangeId: requiredInteger('exchange_id'),
  rule: requiredText('rule'),
  severity: requiredText<Severity>('severity'),
  pointer: requiredText('pointer'),
  message: requiredText('message'),
} as const;

/**
 * Where a message's bytes are once its writer closed the file (format 9, store/raw-blocks.ts): the
 * block, the offset in it and the length. Compaction sets them (store/raw-block-compaction.ts); a
 * message row is written without them, so they are not among MESSAGE_COLUMNS, which the writer and
 * the readers use.
 */
export const MESSAGE_BLOCK_COLUMNS = {
  rawBlock: integer('raw_block'),
  rawAt: integer('raw_at'),
  rawSize: integer('raw_size'),
} as const;

/** The bytes of consecutive messages of one exchange, concatenated and compressed in zlib's format. */
export const RAW_BLOCK_COLUMNS = {
  id: requiredInteger('id'),
  exchangeId: requiredInteger('exchange_id'),
  size: requiredInteger('size'),
  data: blob('data'),
} as const;

/** Each table of a recording and its columns, as the file has them. */
export const TABLES = {
  recording: RECORDING_COLUMNS,
  exchanges: EXCHANGE_COLUMNS,
  messages: { ...MESSAGE_COLUMNS, ...MESSAGE_BLOCK_COLUMNS },
  findings: FINDING_COLUMNS,
  schema_refs: SCHEMA_REF_COLUMNS,
  raw_blocks: RAW_BLOCK_COLUMNS,
} as const;

export type StoredRecording = RowOf<typeof RECORDING_COLUMNS>;
/** One `exchanges` row as readers hand it out (headers parsed). */
export type ExchangeFields = RowOf<typeof EXCHANGE_COLUMNS>;
/** One `exchanges` row as the file holds it (headers as JSON text). */
export type StoredExchange = StoredOf<typeof EXCHANGE_COLUMNS>;
/** One `messages` row as the file holds it. */
export type StoredMessage = StoredOf<typeof MESSAGE_COLUMNS>;
export type StoredFinding = RowOf<typeof FINDING_COLUMNS>;

/** What an ExchangeStart may set (startedMs comes from its tOffsetMs). */
export const EXCHANGE_START_FIELDS = ['transport', 'protocol', 'method', 'path', 'query', 'url', 'subprotocol', 'requestHeaders'] as const;
/** What an ExchangeUpdate may set; an undefined field keeps the stored value. */
export const EXCHANGE_UPDATE_FIELDS = ['transport', 'protocol', 'protocolEvidence', 'status', 'responseHeaders', 'subprotocol', 'tls', 'stdinEndedMs'] as const;
/** What an ExchangeEnd sets (endedMs comes from its tOffsetMs); an undefined field is stored as null. */
export const EXCHANGE_END_FIELDS = ['outcome', 'errorCode', 'errorMessage', 'closeCode', 'closeReason', 'exitCode', 'signal', 'tunnel'] as const;

type Given<K extends keyof ExchangeFields> = { [F in keyof Pick<ExchangeFields, K>]?: NonNullable<ExchangeFields[F]> };
export type ExchangeStartFields = Given<(typeof EXCHANGE_START_FIELDS)[number]>;
export type ExchangeUpdateFields = Given<(typeof EXCHANGE_UPDATE_FIELDS)[number]>;
export type ExchangeEndFields = Given<(typeof EXCHANGE_END_FIELDS)[number]>;
