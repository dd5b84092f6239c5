/**
 * Stable rule ids of the OpenAI checker, besides `schema` (docs/verdicts.md lists them). Errors are
 * what the API refuses or what makes the official SDK's stream helpers throw; warnings what they let by.
 */
export const OPENAI_RULES = {
  /** error: a chat completion chunk whose `id` differs from the stream's first chunk's. */
  chunkIdChanged: 'openai-chunk-id-changed',
  /** error: a second non-null `finish_reason` for one choice index. */
  finishReasonRepeated: 'openai-finish-reason-repeated',
  /** error: content, a refusal or tool calls for a choice after its `finish_reason`. */
  contentAfterFinish: 'openai-content-after-finish',
  /** error, at the end of a complete stream: a choice with no `finish_reason` (`finalChatCompletion()` throws). */
  finishReasonMissing: 'openai-finish-reason-missing',
  /** error, at the end of a complete stream: a choice whose deltas never gave its `role` (`finalChatCompletion()` throws). */
  roleMissing: 'openai-role-missing',
  /** error: a tool call's first fragment for its index without `id`, `type` or `function.name` (`finalChatCompletion()` throws). */
  toolCallIncomplete: 'openai-tool-call-incomplete',
  /** error: a later fragment for a tool call index with another `id`, `type` or `function.name` than its first. */
  toolCallIdentityChanged: 'openai-tool-call-identity-changed',
  /** warning: a tool call's concatenated `arguments` that do not parse as JSON (models may emit such). */
  toolArgumentsNotJson: 'openai-tool-arguments-not-json',
  /** warning: `finish_reason: "tool_calls"` without a streamed tool call, or tool calls ending otherwise (unless tool_choice named the function). */
  finishReasonToolCalls: 'openai-finish-reason-tool-calls',
  /** error: a chunk after the one carrying `usage` with empty `choices`, which is the last before `[DONE]` (usage on chunks with choices, vLLM's running counts, ends nothing). */
  usageNotLast: 'openai-usage-not-last',
  /** warning, at the end of a complete stream: `stream_options.include_usage` asked for usage and no chunk carried it. */
  usageMissing: 'openai-usage-missing',
  /** error: an event after `data: [DONE]`. */
  dataAfterDone: 'openai-data-after-done',
  /** warning, at the end of a complete stream: chunks and no `data: [DONE]`. */
  doneMissing: 'openai-done-missing',
  /** error: a tool message whose `tool_call_id` answers no tool call of an earlier assistant message of the request (the API answers 400). */
  toolResultUnknownCall: 'openai-tool-result-unknown-call',
  /** warning: a request echoing an answer recorded earlier (same tool calls, names and arguments) with tool call ids that answer never made. */
  toolCallIdNotFromAnswer: 'openai-tool-call-id-not-from-answer',
  /** error: a `tool_choice` naming a function that `tools` does not offer (the API answers 400). */
  toolChoiceUnknownTool: 'openai-tool-choice-unknown-tool',
  /** error: a Responses stream event whose `sequence_number` does not rise above the previous one. */
  sequenceNotIncreasing: 'openai-sequence-not-increasing',
  /** error: a Responses stream whose first event is not `response.created`. */
  createdNotFirst: 'openai-created-not-first',
  /** error: a delta or `.done` for an output item or content part that was not `added` before. */
  deltaBeforeAdded: 'openai-delta-before-added',
  /** error: a `.done` event whose full text or arguments differ from the concatenated deltas. */
  doneDiffersFromDeltas: 'openai-done-differs-from-deltas',
  /** error: a second terminal event (`response.completed`, `.failed`, `.incomplete`, `error`), or an event after one. */
  terminalRepeated: 'openai-terminal-repeated',
  /** warning: a `response.completed` event whose response carries no `usage`. */
  completedWithoutUsage: 'openai-completed-without-usage',
  /** error, at the end of a complete stream: a Responses stream without a terminal event. */
  terminalMissing: 'openai-terminal-missing',
  /**
   * warning: what an OpenAI-compatible server sends against the description but the openai SDK accepts (a finish_reason
   * outside its enum, a numeric error `code`, an error's fields at the top level or without `type`): see compatible-drift.ts.
   */
  compatibleDrift: 'openai-compatible-drift',
} as const;

export type OpenAiRuleId = (typeof OPENAI_RULES)[keyof typeof OPENAI_RULES];
