import type { Finding } from '../core/finding.js';
import type { HeaderMap } from '../core/header-value.js';
import type { AssembledAnswer } from './assembled-answer.js';

/*
 * What the inspector shows of a conversation of a protocol, beyond its messages, as the data its
 * page renders: a module declares which of these views it has (ProtocolModule.views) and builds
 * them from the exchange's messages. The inspector's API sends them as they are (ui/api-types.ts
 * re-exports these types), and the page draws each by its route: `run`, `session`, `state`.
 */

/** A message of the exchange, as a view reads it. */
export interface ViewMessage {
  seq: number;
  sender: 'client' | 'server';
  carrier: string;
  channel: string | null;
  /** Offset on the recording's clock, ms. */
  tOffsetMs: number;
  status: 'valid' | 'invalid' | 'unchecked';
  json: unknown;
  /** The exchange that carried it, when the view spans a session's exchanges (sessionKey) and it is not the view's own. */
  exchangeId?: number;
}

/** What finds the session an exchange belongs to: its request line and headers. */
export interface SessionFacts {
  transport: string;
  method: string | null;
  path: string | null;
  requestHeaders: HeaderMap | null;
  responseHeaders: HeaderMap | null;
}

/** What a view may ask the inspector for besides the messages. */
export interface ViewContext {
  /** The findings of message `seq`. */
  findingsOf(seq: number): Finding[];
  /** The inspector's label for a message that is none of the view's own kinds. */
  label(value: unknown, m: ViewMessage): string;
}

/**
 * The views a protocol adds to the inspector. `tab` is drawn as a tab of the exchange, by the page's
 * renderer for its route: `run` (a conversation as the client materialises it) or `session`
 * (requests paired with their responses, and the streams between them). `stateAt` is shown with
 * each message: the state the client holds once it has applied it.
 */
export interface ProtocolViews {
  readonly tab?: { readonly route: 'run'; readonly label: string; build(exchangeId: number, messages: Iterable<ViewMessage>, context: ViewContext): RunView } | { readonly route: 'session'; readonly label: string; build(exchangeId: number, messages: Iterable<ViewMessage>, context: ViewContext): SessionView };
  stateAt?(messages: Iterable<ViewMessage>, seq: number): StateAt;
  /**
   * The session an exchange belongs to when a session spans many exchanges (MCP over Streamable
   * HTTP: one POST per request, by its `Mcp-Session-Id`), or undefined: the tab of any of them is
   * built from the messages of all of them (in the recording's order, each with its `exchangeId`).
   */
  sessionKey?(exchange: SessionFacts): string | undefined;
  /**
   * A model's answer, assembled from its stream (or read whole), for an LLM API's exchange: `show`
   * prints it and the inspector draws it in an `answer` tab. Null for an exchange that holds none.
   */
  answer?(messages: Iterable<ViewMessage>): AssembledAnswer | null;
}

/** Which views an exchange has (`GET /api/exchanges/:id`, `views`), so that the page draws their tabs. */
export interface ExchangeViews {
  tab: { route: 'run' | 'session'; label: string } | null;
  state: boolean;
  /** Its protocol assembles model answers (`GET /api/exchanges/:id/answer`). */
  answer: boolean;
}

/** `GET /api/exchanges/:id/answer`: the exchange's model answer, assembled; null when it holds none. */
export interface AnswerView {
  exchangeId: number;
  answer: AssembledAnswer | null;
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
  findings: Finding[];
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
  /** The id of the protocol that built it (ACP's), told from a Pi session's `pi` by the page (ui/web/session-view.ts isPiSession). */
  kind: string;
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

/** One request of an MCP session with its answer: the tool, prompt or resource it names, its arguments, and what came back. */
export interface McpCallRow {
  seq: number;
  /** The request's offset on the recording's clock, like `tOffsetMs`. */
  atMs: number;
  responseSeq: number | null;
  from: 'client' | 'server';
  method: string;
  /** The request's id as JSON text. */
  id: string | null;
  /** The tool or prompt called (`name`), or the resource read or subscribed (`uri`). */
  name: string | null;
  /** A call's `arguments`, or the request's params for any other method (`_meta` left out). */
  arguments: unknown;
  /** The result, or the error, the answer carried; absent while unanswered. */
  result?: unknown;
  error?: unknown;
  durationMs: number | null;
  /** The exchange that carried the request (`seq` is that exchange's), when not the view's own. */
  exchangeId?: number;
  /** The exchange that carried the answer (`responseSeq` is that exchange's), when not the view's own. */
  responseExchangeId?: number;
}

/**
 * An MCP session as the inspector shows it: the session renderer's requests paired with their
 * responses (labelled with the tool or resource they name), plus what the server declared at
 * initialize, the tools it listed, and each call with its arguments and its result or error.
 */
export interface McpSessionView extends AcpSessionView {
  server: { protocolVersion: unknown; capabilities: unknown; serverInfo: unknown; instructions?: unknown } | null;
  /** Every tool the server listed (all pages; a later list replaces a tool of the same name). */
  tools: unknown[];
  calls: McpCallRow[];
}

/** `GET /api/exchanges/:id/session` for pi-daemon-rpc, pi-rpc, acp and mcp exchanges. */
export type SessionView = PiSessionView | AcpSessionView | McpSessionView;

