/**
 * The inspector's JSON API: what the server sends and the page reads. Type-only, so both the
 * server (Node) and the page (browser) import it without pulling code across. The fields that are
 * a recording's columns take their types from the store's schema (types only, nothing of Node).
 */

// `/api/diff` sends the diff report as the diff module makes it: its types are the API's. The page
// imports them from here only (the layering rules let src/ui/web reach nothing else).
export type { DiffReport, ExchangeRef, MessageRef, ValueChange } from '../diff/diff-report.js';
export type { Finding } from '../core/finding.js';
// An exchange's `tls` (ExchangeDetail), which the page words in the exchange head.
export type { TlsFacts } from '../core/tls-facts.js';
import type { Finding } from '../core/finding.js';
import type { ExchangeFields, StoredMessage } from '../store/schema.js';

export type FindingInfo = Finding;

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
}

/** `GET /api/exchanges/:id` */
export interface ExchangeDetail
  extends ExchangeSummary,
    Pick<ExchangeFields, 'query' | 'url' | 'subprotocol' | 'requestHeaders' | 'responseHeaders' | 'errorCode' | 'errorMessage' | 'closeCode' | 'closeReason' | 'exitCode' | 'signal' | 'tls'> {
  /** The exchange's own findings, which no message carries (`upstream-tls-failed`, `upstream-unreachable`). */
  findings: FindingInfo[];
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

/** `GET /api/exchanges/:id/state?seq=N` */
export interface StateAt {
  seq: number;
  state: unknown;
  /** Tracked activity contents by message id. */
  activities: Record<string, { activityType: unknown; content: unknown }>;
  /** How many STATE_SNAPSHOT / STATE_DELTA events were applied up to seq. */
  applied: number;
  /** The seq of the last state event applied, or null. */
  lastStateSeq: number | null;
}

/** An invalid event folded into a run item, with what was wrong with it. */
export interface RunIssue {
  seq: number;
  findings: FindingInfo[];
}

/**
 * One entry of the AG-UI run as a client materialises it (`GET /api/exchanges/:id/run`). `invalid`
 * lists the invalid events that went into it; an invalid event that makes no entry of its own (a
 * second RUN_STARTED, an unknown type) gets an `event` entry, so none goes unseen.
 */
export type RunItem = (
  | { kind: 'message'; seq: number; endSeq: number | null; id: string; role: string; text: string }
  | { kind: 'reasoning'; seq: number; endSeq: number | null; id: string; text: string }
  | {
      kind: 'tool-call';
      seq: number;
      endSeq: number | null;
      id: string;
      name: string;
      args: string;
      parentMessageId: string | null;
      result: { seq: number; content: string } | null;
    }
  | { kind: 'state'; seq: number; type: string }
  | { kind: 'step'; seq: number; type: string; name: string }
  | { kind: 'run'; seq: number; type: string; detail: string }
  | { kind: 'custom'; seq: number; type: string; name: string }
  | { kind: 'event'; seq: number; type: string }
) & { invalid?: RunIssue[] };

export interface RunView {
  exchangeId: number;
  /** The request's messages (RunAgentInput.messages), as the client sent them. */
  input: { threadId: string | null; runId: string | null; messages: Array<{ id: string; role: string; text: string }> };
  items: RunItem[];
  /**
   * finished / error / interrupted / cancelled / open (stream ended without RUN_FINISHED or
   * RUN_ERROR). `detail` adds what the event said (the result, the error, the interrupt), or is ''
   * when it said nothing.
   */
  outcome: { status: 'finished' | 'error' | 'interrupted' | 'cancelled' | 'open'; seq: number | null; detail: string };
  /** How many of the run's events are invalid (each is flagged on the item it went into). */
  invalidEvents: number;
  events: number;
}

/**
 * A request paired with its response (`GET /api/exchanges/:id/session`). `atMs` values are offsets
 * on the recording's clock, like `tOffsetMs`. A response nothing asked for has `requestSeq: null`.
 */
export interface SessionPair {
  /** The Pi command type or the JSON-RPC method. */
  label: string;
  /** The request's id as JSON text (`"p-1"`, `7`), or null when it had none. */
  id: string | null;
  /** Who sent the request. */
  from: 'client' | 'server';
  requestSeq: number | null;
  requestAtMs: number | null;
  responseSeq: number | null;
  responseAtMs: number | null;
  /** responseAtMs - requestAtMs, when both are known. */
  latencyMs: number | null;
  /** Pi `success` / JSON-RPC result (true) or error (false); null while unanswered. */
  ok: boolean | null;
  /** The error the response carried, as text. */
  error: string | null;
}

/** A frame that is neither a paired request/response nor a stream event. */
export interface SessionFrame {
  seq: number;
  sender: 'client' | 'server';
  atMs: number;
  label: string;
}

/** A Pi RPC event; `sequence` is the framed envelope's, null on raw RPC. */
export interface PiEventRow {
  seq: number;
  atMs: number;
  type: string;
  sequence: number | null;
}

/** Events missing from a framed stream: `missing` sequence numbers between `after` and `next`. */
export interface SequenceGap {
  /** The seq of the event after the gap. */
  seq: number;
  after: number;
  next: number;
  missing: number;
}

/** Framed (pi-daemon-rpc) or raw (pi-rpc) Pi RPC. */
export interface PiSessionView {
  kind: 'pi';
  exchangeId: number;
  mode: 'framed' | 'raw';
  pairs: SessionPair[];
  /** Commands with no response. */
  unanswered: number;
  events: PiEventRow[];
  gaps: SequenceGap[];
  /** attach_ready, control frames, replay_gap … */
  other: SessionFrame[];
}

/** A `session/update` notification. */
export interface AcpUpdateRow {
  seq: number;
  atMs: number;
  sessionId: string | null;
  /** `params.update.sessionUpdate` (agent_message_chunk, tool_call …). */
  update: string;
}

/** One prompt turn: from a `session/prompt` request to its response. */
export interface AcpTurn {
  promptSeq: number;
  responseSeq: number | null;
  sessionId: string | null;
  /** The response's stopReason, or the error's message. */
  stopReason: string | null;
  ok: boolean | null;
  startMs: number;
  durationMs: number | null;
  updates: AcpUpdateRow[];
}

export interface AcpSessionView {
  kind: 'acp';
  exchangeId: number;
  pairs: SessionPair[];
  /** Requests (either direction) with no response. */
  unanswered: number;
  turns: AcpTurn[];
  /** session/update notifications outside any turn (e.g. the history replayed by session/load). */
  outsideTurns: AcpUpdateRow[];
  /** Other notifications, and messages that are not JSON-RPC. */
  other: SessionFrame[];
}

/** `GET /api/exchanges/:id/session` for pi-daemon-rpc, pi-rpc and acp exchanges. */
export type SessionView = PiSessionView | AcpSessionView;

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
