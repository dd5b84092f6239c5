/**
 * What the stand-in OpenAI upstream (openai-upstream.ts) answers, as OpenAI does: the reply to a
 * request chosen by its last message, and the wire form of that reply for each route, plain or
 * streamed (chunks, tool calls with arguments in fragments, usage, `[DONE]`; Responses events with
 * sequence numbers). Ids and timestamps derive from the request, so the same request gets the same
 * answer from any stand-in, and a direct run, a recorded one and a replay can be compared.
 * - the last chat message is a tool result, or the Responses input ends in a function call output
 *   → a text answer quoting it: `The weather in Paris: <result>`;
 * - the last user message mentions the weather → one `get_weather` call with `{"city":"Paris"}`;
 * - it says `RATE LIMIT` → 429 `rate_limit_exceeded` with `retry-after: 0`;
 * - otherwise → `Hello from the stand-in model.`
 */
import { createHash } from 'node:crypto';

export const STANDIN_MODEL = 'gpt-standin';
export const STANDIN_HELLO = 'Hello from the stand-in model.';
export const WEATHER_TOOL = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

type Json = Record<string, unknown>;

export interface StandinReply {
  kind: 'text' | 'tool' | 'rate-limit';
  /** The text in the pieces it streams in. */
  pieces: string[];
  /** The tool call, its arguments in the fragments they stream in. */
  call?: { id: string; name: string; fragments: string[] };
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export function digest(value: unknown, length = 12): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, length);
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && typeof (p as Json).text === 'string' ? ((p as Json).text as string) : '')).join('');
  return '';
}

/** The words of a text, each with its trailing space: how the stand-in cuts text into deltas. */
function pieces(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

function reply(lastText: string, toolResult: string | undefined, seed: unknown, promptTokens: number): StandinReply {
  const usage = (completion: number) => ({ prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion });
  if (toolResult !== undefined) {
    const text = `The weather in Paris: ${toolResult}`;
    return { kind: 'text', pieces: pieces(text), usage: usage(pieces(text).length) };
  }
  if (/RATE LIMIT/.test(lastText)) return { kind: 'rate-limit', pieces: [], usage: usage(0) };
  if (/weather/i.test(lastText)) {
    return { kind: 'tool', pieces: [], call: { id: `call_${digest(seed, 20)}`, name: 'get_weather', fragments: ['{"ci', 'ty":"Pa', 'ris"}'] }, usage: usage(12) };
  }
  return { kind: 'text', pieces: pieces(STANDIN_HELLO), usage: usage(pieces(STANDIN_HELLO).length) };
}

/** The reply to a chat completion request. */
export function chatReply(body: Json): StandinReply {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const last = messages[messages.length - 1];
  const toolResult = last?.role === 'tool' ? textOf(last.content) : undefined;
  return reply(textOf(last?.content), toolResult, body, 9 + messages.length);
}

/** The reply to a Responses request. */
export function responsesReply(body: Json): StandinReply {
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? (body.input as Json[]) : [];
  const last = input[input.length - 1];
  const toolResult = last?.type === 'function_call_output' && typeof last.output === 'string' ? last.output : undefined;
  return reply(textOf(last?.content), toolResult, body, 9 + input.length);
}

/** OpenAI's error object, as its 4xx and 5xx answers carry it. */
export function errorBody(message: string, type: string, code: string | null): Json {
  return { error: { message, type, param: null, code } };
}

// Chat completions ------------------------------------------------------------------------------

function chatHead(body: Json): { id: string; created: number; model: string } {
  return { id: `chatcmpl-${digest(body)}`, created: 1_760_000_000, model: typeof body.model === 'string' ? body.model : STANDIN_MODEL };
}

/** The `chat.completion` of a plain answer. */
export function chatCompletion(body: Json, answer: StandinReply): Json {
  const toolCalls = answer.call ? [{ id: answer.call.id, type: 'function', function: { name: answer.call.name, arguments: answer.call.fragments.join('') } }] : undefined;
  const message = { role: 'assistant', content: toolCalls ? null : answer.pieces.join(''), refusal: null, annotations: [], ...(toolCalls ? { tool_calls: toolCalls } : {}) };
  return {
    ...chatHead(body),
    object: 'chat.completion',
    choices: [{ index: 0, message, logprobs: null, finish_reason: toolCalls ? 'tool_calls' : 'stop' }],
    usage: answer.usage,
    service_tier: 'default',
    system_fingerprint: 'fp_standin',
  };
}

/** The `chat.completion.chunk`s of a streamed answer, in order (without `[DONE]`). */
export function chatChunks(body: Json, answer: StandinReply): Json[] {
  const includeUsage = typeof body.stream_options === 'object' && body.stream_options !== null && (body.stream_options as Json).include_usage === true;
  const head = { ...chatHead(body), object: 'chat.completion.chunk', service_tier: 'default', system_fingerprint: 'fp_standin' };
  const chunk = (delta: Json, finish: string | null): Json => ({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) });
  const chunks: Json[] = [];
  if (answer.call) {
    const call = answer.call;
    chunks.push(chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }], refusal: null }, null));
    for (const fragment of call.fragments) chunks.push(chunk({ tool_calls: [{ index: 0, function: { arguments: fragment } }] }, null));
    chunks.push(chunk({}, 'tool_calls'));
  } else {
    chunks.push(chunk({ role: 'assistant', content: '', refusal: null }, null));
    for (const piece of answer.pieces) chunks.push(chunk({ content: piece }, null));
    chunks.push(chunk({}, 'stop'));
  }
  if (includeUsage) chunks.push({ ...head, choices: [], usage: answer.usage });
  return chunks;
}

