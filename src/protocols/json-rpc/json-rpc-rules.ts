/** Stable rule ids of the JSON-RPC 2.0 correlation checker (JSON-RPC 2.0 §4–§5). */
export const JSON_RPC_RULES = {
  /** error: a response whose id answers no pending request sent by the other side. */
  unknownResponseId: 'jsonrpc-unknown-response-id',
  /** error: a second response for a request that was already answered. */
  duplicateResponse: 'jsonrpc-duplicate-response',
  /** error: a request reusing the id of a request the same side still has in flight. */
  duplicateRequestId: 'jsonrpc-duplicate-request-id',
  /** error: a response carrying both `result` and `error` (§5: exactly one of them). */
  resultAndError: 'jsonrpc-result-and-error',
  /** error: a response carrying neither `result` nor `error`. */
  noResultOrError: 'jsonrpc-no-result-or-error',
  /** error: a response without the `id` member (§5: required, null when unknown). */
  responseWithoutId: 'jsonrpc-response-without-id',
  /** warning: a request whose id is null (§4: SHOULD NOT be used). */
  nullRequestId: 'jsonrpc-null-request-id',
  /** warning, at the end of the stream: a request that never got its response. */
  unansweredRequest: 'jsonrpc-unanswered-request',
} as const;

export type JsonRpcRule = (typeof JSON_RPC_RULES)[keyof typeof JSON_RPC_RULES];
