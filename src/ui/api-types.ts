/**
 * The inspector's JSON API: what the server sends and the page reads. Type-only, so both the
 * server (Node) and the page (browser) import it without pulling code across.
 */

export interface FindingInfo {
  rule: string;
  severity: 'error' | 'warning';
  pointer: string;
  message: string;
}

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
export interface ExchangeSummary {
  id: number;
  transport: string;
  protocol: string | null;
  method: string | null;
  path: string | null;
  status: number | null;
  outcome: string | null;
  startedMs: number;
  /** ended_ms, or (while open) the offset of its last message; null when nothing is known yet. */
  endMs: number | null;
  /** endMs - startedMs, or null. */
  durationMs: number | null;
  open: boolean;
  messageCount: number;
  invalidCount: number;
}

/** `GET /api/exchanges/:id` */
export interface ExchangeDetail extends ExchangeSummary {
  query: string | null;
  url: string | null;
  subprotocol: string | null;
  requestHeaders: Record<string, string | string[]> | null;
  responseHeaders: Record<string, string | string[]> | null;
  errorCode: string | null;
  errorMessage: string | null;
  closeCode: number | null;
  closeReason: string | null;
  exitCode: number | null;
  signal: string | null;
}

/** One row of a messages page. */
export interface MessageSummary {
  seq: number;
  sender: 'client' | 'server';
  carrier: string;
  channel: string | null;
  tOffsetMs: number;
  /** Event type, JSON-RPC method, frame kind … */
  label: string;
  status: 'valid' | 'invalid' | 'unchecked';
  findingCount: number;
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
export interface MessageDetail extends MessageSummary {
  exchangeId: number;
  /** The parsed JSON; absent when the message was not JSON (then `text` holds the raw bytes as text). */
  json?: unknown;
  text?: string;
  rawTruncatedFrom: number | null;
  schemaRef: string | null;
  reason: string | null;
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

/** One entry of the AG-UI run as a client materialises it (`GET /api/exchanges/:id/run`). */
export type RunItem =
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
  | { kind: 'custom'; seq: number; type: string; name: string };

export interface RunView {
  exchangeId: number;
  /** The request's messages (RunAgentInput.messages), as the client sent them. */
  input: { threadId: string | null; runId: string | null; messages: Array<{ id: string; role: string; text: string }> };
  items: RunItem[];
  /** finished / error / interrupted / open (stream ended without RUN_FINISHED or RUN_ERROR). */
  outcome: { status: 'finished' | 'error' | 'interrupted' | 'open'; seq: number | null; detail: string };
  events: number;
}

/** Pushed over `GET /api/live` (Server-Sent Events), one `data:` line each. */
export type LivePush =
  | { type: 'hello'; totals: RecordingSummary['totals'] }
  | { type: 'exchange-end'; exchangeId: number; invalid: number; messages: number }
  | { type: 'invalid-message'; exchangeId: number; label: string; findings: FindingInfo[] }
  | { type: 'tick' };
