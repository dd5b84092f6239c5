/** Stable rule ids of the unix-ndjson checker, besides `schema`. */
export const NDJSON_RULES = {
  /** error: a response whose requestId answers no pending command on this connection. */
  unknownRequestId: 'ndjson-unknown-request-id',
  /** error: a second response to a command that was already answered. */
  duplicateResponse: 'ndjson-duplicate-response',
  /** error: a command reusing the requestId of a command still in flight ("request-unique-on-this-connection"). */
  duplicateRequestId: 'ndjson-duplicate-request-id',
  /** error: a response whose major protocol version differs from its command's ("a parsed 2.x command must never receive a silent 1.0 envelope"). */
  responseVersionMismatch: 'ndjson-response-version-mismatch',
  /** error: a command from the daemon, or a response or event from the client. */
  unexpectedSender: 'ndjson-unexpected-sender',
  /** warning: an event for a session generation this connection has not attached to (events flow only after `attach`). */
  eventNotAttached: 'ndjson-event-not-attached',
  /** error: an event whose sequence does not rise above the last one of its session generation. */
  sequenceNotIncreasing: 'ndjson-sequence-not-increasing',
  /** warning: an event whose sequence skips numbers in its session generation. */
  sequenceGap: 'ndjson-sequence-gap',
  /** warning: a hostInstanceId different from earlier ones on the same connection. */
  hostInstanceChanged: 'ndjson-host-instance-changed',
  /** warning, at the end of the stream: a command that never got its response. */
  unansweredCommand: 'ndjson-unanswered-command',
} as const;
