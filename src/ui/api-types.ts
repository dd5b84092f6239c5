/**
 * The inspector's JSON API: what the server sends and the page reads. Type-only, so both the
 * server (Node) and the page (browser) import it without pulling code across. The fields that are
 * a recording's columns take their types from the store's schema (types only, nothing of Node).
 */

// `/api/diff` sends the diff report as the diff module makes it: its types are the API's. The page
// imports them from here only (the layering rules let src/ui/web reach nothing else).
export type { DiffReport, ExchangeRef, MessageRef, ValueChange } from '../diff/diff-report.js';
export type { Finding } from '../core/finding.js';
export type { AssembledAnswer, AssembledOutput, AssembledToolCall, TokenUsage } from '../protocols/assembled-answer.js';
// An exchange's `tls` (ExchangeDetail), which the page words in the exchange head.
export type { TlsFacts } from '../core/tls-facts.js';
import type { Finding } from '../core/finding.js';
import type { ExchangeFields, StoredMessage } from '../store/schema.js';

export type FindingInfo = Finding;

// What a protocol's views send (the run, the session, the state at a message): their types are the API's.
export type {
  AcpSessionView,
  AcpTurn,
  AcpUpdateRow,
  AnswerView,
  ExchangeViews,
  McpCallRow,
  McpSessionView,
  PiEventRow,
  PiSessionView,
  RunIssue,
  RunItem,
  RunView,
  SequenceGap,
  SessionFrame,
  SessionPair,
  SessionView,
  StateAt,
} from '../protocols/inspector-views.js';
import type { ExchangeViews } from '../protocols/inspector-views.js';

/** `GET /api/recording` */
export interface RecordingSummary {
  file: string;
  toolVersion: string;
  target: string | null;
  mode: string;
  startedAt: string;
  endedAt: string | null;
  totals: { exchanges: number; messages: number; invalid: number; findings: number };
  /** True while a recorder is writing it (`proxy record --ui`): the page subscribes to /api/live. */
  live: boolean;
  /** True when the inspector was started with --diff. */
  diff: boolean;
  /** The values the timeline filters offer. */
  protocols: string[];
  transports: string[];
  /**
   * A forward recording's hosts (`record --forward`: one recording, many hosts), in the order each was
   * first called, with how many exchanges went to each, as `show` heads its groups; absent for any other.
   */
  hosts?: HostCount[];
}

/** One host of a forward recording: `api.openai.com`, `127.0.0.1:8080` (the port when not the scheme's default). */
export interface HostCount {
  host: string;
  exchanges: number;
}

/** One row of `GET /api/exchanges`. */
export interface ExchangeSummary extends Pick<ExchangeFields, 'id' | 'transport' | 'protocol' | 'protocolEvidence' | 'method' | 'path' | 'status' | 'outcome' | 'startedMs'> {
  /** ended_ms, or (while open) the offset of its last message; null when nothing is known yet. */
  endMs: number | null;
  /** endMs - startedMs, or null. */
  durationMs: number | null;
  open: boolean;
  messageCount: number;
  invalidCount: number;
  /** The host it went to, in a forward recording (as in RecordingSummary.hosts); absent in any other. */
  host?: string;
}

/** `GET /api/exchanges/:id` */
export interface ExchangeDetail
  extends ExchangeSummary,
    Pick<ExchangeFields, 'query' | 'url' | 'subprotocol' | 'requestHeaders' | 'responseHeaders' | 'errorCode' | 'errorMessage' | 'closeCode' | 'closeReason' | 'exitCode' | 'signal' | 'tls' | 'tunnel'> {
  /** The exchange's own findings, which no message carries (`upstream-tls-failed`, `upstream-unreachable`, `client-tls-failed`). */
  findings: FindingInfo[];
  /**
   * The views its protocol adds to the inspector (ProtocolModule.views): the tab drawn beside its
   * messages, and whether each message shows the state at it. Always sent; optional for pages built
   * before it.
   */
  views?: ExchangeViews;
}

/** One row of a messages page. */
export interface MessageSummary extends Pick<StoredMessage, 'seq' | 'sender' | 'carrier' | 'channel' | 'tOffsetMs' | 'status' | 'findingCount'> {
  /** Event type, JSON-RPC method, frame kind … */
  label: string;
  /** The size of the raw bytes. */
  size: number;
}

/** `GET /api/exchanges/:id/messages?offset=&limit=&invalid=1` */
export interface MessagePage {
  /** Rows matching the filter in the whole exchange. */
  total: number;
  offset: number;
  items: MessageSummary[];
}

/** `GET /api/messages/:exchange/:seq` */
export interface MessageDetail extends MessageSummary, Pick<StoredMessage, 'exchangeId' | 'rawTruncatedFrom' | 'schemaRef' | 'reason'> {
  /** The parsed JSON; absent when the message was not JSON (then `text` holds the raw bytes as text). */
  json?: unknown;
  text?: string;
  findings: FindingInfo[];
}


/** Pushed over `GET /api/live` (Server-Sent Events), one `data:` line each. */
export type LivePush =
  | { type: 'hello'; totals: RecordingSummary['totals'] }
  | { type: 'exchange-end'; exchangeId: number; invalid: number; messages: number }
  | { type: 'invalid-message'; exchangeId: number; label: string; findings: FindingInfo[] }
  | { type: 'tick' };

/**
 * What the page carries inside for its first screen: the recording and all its exchanges
 * (unfiltered), unless there are too many to carry: then the timeline fetches them.
 */
export interface InitialData {
  recording: RecordingSummary;
  exchanges?: ExchangeSummary[];
}
