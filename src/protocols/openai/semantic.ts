import { isJsonObject, tryParseJson } from '../../core/json.js';
import { parsePointer } from '../../core/field-specs.js';
import type { SemanticFold } from '../protocol.js';
import { describeRequestDifference, pointerTail } from '../model-call-names.js';
import { isChatChunk, isResponseEvent } from './shapes.js';
import { looksLikeRequest } from './routes.js';
import { isDoneEvent } from './checker.js';

/**
 * `diff --semantic` for the OpenAI API: a model call as what the agent asked and what it got back,
 * whether the answer came whole or in chunks, and however it was chunked. The request is split into
 * what the agent decides: the system prompt (system and developer messages, Responses
 * `instructions`), the rest of the conversation, the tools offered (a set by name), and the other
 * settings; the answer is assembled as a client assembles it: each choice's text, its tool calls
 * with parsed arguments, its stop reason, and the token usage. Left out: the answer's ids and
 * timestamps, how it was delivered (`stream_options`, `data: [DONE]`; `stream` is kept as a boolean, so
 * that a call streamed pairs with the same call answered whole as one change), and the fields a client
 * sets per user or cache. The tool call ids an answer mints are labelled by first appearance (`#1`), so a
 * result still names the call it answers.
 */
export interface OpenAiCallResult {
  kind: 'openai-call';
  request: Record<string, unknown>;
  answer: Record<string, unknown>;
}

type Json = Record<string, unknown>;

/** Fields of a request that say nothing about what was asked: how the answer travels (but `stream`, compared as a boolean), who asks, for which cache. */
const UNCOMPARED_REQUEST_FIELDS = new Set(['stream', 'stream_options', 'user', 'metadata', 'prompt_cache_key', 'safety_identifier']);
const SYSTEM_ROLES = new Set(['system', 'developer']);

/** Labels ids by first appearance: `#1`, `#2` … */
class IdLabels {
  private readonly labels = new Map<unknown, string>();
  of(id: unknown): unknown {
    if (typeof id !== 'string' && typeof id !== 'number') return id;
    let label = this.labels.get(id);
    if (label === undefined) this.labels.set(id, (label = `#${this.labels.size + 1}`));
    return label;
  }
}

/** A text, whether a string or a list of content parts. */
function textOf(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  if (!content.every((part) => isJsonObject(part) && typeof part.text === 'string')) return content;
  return content.map((part) => (part as Json).text as string).join('');
}

/** Tool call arguments as the value they stand for; as sent when they are not JSON. */
function parsedArguments(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  const value = tryParseJson(text);
  return value === undefined ? text : value;
}

function withoutEmpty(value: Json): Json {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0)));
}

/** A whole tool call: a function's name and parsed arguments, or a custom tool's name and input. */
function foldToolCall(call: unknown, ids: IdLabels): unknown {
  if (!isJsonObject(call)) return call;
  const fn = isJsonObject(call.function) ? call.function : isJsonObject(call.custom) ? call.custom : {};
  return withoutEmpty({ id: ids.of(call.id), type: call.type, name: fn.name, arguments: parsedArguments(fn.arguments), input: fn.input });
}

/** The tools offered, by name: the order they were listed in does not count. */
function toolSet(tools: unknown): unknown {
  if (!Array.isArray(tools)) return tools;
  const set: Json = {};
  tools.forEach((tool, i) => {
    const fn = isJsonObject(tool) && isJsonObject(tool.function) ? tool.function : tool;
    const name = isJsonObject(fn) && typeof fn.name === 'string' ? fn.name : isJsonObject(tool) && typeof tool.type === 'string' ? tool.type : String(i);
    set[name] = tool;
  });
  return set;
}

function foldRequest(body: Json, ids: IdLabels): Json {
  const request: Json = { system: [] as unknown[] };
  const system = request.system as unknown[];
  for (const [key, value] of Object.entries(body)) {
    if (UNCOMPARED_REQUEST_FIELDS.has(key)) continue;
    if (key === 'instructions') system.push(value);
    else if (key === 'tools') request.tools = toolSet(value);
    else if (key === 'messages' && Array.isArray(value)) request.messages = foldMessages(value, system, ids);
    else if (key === 'input' && Array.isArray(value)) request.input = foldMessages(value, system, ids);
    else request[key] = value;
  }
  // One text, as the model reads it, when every part is text (one system message, or instructions and a developer message).
  if (system.every((part) => typeof part === 'string')) request.system = system.join('\n\n');
  // How the answer came, the one difference between a call streamed and the same call answered whole (pairsDeliveries).
  request.stream = body.stream === true;
  return request;
}

