import type { HttpMissAnswer } from './miss-answer.js';

/**
 * How a protocol says a failure a replay injects on purpose (`--fault status=429`,
 * `--fault error=529,after=3`): in its own error shape, so that a client's retry and error paths
 * see what they see from the real server. A module declares it in its ReplayHints; without it the
 * replay sends its own `{"error":{"code":"fault_injected",…}}`.
 */

/** The failure injected, as the replay describes it. */
export interface InjectedFault {
  /** The HTTP status the fault names: the answer's status, or the one an error event stands for (`error=529`). */
  status: number;
  /** One sentence naming the status and the spec: `status 429 injected by --fault status=429`. */
  message: string;
  /** The spec's text as given. */
  spec: string;
}

/** Where in a stream an error event goes. */
export interface StreamPlace {
  /** The request path: one protocol may stream differently per route. */
  path: string;
  /** The last message sent before it, parsed (undefined when none was, or it was not JSON): its sequence number, its id. */
  last: unknown;
}

export interface FaultAnswers {
  /**
   * The answer a `status` fault sends in place of the recorded one: the provider's error body for
   * that status (OpenAI's `{"error":{"type":"server_error",…}}`, an overloaded 529's). The replay
   * adds the `retry-after` headers the spec asks for.
   */
  http?(fault: InjectedFault): HttpMissAnswer;
  /**
   * One event of the protocol's stream saying the server failed mid-answer, framing included
   * (`data: {"error":{…}}\n\n`, `event: error\ndata: {…}\n\n`): the stream ends after it.
   */
  streamError?(fault: InjectedFault, place: StreamPlace): string;
}
