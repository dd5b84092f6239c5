import { isJsonObject, type JsonObject } from '../../core/json.js';
import { toolCallOf, type AssembledAnswer, type AssembledOutput, type TokenUsage } from '../assembled-answer.js';

interface ChoiceParts {
  text: string;
  reasoning: string;
  refusal: string | null;
  calls: Map<number, { id: string | null; name: string | null; arguments: string }>;
  stopReason: string | null;
}

/**
 * A chat completion as the openai SDK's `finalChatCompletion()` assembles it: per choice, the content
 * deltas concatenated, each tool call's fragments joined by their index (identity from the first
 * fragment that names it), the finish reason, and the usage of the chunk that carries it. `values`
 * are the server's messages in order: chunks, or the one `chat.completion` of an answer read whole.
 */
export function assembleChat(values: readonly unknown[], requestModel: string | null): AssembledAnswer {
  const answer: AssembledAnswer = { api: 'chat.completions', model: null, id: null, streamed: false, chunks: 0, outputs: [], usage: null, error: null, complete: false };
  const choices = new Map<number, ChoiceParts>();
  const choice = (index: unknown): ChoiceParts => {
    const at = typeof index === 'number' ? index : 0;
    let parts = choices.get(at);
    if (parts === undefined) choices.set(at, (parts = { text: '', reasoning: '', refusal: null, calls: new Map(), stopReason: null }));
    return parts;
  };
  for (const value of values) {
    if (!isJsonObject(value)) continue;
    if (value.error !== undefined && value.error !== null) answer.error ??= errorText(value.error);
    // Older vLLM's error has its fields at the top level: `{"object": "error", "message", "type", "code"}`.
    else if (value.object === 'error' && typeof value.message === 'string') answer.error ??= errorText(value);
    if (value.object === 'chat.completion.chunk') {
      answer.streamed = true;
      answer.chunks++;
    }
    answer.id ??= nonEmpty(value.id);
    answer.model ??= nonEmpty(value.model);
    if (isJsonObject(value.usage)) answer.usage = usageOf(value.usage);
    for (const c of Array.isArray(value.choices) ? value.choices : []) {
      if (!isJsonObject(c)) continue;
      const parts = choice(c.index);
      // A chunk's `delta`, or a whole answer's `message`: the same fields, whole or in pieces.
      const piece = isJsonObject(c.delta) ? c.delta : isJsonObject(c.message) ? c.message : {};
      if (typeof piece.content === 'string') parts.text += piece.content;
      // Reasoning as the compatible servers carry it (DeepSeek, vLLM: reasoning_content; OpenRouter, Ollama: reasoning).
      if (typeof piece.reasoning_content === 'string') parts.reasoning += piece.reasoning_content;
      else if (typeof piece.reasoning === 'string') parts.reasoning += piece.reasoning;
      if (typeof piece.refusal === 'string') parts.refusal = (parts.refusal ?? '') + piece.refusal;
      (Array.isArray(piece.tool_calls) ? piece.tool_calls : []).forEach((call, position) => {
        if (isJsonObject(call)) addFragment(parts, call, position);
      });
      if (typeof c.finish_reason === 'string') parts.stopReason = c.finish_reason;
    }
  }
  answer.model ??= requestModel;
  answer.outputs = [...choices.entries()].sort(([a], [b]) => a - b).map(([index, parts]) => outputOf(index, parts));
  answer.complete = answer.outputs.length > 0 && answer.outputs.every((o) => o.stopReason !== null);
  return answer;
}

/** One tool call fragment: a whole answer's calls have no `index`, so their position stands for it. */
function addFragment(parts: ChoiceParts, call: JsonObject, position: number): void {
  const index = typeof call.index === 'number' ? call.index : position;
  const fn = isJsonObject(call.function) ? call.function : {};
  let made = parts.calls.get(index);
  if (made === undefined) parts.calls.set(index, (made = { id: null, name: null, arguments: '' }));
  made.id ??= nonEmpty(call.id);
  made.name ??= nonEmpty(fn.name);
  if (typeof fn.arguments === 'string') made.arguments += fn.arguments;
}

function outputOf(index: number, parts: ChoiceParts): AssembledOutput {
  const toolCalls = [...parts.calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => toolCallOf(c.id, c.name, c.arguments));
  return { index, text: parts.text, reasoning: parts.reasoning, refusal: parts.refusal, toolCalls, stopReason: parts.stopReason };
}

/** `prompt_tokens` / `completion_tokens` (chat), or `input_tokens` / `output_tokens` (Responses). */
export function usageOf(usage: JsonObject): TokenUsage {
  return { input: count(usage.prompt_tokens ?? usage.input_tokens), output: count(usage.completion_tokens ?? usage.output_tokens) };
}

/** An API error object (`{message, type, code}`) as `code: message`, or whatever was sent, as JSON. */
export function errorText(error: unknown): string {
  if (isJsonObject(error) && typeof error.message === 'string') {
    const code = error.code ?? error.type;
    return typeof code === 'string' || typeof code === 'number' ? `${code}: ${error.message}` : error.message;
  }
  return typeof error === 'string' ? error : JSON.stringify(error);
}

export function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