/** The conversation without its system prompt (gathered into `system`), text parts joined, ids labelled. */
function foldMessages(messages: unknown[], system: unknown[], ids: IdLabels): unknown[] {
  const out: unknown[] = [];
  for (const message of messages) {
    if (!isJsonObject(message)) {
      out.push(message);
      continue;
    }
    if (typeof message.role === 'string' && SYSTEM_ROLES.has(message.role)) {
      system.push(textOf(message.content));
      continue;
    }
    const folded: Json = { ...message };
    if ('content' in message) folded.content = textOf(message.content);
    if (Array.isArray(message.tool_calls)) folded.tool_calls = message.tool_calls.map((call) => foldToolCall(call, ids));
    if ('tool_call_id' in message) folded.tool_call_id = ids.of(message.tool_call_id);
    // Responses input items: a function call and its output, each item's own id.
    if ('call_id' in message) folded.call_id = ids.of(message.call_id);
    if ('id' in message) folded.id = ids.of(message.id);
    if (message.type === 'function_call') folded.arguments = parsedArguments(message.arguments);
    out.push(folded);
  }
  return out;
}

/** A chat choice being assembled from chunks. */
interface ChoiceParts {
  role?: unknown;
  content?: string;
  refusal?: string;
  calls: Array<{ id?: unknown; type?: unknown; name?: string; arguments: string }>;
  finish_reason?: unknown;
}

function assembleChunks(chunks: Json[], answer: Json, ids: IdLabels): void {
  const choices = new Map<number, ChoiceParts>();
  for (const chunk of chunks) {
    if (chunk.model !== undefined) answer.model = chunk.model;
    if (isJsonObject(chunk.usage)) answer.usage = chunk.usage;
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (!isJsonObject(choice)) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      let parts = choices.get(index);
      if (!parts) choices.set(index, (parts = { calls: [] }));
      const delta = isJsonObject(choice.delta) ? choice.delta : {};
      if (delta.role !== undefined && delta.role !== null) parts.role = delta.role;
      if (typeof delta.content === 'string') parts.content = (parts.content ?? '') + delta.content;
      if (typeof delta.refusal === 'string') parts.refusal = (parts.refusal ?? '') + delta.refusal;
      for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        if (!isJsonObject(call)) continue;
        const at = typeof call.index === 'number' ? call.index : parts.calls.length;
        const slot = (parts.calls[at] ??= { arguments: '' });
        if (call.id !== undefined) slot.id = call.id;
        if (call.type !== undefined) slot.type = call.type;
        const fn = isJsonObject(call.function) ? call.function : {};
        if (typeof fn.name === 'string') slot.name = (slot.name ?? '') + fn.name;
        if (typeof fn.arguments === 'string') slot.arguments += fn.arguments;
      }
      if (choice.finish_reason !== undefined && choice.finish_reason !== null) parts.finish_reason = choice.finish_reason;
    }
  }
  answer.choices = [...choices.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, parts]) =>
      withoutEmpty({
        role: parts.role,
        content: parts.content === '' ? undefined : parts.content,
        refusal: parts.refusal,
        tool_calls: parts.calls.map((call) => withoutEmpty({ id: ids.of(call.id), type: call.type, name: call.name, arguments: parsedArguments(call.arguments) })),
        finish_reason: parts.finish_reason,
      }),
    );
}

function foldCompletion(completion: Json, answer: Json, ids: IdLabels): void {
  answer.model = completion.model;
  if (isJsonObject(completion.usage)) answer.usage = completion.usage;
  answer.choices = (Array.isArray(completion.choices) ? completion.choices : []).map((choice) => {
    const c = isJsonObject(choice) ? choice : {};
    const message = isJsonObject(c.message) ? c.message : {};
    return withoutEmpty({
      role: message.role,
      content: message.content === '' ? undefined : message.content,
      refusal: message.refusal,
      tool_calls: Array.isArray(message.tool_calls) ? message.tool_calls.map((call) => foldToolCall(call, ids)) : undefined,
      finish_reason: c.finish_reason,
    });
  });
}

/** A Response's outcome: its status, each output item (text joined, arguments parsed, ids labelled), the usage. */
function foldResponse(response: Json, answer: Json, ids: IdLabels): void {
  answer.model = response.model;
  answer.status = response.status;
  if (isJsonObject(response.usage)) answer.usage = response.usage;
  if (response.error !== undefined && response.error !== null) answer.error = response.error;
  answer.output = (Array.isArray(response.output) ? response.output : []).map((item) => {
    if (!isJsonObject(item)) return item;
    if (item.type === 'message') return withoutEmpty({ type: item.type, role: item.role, text: textOf(item.content) });
    if (item.type === 'function_call') return withoutEmpty({ type: item.type, call_id: ids.of(item.call_id), name: item.name, arguments: parsedArguments(item.arguments) });
    const { id: _id, ...rest } = item;
    return rest;
  });
}

