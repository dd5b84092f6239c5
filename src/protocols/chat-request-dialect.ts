import { isJsonObject, type JsonObject } from '../core/json.js';

/*
 * A lone `{model, messages}` body is a request of two APIs: one that puts the system prompt at the top
 * level and speaks in content blocks (`max_tokens` required, `tool_use`/`tool_result` blocks, tools
 * with `input_schema`), and one that speaks in roles (`system`, `developer`, `tool` messages,
 * `tool_calls`, function tools). What tells them apart when no route says (a file handed to
 * validate): fields and shapes only one of the two has. Both modules read these two lists, so that
 * they never both claim a body, nor both leave it.
 */

/** Top-level fields only the block API has. */
const BLOCK_FIELDS = ['system', 'stop_sequences', 'top_k', 'thinking'];

/** Top-level fields only the role API has. */
const ROLE_FIELDS = ['max_completion_tokens', 'n', 'stream_options', 'response_format', 'frequency_penalty', 'presence_penalty', 'logprobs', 'top_logprobs', 'logit_bias', 'seed', 'stop', 'parallel_tool_calls', 'reasoning_effort', 'modalities', 'audio', 'functions', 'function_call'];

/** Content block types only the block API has (an `image` with a `source` too). */
const BLOCK_TYPES = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'document', 'search_result']);

/** Content part types only the role API has. */
const ROLE_PARTS = new Set(['image_url', 'input_audio', 'file', 'refusal']);

/** Message roles only the role API has: the block API puts its system prompt at the top level. */
const ROLE_ROLES = new Set(['system', 'developer', 'tool', 'function']);

function blocksOf(body: JsonObject): JsonObject[] {
  if (!Array.isArray(body.messages)) return [];
  return body.messages.flatMap((message) => (isJsonObject(message) && Array.isArray(message.content) ? message.content.filter(isJsonObject) : []));
}

/** What in a `{model, messages}` body only the block API has, or undefined when nothing does. */
export function blockApiMarker(body: JsonObject): string | undefined {
  const field = BLOCK_FIELDS.find((name) => name in body);
  if (field !== undefined) return field === 'system' ? 'top-level system' : field;
  if (Array.isArray(body.tools) && body.tools.some((tool) => isJsonObject(tool) && 'input_schema' in tool)) return 'tools with input_schema';
  if (isJsonObject(body.tool_choice) && ['any', 'tool'].includes(String(body.tool_choice.type))) return `tool_choice ${String(body.tool_choice.type)}`;
  const block = blocksOf(body).find((b) => BLOCK_TYPES.has(String(b.type)) || (b.type === 'image' && isJsonObject(b.source)));
  return block ? `${String(block.type)} content block` : undefined;
}

/** What in a `{model, messages}` body only the role API has, or undefined when nothing does. */
export function roleApiMarker(body: JsonObject): string | undefined {
  const field = ROLE_FIELDS.find((name) => name in body);
  if (field !== undefined) return field;
  if (typeof body.tool_choice === 'string' || (isJsonObject(body.tool_choice) && (body.tool_choice.type === 'function' || 'function' in body.tool_choice))) return 'tool_choice naming a function';
  if (Array.isArray(body.tools) && body.tools.some((tool) => isJsonObject(tool) && isJsonObject(tool.function))) return 'function tools';
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isJsonObject(message)) continue;
    if (ROLE_ROLES.has(String(message.role))) return `a ${String(message.role)} message`;
    if ('tool_calls' in message || 'tool_call_id' in message) return 'tool_calls';
  }
  const part = blocksOf(body).find((b) => ROLE_PARTS.has(String(b.type)));
  return part ? `${String(part.type)} content part` : undefined;
}

/**
 * How sure (0..1) a `{model, messages}` body is the block API's, or the role API's, by these marks:
 * a mark of its own and none of the other's is sure; none either way leaves `max_tokens`, which the
 * block API requires and the role API has deprecated, to decide; a mark of the other's rules it out.
 */
export function chatRequestScores(body: JsonObject): { blocks: number; roles: number } {
  const block = blockApiMarker(body) !== undefined;
  const role = roleApiMarker(body) !== undefined;
  if (block && role) return { blocks: 0.5, roles: 0.5 };
  if (block) return { blocks: 0.9, roles: 0 };
  if (role) return { blocks: 0, roles: 0.9 };
  return typeof body.max_tokens === 'number' ? { blocks: 0.75, roles: 0.6 } : { blocks: 0, roles: 0.7 };
}
