/**
 * Stable rule ids of the Anthropic checker, besides `schema` (docs/verdicts.md lists them). Errors are
 * what the API refuses (400) or what makes the official SDK's MessageStream throw or lose part of the
 * answer; warnings what it lets by.
 */
export const ANTHROPIC_RULES = {
  /** error: a stream whose first event (pings and an error aside) is not `message_start`, or a second `message_start` (MessageStream throws "Unexpected event order"). */
  startNotFirst: 'anthropic-start-not-first',
  /** error: an event other than `ping` after `message_stop` or an `error` event, which end the stream. */
  eventAfterEnd: 'anthropic-event-after-end',
  /** error, at the end of a complete stream: `message_start` and no `message_stop` or `error` (`finalMessage()` throws). */
  stopMissing: 'anthropic-stop-missing',
  /** error: a `content_block_start` whose index is not the next one (0, 1, 2 …), or that starts while another block is open. */
  blockOutOfOrder: 'anthropic-block-out-of-order',
  /** error: a `content_block_delta` or `content_block_stop` for an index that is not open (never started, or already stopped). */
  blockNotOpen: 'anthropic-block-not-open',
  /** error: `message_delta` or `message_stop` (or the stream's end) while a content block is still open. */
  blockNotStopped: 'anthropic-block-not-stopped',
  /** error: a delta of a type that does not fit its block (`text_delta` for text, `input_json_delta` for tool_use, `thinking_delta`/`signature_delta` for thinking). */
  deltaTypeMismatch: 'anthropic-delta-type-mismatch',
  /** warning: a tool_use block whose `partial_json` deltas do not concatenate to JSON (fine-grained tool streaming may send such). */
  toolInputNotJson: 'anthropic-tool-input-not-json',
  /** error: `message_stop` with no `message_delta` before it carrying a `stop_reason`. */
  stopReasonMissing: 'anthropic-stop-reason-missing',
  /** error: `stop_reason: "tool_use"` with no tool_use block; warning: a tool_use block ending with `end_turn` or `stop_sequence`. */
  stopReasonMismatch: 'anthropic-stop-reason-mismatch',
  /** warning: a `message_delta` whose cumulative `usage.output_tokens` is lower than an earlier count of the stream (the SDK keeps the last, so token accounting goes wrong quietly). */
  usageDecreasing: 'anthropic-usage-decreasing',
  /** error: a `tool_result` naming a `tool_use_id` that the assistant turn just before it never made (the API answers 400). */
  toolResultUnknownId: 'anthropic-tool-result-unknown-id',
  /** error: a `tool_choice` of type `tool` naming a tool that `tools` does not offer (the API answers 400). */
  toolChoiceUnknownTool: 'anthropic-tool-choice-unknown-tool',
} as const;

export type AnthropicRuleId = (typeof ANTHROPIC_RULES)[keyof typeof ANTHROPIC_RULES];