/** The last whole Response a stream carried: its terminal event's, else the latest in any event. */
function lastResponse(events: Json[]): Json | undefined {
  for (let i = events.length - 1; i >= 0; i--) if (isJsonObject(events[i].response)) return events[i].response as Json;
  return undefined;
}

function foldCall(fed: readonly unknown[], senders: ReadonlyArray<'client' | 'server'>): OpenAiCallResult {
  const ids = new IdLabels();
  let request: Json = {};
  const server: Json[] = [];
  fed.forEach((value, i) => {
    if (!isJsonObject(value)) return;
    if ((senders[i] ?? 'server') === 'client') request = foldRequest(value, ids);
    else server.push(value);
  });
  const answer: Json = {};
  const events = server.filter(isResponseEvent);
  if (server.some(isChatChunk)) assembleChunks(server.filter(isChatChunk), answer, ids);
  else if (events.length > 0) {
    const response = lastResponse(events);
    if (response) foldResponse(response, answer, ids);
    const error = events.find((e) => e.type === 'error');
    if (error) answer.error = { code: error.code, message: error.message };
  } else {
    const whole = server.find((v) => v.object === 'chat.completion' || v.object === 'response');
    if (whole?.object === 'chat.completion') foldCompletion(whole, answer, ids);
    else if (whole) foldResponse(whole, answer, ids);
  }
  return { kind: 'openai-call', request, answer };
}

/** Is this a server message a client assembles its answer from: a chunk, a Responses event, a whole completion or Response? */
function foldsAnswer(value: unknown): boolean {
  return isChatChunk(value) || isResponseEvent(value) || (isJsonObject(value) && (value.object === 'chat.completion' || value.object === 'response'));
}

/** Is this a request whose conversation the fold names: a chat completion or a Responses call? */
function foldsRequest(value: unknown): boolean {
  return looksLikeRequest('chat', value) || looksLikeRequest('responses', value);
}

const REQUEST_NAMES: Record<string, string> = {
  system: 'the system prompt',
  model: 'the model',
  tools: 'the tools offered',
  tool_choice: 'the tool choice',
  response_format: 'the response format',
  text: 'the response format',
};

const ANSWER_NAMES: Record<string, string> = {
  content: "the answer's text",
  text: "the answer's text",
  refusal: "the answer's refusal",
  finish_reason: "the answer's stop reason",
  tool_calls: "the answer's tool calls",
};

/**
 * Names a difference in the fold: `the system prompt`, `the tool "get_weather" offered: parameters`,
 * `the conversation's message 2 (user): content`, `the answer's text`, `the answer's tool call arguments /city`,
 * `the answer's token usage /completion_tokens`.
 */
export function describeOpenAiPointer(pointer: string, a: unknown, b: unknown): string | undefined {
  const [side, top, ...rest] = parsePointer(pointer);
  if (side === 'request' && top !== undefined) return describeRequestDifference(top, rest, a, b, REQUEST_NAMES, ['messages', 'input']);
  if (side !== 'answer' || top === undefined) return undefined;
  if (top === 'usage') return "the answer's token usage" + pointerTail(rest);
  if (top === 'model') return "the answer's model";
  if (top === 'status') return "the answer's status";
  // A chat choice (`choices/0/…`) or a Responses output item (`output/0/…`): the first choice is the answer itself.
  const [index, field, ...deeper] = rest;
  if (index === undefined) return `the answer's ${top === 'choices' ? 'choices' : 'output'}`;
  const which = top === 'choices' && index !== '0' ? `choice ${Number(index) + 1}: ` : top === 'output' ? `output item ${Number(index) + 1}: ` : '';
  if (field === undefined) return `${which}the answer`;
  if (field === 'tool_calls' && deeper.length > 1 && deeper[1] === 'arguments') return `${which}the answer's tool call arguments${pointerTail(deeper.slice(2))}`;
  if (field === 'tool_calls' && deeper.length > 1 && deeper[1] === 'name') return `${which}the answer's tool call name`;
  if (field === 'arguments') return `${which}the answer's tool call arguments${pointerTail(deeper)}`;
  if (field === 'name') return `${which}the answer's tool call name`;
  return `${which}${ANSWER_NAMES[field] ?? `the answer's ${field}`}${pointerTail(deeper)}`;
}

/**
 * OpenAI's fold for `diff --semantic`: a chat completion or Responses call, its request and its
 * answer (whole or streamed), as one result.
 */
export const openAiSemantic: SemanticFold = {
  transports: ['http', 'sse'],
  folds: foldsAnswer,
  foldsClient: foldsRequest,
  fold: (fed, _request, senders) => foldCall(fed, senders ?? []),
  describe: describeOpenAiPointer,
  pairsDeliveries: true,
  // `data: [DONE]` tells a client only that the stream ended, which its end tells too (and a whole answer has none).
  saysNothing: isDoneEvent,
};
