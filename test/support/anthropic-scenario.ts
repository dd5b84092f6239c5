/**
 * What the stand-in Anthropic upstream (anthropic-upstream.ts) answers, as the Messages API does: the
 * reply to a request chosen by its last message, and its wire form, a Message or the events of its
 * stream (`message_start`, each content block started, given its deltas and stopped, a `ping`,
 * `message_delta` with the stop reason and cumulative usage, `message_stop`), and count_tokens' count.
 * Ids derive from the request, so the same request gets the same answer from any stand-in, and a
 * direct run, a recorded one and a replay can be compared.
 * - the last user turn holds a tool_result → a text answer quoting it: `The weather in Paris: <result>`;
 * - the last user turn mentions the weather → a short text, then one `get_weather` tool_use with
 *   `{"city":"Paris"}` (its input in fragments), stop reason `tool_use`;
 * - it says `RATE LIMIT` → 429 `rate_limit_error` with `retry-after: 0`; `OVERLOADED` → 529 `overloaded_error`;
 *   `MIDSTREAM` → a stream that begins the answer and ends in an `overloaded_error` event;
 * - otherwise → `Hello from the stand-in model.`
 * With `thinking` enabled, the answer begins with a thinking block (thinking deltas, then its signature).
 */
import { digest } from './openai-scenario.js';

export const CLAUDE_MODEL = 'claude-standin-1';
export const CLAUDE_HELLO = 'Hello from the stand-in model.';
export const CLAUDE_WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

type Json = Record<string, unknown>;

export interface ClaudeReply {
  kind: 'text' | 'tool' | 'rate-limit' | 'overloaded' | 'midstream-error';
  /** The thinking text in the pieces it streams in, when thinking is enabled. */
  thinking?: string[];
  /** The text in the pieces it streams in. */
  pieces: string[];
  /** The tool call, its input in the fragments they stream in. */
  call?: { id: string; name: string; fragments: string[] };
  inputTokens: number;
  outputTokens: number;
}

/** The words of a text, each with its trailing space: how the stand-in cuts text into deltas. */
function pieces(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block) => (block && typeof block === 'object' && typeof (block as Json).text === 'string' ? ((block as Json).text as string) : '')).join('');
}

/** The text of the last tool_result of a user turn, if it has one. */
function toolResultOf(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const result = (content as Json[]).filter((block) => block?.type === 'tool_result').at(-1);
  return result ? textOf(result.content) : undefined;
}

/** The reply to a Messages request. */
export function claudeReply(body: Json): ClaudeReply {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const last = messages[messages.length - 1];
  const inputTokens = 9 + messages.length;
  const thinking = typeof body.thinking === 'object' && body.thinking !== null && (body.thinking as Json).type === 'enabled' ? pieces('The user wants a short answer.') : undefined;
  const result = toolResultOf(last?.content);
  const text = textOf(last?.content);
  const reply = (kind: ClaudeReply['kind'], words: string[], call?: ClaudeReply['call']): ClaudeReply => ({
    kind,
    thinking,
    pieces: words,
    call,
    inputTokens,
    outputTokens: words.length + (call ? 12 : 0) + (thinking?.length ?? 0),
  });
  if (result !== undefined) return reply('text', pieces(`The weather in Paris: ${result}`));
  if (/RATE LIMIT/.test(text)) return reply('rate-limit', []);
  if (/OVERLOADED/.test(text)) return reply('overloaded', []);
  if (/MIDSTREAM/.test(text)) return reply('midstream-error', pieces(CLAUDE_HELLO));
  if (/weather/i.test(text)) return reply('tool', pieces("I'll look that up."), { id: `toolu_${digest(body, 24)}`, name: 'get_weather', fragments: ['', '{"ci', 'ty": "Pa', 'ris"}'] });
  return reply('text', pieces(CLAUDE_HELLO));
}

/** Anthropic's error shape, as its 4xx and 5xx answers and a stream's `error` event carry it. */
export function claudeError(type: string, message: string): Json {
  return { type: 'error', error: { type, message }, request_id: 'req_standin' };
}

function usage(reply: ClaudeReply, output: number): Json {
  return { input_tokens: reply.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output, service_tier: 'standard' };
}

const SIGNATURE = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds';

/** The content blocks of the answer, whole. */
function blocks(reply: ClaudeReply): Json[] {
  const content: Json[] = [];
  if (reply.thinking) content.push({ type: 'thinking', thinking: reply.thinking.join(''), signature: SIGNATURE });
  content.push({ type: 'text', text: reply.pieces.join(''), citations: null });
  if (reply.call) content.push({ type: 'tool_use', id: reply.call.id, name: reply.call.name, input: JSON.parse(reply.call.fragments.join('')) as Json });
  return content;
}

function head(body: Json): Json {
  return { id: `msg_${digest(body, 24)}`, type: 'message', role: 'assistant', model: typeof body.model === 'string' ? body.model : CLAUDE_MODEL };
}

/** The Message of a plain answer. */
export function claudeMessage(body: Json, reply: ClaudeReply): Json {
  return { ...head(body), content: blocks(reply), stop_reason: reply.call ? 'tool_use' : 'end_turn', stop_sequence: null, usage: usage(reply, reply.outputTokens) };
}

/** The events of a streamed answer, in order; each is sent as `event: <type>` with its data. */
export function claudeEvents(body: Json, reply: ClaudeReply): Json[] {
  const events: Json[] = [{ type: 'message_start', message: { ...head(body), content: [], stop_reason: null, stop_sequence: null, usage: usage(reply, 1) } }];
  if (reply.kind === 'midstream-error') {
    const { type, error } = claudeError('overloaded_error', 'Overloaded');
    return [...events, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply.pieces[0] } }, { type, error }];
  }
  const whole = blocks(reply);
  whole.forEach((block, index) => {
    if (block.type === 'thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } });
      for (const thinking of reply.thinking ?? []) events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: SIGNATURE } });
    } else if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      if (index === 0) events.push({ type: 'ping' });
      for (const text of reply.pieces) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      for (const partial_json of reply.call?.fragments ?? []) events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: reply.call ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: reply.outputTokens } });
  events.push({ type: 'message_stop' });
  return events;
}

/** count_tokens' answer: what the request would cost as input. */
export function claudeTokenCount(body: Json): Json {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return { input_tokens: 9 + messages.length + (Array.isArray(body.tools) ? 40 * body.tools.length : 0) };
}
