import { MAX_JSON_DEPTH, tooDeepToWalk } from '../core/json-depth.js';

/*
 * A model's answer as a client assembles it from its stream, or reads it whole: the text, the tool
 * calls with their arguments parsed, why it stopped and the tokens it used. `show` and the
 * inspector print it for each exchange whose protocol builds one (ProtocolViews.answer), whatever
 * the provider: each LLM API's module folds its own chunks or events into this one shape.
 */

/** Tokens an answer reports it used; null where the provider did not say. */
export interface TokenUsage {
  /** Prompt tokens: OpenAI's `prompt_tokens` / `input_tokens`, Anthropic's `input_tokens` with its cache reads and writes. */
  input: number | null;
  /** Generated tokens: `completion_tokens` / `output_tokens`. */
  output: number | null;
}

/** A tool call the answer made, its arguments concatenated from their fragments. */
export interface AssembledToolCall {
  id: string | null;
  name: string | null;
  /** The arguments as the model wrote them (JSON text, as the API carries it). */
  arguments: string;
  /** The arguments parsed; absent when they are not JSON (then `argumentsError` says why). */
  parsed?: unknown;
  argumentsError?: string;
}

/** One output of an answer: a choice of a chat completion (there may be several, `n`), or the one answer of other APIs. */
export interface AssembledOutput {
  index: number;
  text: string;
  /** Reasoning or thinking text the answer carried, '' when none. */
  reasoning: string;
  /** A refusal in place of the answer, or null. */
  refusal: string | null;
  toolCalls: AssembledToolCall[];
  /** `finish_reason`, a Response's status (or why it is incomplete), `stop_reason`; null when it never came. */
  stopReason: string | null;
}

export interface AssembledAnswer {
  /** The API that answered: `chat.completions`, `responses`, `messages` … */
  api: string;
  /** The model the answer names, else the one the request asked for; null when neither says. */
  model: string | null;
  /** The answer's own id (`chatcmpl-…`, `resp_…`, `msg_…`), or null. */
  id: string | null;
  streamed: boolean;
  /** How many chunks or events it was assembled from (0 for an answer read whole). */
  chunks: number;
  outputs: AssembledOutput[];
  usage: TokenUsage | null;
  /** The error the server sent instead of the answer, or in the middle of its stream, as text. */
  error: string | null;
  /** It reached its end: a stop reason for every output, or the stream's terminal event. False for a stream cut short. */
  complete: boolean;
}

/** The tokens in and out of a recording's answers by one model (`show`). */
export interface ModelTokens {
  model: string;
  answers: number;
  input: number;
  output: number;
  /** Answers that reported no usage (a chat stream without `stream_options.include_usage`), counted as 0. */
  withoutUsage: number;
}

/** A tool call's arguments, parsed when they are JSON (and no deeper than the views walk: a peer's nesting is no stack depth). */
export function toolCallOf(id: string | null, name: string | null, args: string): AssembledToolCall {
  if (tooDeepToWalk(args)) return { id, name, arguments: args, argumentsError: `nested deeper than ${MAX_JSON_DEPTH} levels: not parsed` };
  try {
    return { id, name, arguments: args, parsed: JSON.parse(args) as unknown };
  } catch (e) {
    return { id, name, arguments: args, argumentsError: args === '' ? 'no arguments' : `not JSON: ${(e as Error).message}` };
  }
}

/** Sums answers' tokens by model, in the order the models first answered. */
export function tokensByModel(answers: Iterable<AssembledAnswer>): ModelTokens[] {
  const byModel = new Map<string, ModelTokens>();
  for (const a of answers) {
    const model = a.model ?? '(no model named)';
    let row = byModel.get(model);
    if (row === undefined) byModel.set(model, (row = { model, answers: 0, input: 0, output: 0, withoutUsage: 0 }));
    row.answers++;
    if (a.usage === null) row.withoutUsage++;
    row.input += a.usage?.input ?? 0;
    row.output += a.usage?.output ?? 0;
  }
  return [...byModel.values()];
}
