/** Stable rule ids of the JSON-RPC 2.0 envelope and correlation rules (JSON-RPC 2.0 §4–§6). */
export const JSON_RPC_RULES = {
  /** error: a message that is not a JSON object (nor a batch of them), or text that is not JSON. */
  notAnObject: 'jsonrpc-not-an-object',
  /** error: `jsonrpc` is not exactly "2.0" (§4, §5). */
  version: 'jsonrpc-version',
  /** error: an object that is neither a request, a notification nor a response. */
  notAMessage: 'jsonrpc-not-a-message',
  /** error: a `method` that is not a string. */
  invalidMethod: 'jsonrpc-invalid-method',
  /** error: an `id` that is not a string, a number or null. */
  invalidId: 'jsonrpc-invalid-id',
  /** error: `params` that is neither an object nor an array (§4.2). */
  invalidParams: 'jsonrpc-invalid-params',
  /** error: an `error` member without an integer `code` and a string `message` (§5.1). */
  invalidError: 'jsonrpc-invalid-error',
  /** error: an empty batch array (§6). */
  emptyBatch: 'jsonrpc-empty-batch',
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
