/**
 * The version of the rules that judge messages: stored in every recording (`recording.rules_version`),
 * so that a recording judged by older rules is judged again when it is read (validate/current-verdicts.ts)
 * and an old recording and a new one of the same traffic give the same findings. Raise it whenever a
 * rule is added, or a rule changes what it finds; a recording without it predates it (older).
 *
 * 1: the first stored version (response-uncorrelatable for an id-less rejection, upstream-unreachable …).
 * 2: secret-in-traffic (a well-known credential format in the traffic, stored redacted).
 * 3: each protocol declares its stream-end rules (no verdict changes; the list moved into the modules).
 * 4: MCP (its four schemas by negotiated version, lifecycle, ids, cancellation, progress, capabilities).
 * 5: MCP tools' own contracts (arguments against inputSchema, structuredContent against outputSchema,
 *    a call to a tool never listed, a tool schema that cannot be checked).
 * 6: the OpenAI API (its schemas derived from the API description; chat and Responses stream rules,
 *    tool results and tool_choice in requests).
 * 7: the Anthropic Messages API (its schema written from the documentation; event order, content
 *    block pairing and delta types, stop_reason against the blocks, usage; tool_result ids and
 *    tool_choice in requests); a lone {model, messages} body told apart from OpenAI's.
 * 8: MCP over HTTP (each exchange judged with its session's state; the transport rules: session and
 *    version headers, a session the server ended, a response on the GET stream, a 202 with a body,
 *    a message on two streams, 2026-07-28's headers equal to the body).
 * 9: OpenAI-compatible servers' drifts the openai SDK accepts are warnings (openai-compatible-drift), not schema
 *    errors: a finish_reason outside the enum, a numeric error code, an error's fields at the top level, an error
 *    without type or param (OpenRouter's mid-stream); usage on chunks with choices (vLLM's running counts) ends nothing.
 * 10: an MCP session over Streamable HTTP ended by its client's DELETE reports its end (a server request
 *    never answered, notifications/initialized never sent) on the session's last message; MCP 2026-07-28's
 *    listen streams (acknowledged first, the subscription's id on each notification, only the notification
 *    types asked for; a server's close without a result is no unanswered request).
 * 11: real outputs of OpenAI-compatible servers judged as the openai SDK takes them: what they leave out (a choice's
 *    logprobs, a message's refusal or content, a chunk choice's finish_reason while null) or send as null (the
 *    system_fingerprint, usage's token details, a tool call fragment's name ...), and TGI's string error, are one
 *    openai-compatible-drift warning per exchange and drift, not schema errors.
 * 12: MCP 2026-07-28's Mcp-Param-* headers against the x-mcp-header annotations their client saw listed
 *    (missing, not the argument, unmarked) and an invalid annotation; Mcp-Name compared decoded; listen
 *    subscriptions over stdio, each by the id its messages name.
 * 13: a forward proxy's client that failed the TLS handshake with the local CA's leaf is its CONNECT
 *    exchange's client-tls-failed error (it was not recorded).
 * 14: an MCP session over Streamable HTTP reports its end once every exchange of it ended (a server
 *    request on its GET stream after the DELETE was answered is reported, in record as in validate); a
 *    new initialize on an endpoint that issues no session ids ends the endpoint's session before it,
 *    reported as a DELETE's; a session joined midway (or forgotten while recording) reports no response,
 *    cancellation or progress naming a request it may have missed.
 * 15: no verdict changes: ACP's schema is found in its package's folder instead of beside its main entry
 *    (the same file, without loading Node's ES module resolver).
 * 16: no verdict changes where Node may generate code from strings; where it may not
 *    (--disallow-code-generation-from-strings), MCP tool schemas and documents given with --schemas,
 *    which only the run-time compiler can check, leave their messages unchecked with that reason.
 */
export const RULES_VERSION = 16;

/** Were these verdicts made by the current rules? (No version: made before it was stored, so older.) */
export function judgedByCurrentRules(recording: { rulesVersion?: number }): boolean {
  return (recording.rulesVersion ?? 0) >= RULES_VERSION;
}
