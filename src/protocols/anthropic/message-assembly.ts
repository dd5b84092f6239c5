import { isJsonObject, type JsonObject } from '../../core/json.js';

/**
 * A Messages answer as the official SDK's MessageStream accumulates it (`finalMessage()`), or as a
 * plain call returns it whole: the content blocks in index order (text and thinking deltas
 * concatenated, a tool use's `partial_json` fragments joined), the stop reason, and the usage,
 * `message_start`'s updated by each `message_delta`'s (output tokens are cumulative: the last
 * count stands). `show`, the inspector (message-answer.ts) and `diff --semantic` (semantic.ts) read it.
 */
export interface AssembledBlock {
  type: string;
  /** A text block's text, a thinking block's thinking; '' for the others. */
  text: string;
  /** A tool use's id and name (`tool_use`, `server_tool_use`, `mcp_tool_use`), else null. */
  id: string | null;
  name: string | null;
  /** A tool use's input as JSON text: its fragments joined, or the whole input as JSON; '' for the others. */
  input: string;
  /** The block as it started or came whole, for a type without text or input (a server tool's result). */
  block: JsonObject;
}

export interface AssembledMessage {
  id: string | null;
  model: string | null;
  streamed: boolean;
  /** The stream's events, pings left out (0 for a Message read whole). */
  events: number;
  blocks: AssembledBlock[];
  stopReason: string | null;
  stopSequence: string | null;
  usage: JsonObject | null;
  /** The error object sent instead of the answer, or in an `error` event mid-stream. */
  error: unknown;
  /** A Message read whole, or a stream that reached `message_stop`. */
  complete: boolean;
}

/** Block types whose input streams as `input_json_delta`. */
const TOOL_USES = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A block as it came whole or started; a streamed tool use starts with `input: {}`, which its deltas replace when it has any. */
function blockOf(block: JsonObject): AssembledBlock & { json: string } {
  const input = typeof block.type === 'string' && TOOL_USES.has(block.type) ? JSON.stringify(block.input ?? {}) : '';
  return {
    type: typeof block.type === 'string' ? block.type : '',
    text: typeof block.text === 'string' ? block.text : typeof block.thinking === 'string' ? block.thinking : '',
    id: text(block.id),
    name: text(block.name),
    input,
    block,
    json: '',
  };
}

/** The answer in the server's messages of one exchange (a Message, a stream's events, or an error); null when they hold none. */
export function assembleMessage(values: readonly unknown[]): AssembledMessage | null {
  const out: AssembledMessage = { id: null, model: null, streamed: false, events: 0, blocks: [], stopReason: null, stopSequence: null, usage: null, error: null, complete: false };
  const blocks = new Map<number, AssembledBlock & { json: string }>();
  let found = false;
  const head = (message: JsonObject): void => {
    out.id ??= text(message.id);
    out.model ??= text(message.model);
    if (isJsonObject(message.usage)) out.usage = { ...out.usage, ...message.usage };
    if (typeof message.stop_reason === 'string') out.stopReason = message.stop_reason;
    if (typeof message.stop_sequence === 'string') out.stopSequence = message.stop_sequence;
  };
  for (const value of values) {
    if (!isJsonObject(value) || typeof value.type !== 'string') continue;
    const type = value.type;
    if (type === 'message') {
      found = true;
      head(value);
      (Array.isArray(value.content) ? value.content : []).forEach((block, index) => {
        if (isJsonObject(block)) blocks.set(index, blockOf(block));
      });
      out.complete = true;
      continue;
    }
    if (type === 'error') {
      found = true;
      out.error ??= value.error;
      continue;
    }
    if (type === 'ping' || !['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'].includes(type)) continue;
    found = true;
    out.streamed = true;
    out.events++;
    const index = typeof value.index === 'number' ? value.index : -1;
    if (type === 'message_start' && isJsonObject(value.message)) head(value.message);
    else if (type === 'content_block_start' && isJsonObject(value.content_block)) blocks.set(index, blockOf(value.content_block));
    else if (type === 'content_block_delta' && isJsonObject(value.delta)) addDelta(blocks.get(index), value.delta);
    else if (type === 'message_delta') {
      if (isJsonObject(value.delta)) head(value.delta);
      if (isJsonObject(value.usage)) out.usage = { ...out.usage, ...withoutNull(value.usage) };
    } else if (type === 'message_stop') out.complete = true;
  }
  if (!found) return null;
  out.blocks = [...blocks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, { json, ...block }]) => (json === '' ? block : { ...block, input: json }));
  return out;
}

function addDelta(block: (AssembledBlock & { json: string }) | undefined, delta: JsonObject): void {
  if (block === undefined) return;
  if (delta.type === 'text_delta' && typeof delta.text === 'string') block.text += delta.text;
  else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') block.text += delta.thinking;
  else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') block.json += delta.partial_json;
}

/** A `message_delta`'s usage names only what changed; its nulls say nothing. */
function withoutNull(usage: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== null));
}
