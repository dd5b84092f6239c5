import { isJsonObject, tryParseJson } from '../../core/json.js';
import { parsePointer } from '../../core/field-specs.js';
import { tooDeepToWalk } from '../../core/json-depth.js';
import type { SemanticFold } from '../protocol.js';
import { describeRequestDifference, itemOfCall, pointerTail } from '../model-call-names.js';
import { assembleMessage, type AssembledBlock } from './message-assembly.js';
import { looksLikeRequest } from './routes.js';
import { isMessage, isStreamEvent } from './shapes.js';

/**
 * `diff --semantic` for the Messages API: a call as what the agent asked and what it got back,
 * whether the answer came whole or streamed, and however it was cut into deltas. The request is
 * split into what the agent decides: the system prompt (its text blocks joined), the conversation
 * (a turn's text blocks joined, tool uses and results with their ids labelled), the tools offered
 * (a set by name), and the other settings (`tool_choice`, `thinking`, sampling); the answer is
 * assembled as the SDK's `finalMessage()` assembles it: its content blocks (text, thinking, tool uses
 * with their input parsed), stop reason and usage. Left out: the answer's id, `metadata`, the prompt cache's `cache_control` marks and a thinking block's opaque
 * signature. The tool_use ids an answer mints are labelled by first appearance (`#1`), so a
 * tool_result still names the call it answers. `stream` is kept as a boolean, so that a call streamed
 * pairs with the same call answered whole as one change.
 */
export interface AnthropicCallResult {
  kind: 'anthropic-call';
  request: Record<string, unknown>;
  answer: Record<string, unknown>;
}

type Json = Record<string, unknown>;

/** Fields of a request that say nothing about what was asked: how the answer travels, for whom. */
const UNCOMPARED_REQUEST_FIELDS = new Set(['stream', 'metadata']);
/** Fields of a block that are about the cache or opaque to the agent. */
const UNCOMPARED_BLOCK_FIELDS = new Set(['cache_control', 'signature']);

/** Labels ids by first appearance: `#1`, `#2` … */
class IdLabels {
  private readonly labels = new Map<unknown, string>();
  of(id: unknown): unknown {
    if (typeof id !== 'string') return id;
    let label = this.labels.get(id);
    if (label === undefined) this.labels.set(id, (label = `#${this.labels.size + 1}`));
    return label;
  }
}

/** A text as the model reads it: a string, or blocks that are all text, joined; other blocks folded one by one. */
function foldContent(content: unknown, ids: IdLabels): unknown {
  if (!Array.isArray(content)) return content;
  if (content.length > 0 && content.every((block) => isJsonObject(block) && block.type === 'text' && typeof block.text === 'string')) return content.map((block) => (block as Json).text as string).join('');
  return content.map((block) => foldBlock(block, ids));
}

/** A content block sent back: a tool use's and a tool result's ids labelled, a result's content folded. */
function foldBlock(block: unknown, ids: IdLabels): unknown {
  if (!isJsonObject(block)) return block;
  const folded: Json = {};
  for (const [key, value] of Object.entries(block)) {
    if (UNCOMPARED_BLOCK_FIELDS.has(key)) continue;
    if (key === 'id' || key === 'tool_use_id') folded[key] = ids.of(value);
    else if (key === 'content') folded[key] = foldContent(value, ids);
    else folded[key] = value;
  }
  return folded;
}

/** The tools offered, by name: the order they were listed in does not count. */
function toolSet(tools: unknown): unknown {
  if (!Array.isArray(tools)) return tools;
  const set: Json = {};
  tools.forEach((tool, i) => {
    const name = isJsonObject(tool) && typeof tool.name === 'string' ? tool.name : isJsonObject(tool) && typeof tool.type === 'string' ? tool.type : String(i);
    set[name] = isJsonObject(tool) ? Object.fromEntries(Object.entries(tool).filter(([key]) => !UNCOMPARED_BLOCK_FIELDS.has(key))) : tool;
  });
  return set;
}

function foldRequest(body: Json, ids: IdLabels): Json {
  const request: Json = {};
  for (const [key, value] of Object.entries(body)) {
    if (UNCOMPARED_REQUEST_FIELDS.has(key)) continue;
    if (key === 'system') request.system = foldContent(value, ids);
    else if (key === 'tools') request.tools = toolSet(value);
    else if (key === 'messages' && Array.isArray(value)) request.messages = value.map((m) => (isJsonObject(m) && 'content' in m ? { ...m, content: foldContent(m.content, ids) } : m));
    else request[key] = value;
  }
  // How the answer came, the one difference between a call streamed and the same call answered whole (pairsDeliveries).
  request.stream = body.stream === true;
  return request;
}

