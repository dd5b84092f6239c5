/** Stable rule ids of the ACP checker, besides `schema` and the `jsonrpc-*` correlation rules. */
export const ACP_RULES = {
  /**
   * warning: a request or notification sent by the side that is supposed to handle it, per the
   * method's `x-side` (e.g. the client sending `session/update`). The peer answers -32601 or
   * ignores it, so it is a warning, not a schema error.
   */
  wrongDirection: 'acp-wrong-direction',
  /**
   * warning: a notification-only method sent with an id, or a request-only method sent without
   * one. The SDKs dispatch requests and notifications separately, so the peer does not find it.
   */
  wrongKind: 'acp-wrong-message-kind',
  /**
   * warning, once per stream: the Pi session API's `jsonRpcMessage` $def could not be used, so
   * the envelope was checked against the ACP schema's root instead.
   */
  envelopeFallback: 'acp-envelope-fallback',
} as const;
