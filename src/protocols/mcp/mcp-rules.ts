/**
 * Stable rule ids of the MCP checker, besides `schema` and the `jsonrpc-*` correlation rules it
 * shares with plain JSON-RPC (a response answers an open request with exactly one of result/error).
 */
export const MCP_RULES = {
  /** error: a line on a stdio server's stdout, or its stdin, that is not a JSON-RPC message (MCP allows nothing else there). */
  notJsonRpc: 'mcp-not-json-rpc',
  /** error: the client's first message is not `initialize` (lifecycle: initialization is the first interaction). */
  initializeNotFirst: 'mcp-initialize-not-first',
  /** error: a second `initialize` in one session. */
  initializeRepeated: 'mcp-initialize-repeated',
  /**
   * warning: a request other than ping before initialization is done: the client's before the
   * InitializeResult, or after it without `notifications/initialized` first (once); the server's
   * before `notifications/initialized` (all SHOULD NOT).
   */
  beforeInitialized: 'mcp-request-before-initialized',
  /** warning, at the end of the stream: the InitializeResult came, and the client never sent `notifications/initialized`. */
  initializedMissing: 'mcp-initialized-missing',
  /** error: a request whose id is null (MCP: MUST NOT). */
  nullRequestId: 'mcp-null-request-id',
  /** error: a request reusing an id its sender already used in this session (MCP: MUST NOT), though that request was answered. */
  requestIdReused: 'mcp-request-id-reused',
  /** error: `notifications/cancelled` naming no request its sender issued, or the `initialize` request. */
  cancelUnknownRequest: 'mcp-cancel-unknown-request',
  /** error: `initialize` cancelled (MCP: MUST NOT). */
  cancelInitialize: 'mcp-cancel-initialize',
  /** error: a progress token already used by another active request of the same sender. */
  progressTokenReused: 'mcp-progress-token-reused',
  /** error: progress for a token no request of the other side carries. */
  progressUnknownToken: 'mcp-progress-unknown-token',
  /** error: progress for a request already answered. */
  progressAfterResponse: 'mcp-progress-after-response',
  /** error: a `progress` value not greater than the previous one for the same token. */
  progressNotIncreasing: 'mcp-progress-not-increasing',
  /** error: a request for a capability its receiver did not declare in initialization (tools, sampling, resources.subscribe ...). */
  capabilityNotNegotiated: 'mcp-capability-not-negotiated',
  /** warning: a request or notification the schema lets only the other side send (a server calling tools/call). */
  wrongDirection: 'mcp-wrong-direction',
  /**
   * warning, on the tools/list result: a tool's inputSchema or outputSchema that is not checked (not
   * an object, too large or deep, a `$ref` outside itself, a `$schema` of another dialect than JSON
   * Schema 2020-12, 2019-09 or draft-07, invalid, or not compilable); also on a value whose check a
   * pattern of the schema made run out of time.
   */
  toolSchemaUnchecked: 'mcp-tool-schema-unchecked',
  /** error: a tools/call whose `arguments` break the tool's listed `inputSchema`. */
  toolArgumentsInvalid: 'mcp-tool-arguments-invalid',
  /** error: a tools/call result whose `structuredContent` breaks the tool's listed `outputSchema` (MCP: MUST conform). */
  toolStructuredContentInvalid: 'mcp-tool-structured-content-invalid',
  /** warning: a tools/call of a tool not in the server's tools/list, once a whole listing was seen (no list_changed since). */
  toolUnknown: 'mcp-tool-unknown',
  /** error: over Streamable HTTP, a request (other than initialize) without `Mcp-Session-Id` to an endpoint whose server issues session ids. */
  httpSessionIdMissing: 'mcp-http-session-id-missing',
  /** error: over Streamable HTTP, a request carrying a session id the server answered 404 to: the client must initialize a new session. */
  httpSessionEnded: 'mcp-http-session-ended',
  /** error: over Streamable HTTP, a request after initialization without `MCP-Protocol-Version` (required from 2025-06-18 on). */
  httpVersionHeaderMissing: 'mcp-http-version-header-missing',
  /** error: over Streamable HTTP, `MCP-Protocol-Version` other than the negotiated version. */
  httpVersionHeaderMismatch: 'mcp-http-version-header-mismatch',
  /** error: a JSON-RPC response on the standalone GET stream, which was not opened to resume one (no `Last-Event-ID`). */
  httpResponseOnGetStream: 'mcp-http-response-on-get-stream',
  /** error: a POST of notifications and responses only answered with a body: the answer is 202 Accepted with none. */
  httpAcceptedWithBody: 'mcp-http-accepted-with-body',
  /** error: the same server message (a request or a response by its id) delivered on two streams of one session. */
  httpMessageOnTwoStreams: 'mcp-http-message-on-two-streams',
  /** error: 2026-07-28: `Mcp-Method`, `Mcp-Name` or `MCP-Protocol-Version` missing or not equal to the body's method, name or uri, or `_meta` version (the server's HeaderMismatch). */
  httpHeaderMismatch: 'mcp-http-header-mismatch',
  /**
   * error: 2026-07-28: on a `subscriptions/listen` stream, a notification or the result that ends the
   * subscription before `notifications/subscriptions/acknowledged` (MUST be its first message), such as
   * a listen answered at once with a plain JSON result.
   */
  listenNotAcknowledgedFirst: 'mcp-listen-not-acknowledged-first',
  /** error: 2026-07-28: a notification on a listen stream without the subscription's id (the listen request's) in `_meta`. */
  listenSubscriptionId: 'mcp-listen-subscription-id',
  /** error: 2026-07-28: a notification type on a listen stream the client did not opt in to (its SubscriptionFilter). */
  listenNotRequested: 'mcp-listen-not-requested',
  /**
   * error: 2026-07-28: a tools/list result with a tool whose inputSchema's `x-mcp-header` annotation breaks
   * the transport's constraints (empty, not a token, repeated, on a type other than string, integer or
   * boolean, or not reached by `properties` keys alone): the tool definition is invalid.
   */
  toolHeaderAnnotationInvalid: 'mcp-tool-header-annotation-invalid',
  /** error: 2026-07-28: a tools/call without the `Mcp-Param-{Name}` header of an argument its tool mirrors (x-mcp-header), whose value it has. */
  httpParamHeaderMissing: 'mcp-http-param-header-missing',
  /** error: 2026-07-28: an `Mcp-Param-{Name}` header that, decoded, is not the argument's value (or is sent for an absent or null one, or cannot be read). */
  httpParamHeaderMismatch: 'mcp-http-param-header-mismatch',
  /** warning: 2026-07-28: an `Mcp-Param-{Name}` header on a tools/call whose tool annotates no argument with that name. */
  httpParamHeaderUnmarked: 'mcp-http-param-header-unmarked',
} as const;

export type McpRule = (typeof MCP_RULES)[keyof typeof MCP_RULES];