/** Tool input as the value it stands for; as sent when it is not JSON (a stream cut inside it) or nests too deep to walk. */
function parsedInput(text: string): unknown {
  const value = tooDeepToWalk(text) ? undefined : tryParseJson(text);
  return value === undefined ? text : value;
}

function foldAnswerBlock(block: AssembledBlock, ids: IdLabels): unknown {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'thinking') return { type: 'thinking', thinking: block.text };
  if (block.input !== '') return { type: block.type, id: ids.of(block.id), name: block.name, input: parsedInput(block.input) };
  return foldBlock(block.block, ids);
}

function foldCall(fed: readonly unknown[], senders: ReadonlyArray<'client' | 'server'>): AnthropicCallResult {
  const ids = new IdLabels();
  let request: Json = {};
  const server: unknown[] = [];
  fed.forEach((value, i) => {
    if ((senders[i] ?? 'server') === 'client') {
      if (isJsonObject(value)) request = foldRequest(value, ids);
    } else server.push(value);
  });
  const message = assembleMessage(server);
  const answer: Json = {};
  if (message !== null) {
    if (message.model !== null) answer.model = message.model;
    answer.content = message.blocks.map((block) => foldAnswerBlock(block, ids));
    if (message.stopReason !== null) answer.stop_reason = message.stopReason;
    if (message.stopSequence !== null) answer.stop_sequence = message.stopSequence;
    if (message.usage !== null) answer.usage = message.usage;
    if (message.error !== null) answer.error = message.error;
  }
  return { kind: 'anthropic-call', request, answer };
}

/** Is this a server message a client assembles its answer from: a stream event, a Message, an error in place of it? */
function foldsAnswer(value: unknown): boolean {
  return isStreamEvent(value) || isMessage(value);
}

const REQUEST_NAMES: Record<string, string> = {
  system: 'the system prompt',
  model: 'the model',
  tools: 'the tools offered',
  tool_choice: 'the tool choice',
  thinking: 'the thinking settings',
  max_tokens: 'the token limit',
};

const ANSWER_NAMES: Record<string, string> = {
  model: "the answer's model",
  stop_reason: "the answer's stop reason",
  stop_sequence: "the answer's stop sequence",
  usage: "the answer's token usage",
  error: "the answer's error",
};

/**
 * Names a difference in the fold: `the system prompt`, `the tool "get_weather" offered: input_schema`,
 * `the conversation's message 2 (assistant): content/0/input/city`, `the answer's text`,
 * `the answer's tool input /city`, `the answer's token usage /output_tokens`.
 */
export function describeAnthropicPointer(pointer: string, a: unknown, b: unknown): string | undefined {
  const [side, top, ...rest] = parsePointer(pointer);
  if (side === 'request' && top !== undefined) return describeRequestDifference(top, rest, a, b, REQUEST_NAMES, ['messages']);
  if (side !== 'answer' || top === undefined) return undefined;
  if (top !== 'content') return (ANSWER_NAMES[top] ?? `the answer's ${top}`) + pointerTail(rest);
  const [index, field, ...deeper] = rest;
  if (index === undefined) return "the answer's content";
  const block = itemOfCall(a, 'answer', 'content', index) ?? itemOfCall(b, 'answer', 'content', index);
  const type = isJsonObject(block) && typeof block.type === 'string' ? block.type : 'block';
  if (field === undefined) return `the answer's content block ${Number(index) + 1} (${type})`;
  if (field === 'text') return "the answer's text";
  if (field === 'thinking') return "the answer's thinking";
  if (field === 'input') return `the answer's tool input${pointerTail(deeper)}`;
  if (field === 'name') return "the answer's tool name";
  return `the answer's ${type} ${field}${pointerTail(deeper)}`;
}

/** Anthropic's fold for `diff --semantic`: a Messages call, its request and its answer (whole or streamed), as one result. */
export const anthropicSemantic: SemanticFold = {
  transports: ['http', 'sse'],
  folds: foldsAnswer,
  foldsClient: (value) => looksLikeRequest('messages', value),
  fold: (fed, _request, senders) => foldCall(fed, senders ?? []),
  describe: describeAnthropicPointer,
  pairsDeliveries: true,
};
