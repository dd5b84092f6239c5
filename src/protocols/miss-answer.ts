import type { IncomingHttpHeaders } from 'node:http';

/**
 * How a protocol answers a request, frame or line that a replay could not match: in its own error
 * shape, so the client shows the reason instead of failing on an answer it cannot read. A module
 * declares it in its ReplayHints; the replay log keeps the full report either way.
 */

/** What the replay knows about a miss. */
export interface MissFacts {
  /** One sentence: what came in, the nearest recorded one, what differs. */
  message: string;
  /** The report as data (reason, request, nearest, differences …), for an error's `details`. */
  details: Record<string, unknown>;
}

/** A live HTTP request that matched nothing. */
export interface MissedHttpRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when there is none or it is not JSON. */
  body: unknown;
}

/** What the recording says about the server, for answers that must look like it. */
export interface RecordedServer {
  /** The Pi daemon's hostInstanceId as recorded. */
  hostInstanceId?: string;
}

export interface HttpMissAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What a line or frame miss answer may use beyond the message. */
export interface MessageMissContext extends RecordedServer {
  message: string;
  /** JSON-RPC methods of the recorded client messages: a miss on another method is "method not found". */
  recordedMethods: ReadonlySet<string>;
  /** The miss report as data (what differs, the nearest recorded message), for an error's `data`. */
  details?: Record<string, unknown>;
}

/** The answers a protocol gives; each is optional, the replay's generic answer stands in. */
export interface MissAnswers {
  /**
   * What a miss of this protocol gets, as a short phrase naming whose misses they are, for replay's
   * start line: `AG-UI runs get a 200 RUN_ERROR event stream`.
   */
  readonly summary?: string;
  /** The HTTP answer to a request (or WebSocket upgrade) that matched nothing. */
  http?(request: MissedHttpRequest, miss: MissFacts, server: RecordedServer): HttpMissAnswer;
  /**
   * The message (to be sent as one JSON line or text frame) answering a live message that matched
   * nothing, or undefined when the protocol would not answer it (a notification, a response).
   * `value` is the parsed message, undefined when it is not JSON.
   */
  message?(value: unknown, context: MessageMissContext): unknown;
}

/** A JSON answer with the given status and headers. */
export function jsonAnswer(status: number, value: unknown, headers: Record<string, string> = {}): HttpMissAnswer {
  const body = Buffer.from(JSON.stringify(value));
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers, 'content-length': String(body.length) }, body };
}

