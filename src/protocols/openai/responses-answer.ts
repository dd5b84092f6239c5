import { isJsonObject, type JsonObject } from '../../core/json.js';
import { toolCallOf, type AssembledAnswer } from '../assembled-answer.js';
import { errorText, nonEmpty, usageOf } from './chat-answer.js';

/** An output item as far as the answer needs it: a message's text and refusal, a function call, reasoning. */
interface Item {
  type: string;
  text: string;
  refusal: string | null;
  reasoning: string;
  callId: string | null;
  name: string | null;
  arguments: string;
}

const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete']);

/**
 * A Response as the openai SDK's `responses.stream(...).finalResponse()` has it: the output items
 * added, filled by their deltas and replaced by their `.done` item, then the terminal event's whole
 * response, which is what the stream ends with. `values` are the server's messages in order: the
 * stream's events, or the one `response` of an answer read whole.
 */
export function assembleResponse(values: readonly unknown[], requestModel: string | null): AssembledAnswer {
  const answer: AssembledAnswer = { api: 'responses', model: null, id: null, streamed: false, chunks: 0, outputs: [], usage: null, error: null, complete: false };
  let items: Item[] = [];
  let stopReason: string | null = null;
  const response = (r: JsonObject) => {
    answer.id ??= nonEmpty(r.id);
    answer.model ??= nonEmpty(r.model);
    if (isJsonObject(r.usage)) answer.usage = usageOf(r.usage);
    if (isJsonObject(r.error)) answer.error ??= errorText(r.error);
    // Only a finished response's output is whole: `created` and `in_progress` carry it empty.
    if (typeof r.status !== 'string' || r.status === 'in_progress' || r.status === 'queued') return;
    if (Array.isArray(r.output)) items = r.output.map(itemOf);
    stopReason = isJsonObject(r.incomplete_details) && typeof r.incomplete_details.reason === 'string' ? `${r.status}: ${r.incomplete_details.reason}` : r.status;
  };
  for (const value of values) {
    if (!isJsonObject(value)) continue;
    if (value.object === 'response') {
      response(value);
      answer.complete = stopReason !== null;
      continue;
    }
    if (typeof value.type !== 'string') {
      if (isJsonObject(value.error)) answer.error ??= errorText(value.error);
      continue;
    }
    answer.streamed = true;
    answer.chunks++;
    const type = value.type;
    // A peer's index is no array size to trust: one past a million items (or none) stands for the last item.
    const index = Number.isInteger(value.output_index) && (value.output_index as number) >= 0 && (value.output_index as number) < 1_000_000 ? (value.output_index as number) : undefined;
    const at = index ?? items.length - 1;
    const item = items[at];
    const delta = typeof value.delta === 'string' ? value.delta : '';
    if (type === 'error') {
      answer.error ??= errorText(value);
      answer.complete = true;
    } else if (type === 'response.output_item.added' || type === 'response.output_item.done') {
      if (isJsonObject(value.item)) items[index ?? (type === 'response.output_item.added' ? items.length : Math.max(0, at))] = itemOf(value.item);
    } else if (isJsonObject(value.response)) {
      response(value.response);
      if (TERMINAL.has(type)) answer.complete = true;
    } else if (item !== undefined) {
      if (type === 'response.output_text.delta') item.text += delta;
      else if (type === 'response.refusal.delta') item.refusal = (item.refusal ?? '') + delta;
      else if (type === 'response.reasoning_text.delta' || type === 'response.reasoning_summary_text.delta') item.reasoning += delta;
      else if (type === 'response.function_call_arguments.delta') item.arguments += delta;
    }
  }
  answer.model ??= requestModel;
  answer.outputs = [
    {
      index: 0,
      text: items.map((i) => i.text).join(''),
      reasoning: items.map((i) => i.reasoning).join(''),
      refusal: items.some((i) => i.refusal !== null) ? items.map((i) => i.refusal ?? '').join('') : null,
      toolCalls: items.filter((i) => i.type === 'function_call').map((i) => toolCallOf(i.callId, i.name, i.arguments)),
      stopReason,
    },
  ];
  return answer;
}

/** An output item read whole (as added, as done, or in the final response). */
function itemOf(value: unknown): Item {
  const item: Item = { type: '', text: '', refusal: null, reasoning: '', callId: null, name: null, arguments: '' };
  if (!isJsonObject(value)) return item;
  item.type = typeof value.type === 'string' ? value.type : '';
  item.callId = nonEmpty(value.call_id);
  item.name = nonEmpty(value.name);
  if (typeof value.arguments === 'string') item.arguments = value.arguments;
  for (const part of Array.isArray(value.content) ? value.content : []) {
    if (!isJsonObject(part)) continue;
    if (part.type === 'output_text' && typeof part.text === 'string') item.text += part.text;
    else if (part.type === 'refusal' && typeof part.refusal === 'string') item.refusal = (item.refusal ?? '') + part.refusal;
    else if (part.type === 'reasoning_text' && typeof part.text === 'string') item.reasoning += part.text;
  }
  if (item.type === 'reasoning' && item.reasoning === '') {
    for (const part of Array.isArray(value.summary) ? value.summary : []) if (isJsonObject(part) && typeof part.text === 'string') item.reasoning += part.text;
  }
  return item;
}