// Responses ---------------------------------------------------------------------------------------

function responseUsage(answer: StandinReply): Json {
  return {
    input_tokens: answer.usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: answer.usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: answer.usage.total_tokens,
  };
}

function responseShell(body: Json, status: string, output: Json[], usage: Json | null): Json {
  return {
    id: `resp_${digest(body, 24)}`,
    object: 'response',
    created_at: 1_760_000_000,
    status,
    completed_at: status === 'completed' ? 1_760_000_001 : null,
    error: null,
    incomplete_details: null,
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    max_output_tokens: null,
    model: typeof body.model === 'string' ? body.model : STANDIN_MODEL,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools.map((tool) => ({ strict: true, ...(tool as Json) })) : [],
    top_p: 1,
    truncation: 'disabled',
    usage,
    metadata: {},
  };
}

/** The items of a Response's output, complete. */
function outputItems(body: Json, answer: StandinReply): Json[] {
  if (answer.call) return [{ id: `fc_${digest(body, 20)}`, type: 'function_call', status: 'completed', arguments: answer.call.fragments.join(''), call_id: answer.call.id, name: answer.call.name }];
  return [{ id: `msg_${digest(body, 20)}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: answer.pieces.join(''), annotations: [], logprobs: [] }] }];
}

/** The Response of a plain answer. */
export function responseObject(body: Json, answer: StandinReply): Json {
  return responseShell(body, 'completed', outputItems(body, answer), responseUsage(answer));
}

/** The events of a streamed Response, in order, each with its sequence number. */
export function responseEvents(body: Json, answer: StandinReply): Json[] {
  const events: Json[] = [];
  const push = (type: string, fields: Json) => events.push({ type, sequence_number: events.length, ...fields });
  push('response.created', { response: responseShell(body, 'in_progress', [], null) });
  push('response.in_progress', { response: responseShell(body, 'in_progress', [], null) });
  const [item] = outputItems(body, answer);
  const item_id = item.id as string;
  if (answer.call) {
    push('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
    for (const delta of answer.call.fragments) push('response.function_call_arguments.delta', { item_id, output_index: 0, delta });
    push('response.function_call_arguments.done', { item_id, output_index: 0, name: answer.call.name, arguments: answer.call.fragments.join('') });
  } else {
    const text = answer.pieces.join('');
    push('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    push('response.content_part.added', { item_id, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
    for (const delta of answer.pieces) push('response.output_text.delta', { item_id, output_index: 0, content_index: 0, delta, logprobs: [] });
    push('response.output_text.done', { item_id, output_index: 0, content_index: 0, text, logprobs: [] });
    push('response.content_part.done', { item_id, output_index: 0, content_index: 0, part: { type: 'output_text', text, annotations: [], logprobs: [] } });
  }
  push('response.output_item.done', { output_index: 0, item });
  push('response.completed', { response: responseObject(body, answer) });
  return events;
}

// Embeddings and models ---------------------------------------------------------------------------

export function embeddingList(body: Json): Json {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const data = inputs.map((input, index) => ({ object: 'embedding', index, embedding: [...digest(input, 8)].map((c) => parseInt(c, 16) / 16) }));
  return { object: 'list', data, model: typeof body.model === 'string' ? body.model : 'text-embedding-standin', usage: { prompt_tokens: inputs.length * 3, total_tokens: inputs.length * 3 } };
}

export function modelList(): Json {
  return { object: 'list', data: [{ id: STANDIN_MODEL, object: 'model', created: 1_700_000_000, owned_by: 'agent-proxy' }] };
}
