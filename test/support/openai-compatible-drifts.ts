/**
 * How OpenAI-compatible servers (vLLM, Ollama, LiteLLM, OpenRouter, llama.cpp, TGI) answer differently from the
 * OpenAI API description, each drift as a stand-in scenario that reproduces what its source documents the server
 * sending, in one answer of OpenAI's shape changed by that drift alone (real outputs, with all their drifts at once,
 * are in openai-real-outputs.ts). The stand-in (openai-compatible-upstream.ts) answers a chat completion by the drift
 * its `model` names. `sdk` says what the official `openai` client does with it (checked
 * by the test, not assumed): `accepts` it, raises its own `APIError` for an error answer as it does for OpenAI's
 * (`raises-api-error`), or `breaks` (throws on the stream, or assembles a wrong answer). What record finds is
 * `findings` (`rule:severity`, sorted): none at error level for what the SDK accepts.
 */
type Json = Record<string, unknown>;

export interface CompatibleDrift {
  /** The `model` that asks the stand-in for this drift. */
  id: string;
  /** Which server sends it, and where that is documented. */
  server: string;
  source: string;
  /** What the drift is, in a few words (docs/verdicts.md's table). */
  what: string;
  /** Ask for it streamed (through `chat.completions.stream(...).finalChatCompletion()`) or whole (`create`). */
  stream: boolean;
  sdk: 'accepts' | 'raises-api-error' | 'breaks';
  findings: string[];
  /** The answer: a status and a JSON body, or the SSE events of a stream (each a whole `data:` block or a comment). */
  answer: { status: number; json: unknown } | { events: string[] };
}

const CREATED = 1_760_000_000;
const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const DONE = 'data: [DONE]\n\n';

/** A streamed text answer as OpenAI sends it, for a drift to change: a role chunk, two content chunks, the finish chunk, the usage chunk. */
function chunks(model: string, edit: { head?: Json; choice?: Json; finish?: string; usageOnEvery?: boolean; usageWithFinish?: boolean } = {}): Json[] {
  const head = { id: 'chatcmpl-drift', object: 'chat.completion.chunk', created: CREATED, model, system_fingerprint: 'fp_drift', ...edit.head };
  const usage = (completion: number) => ({ prompt_tokens: 7, completion_tokens: completion, total_tokens: 7 + completion });
  const chunk = (delta: Json, finish: string | null, n: number): Json => ({
    ...head,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, ...edit.choice }],
    ...(edit.usageOnEvery ? { usage: usage(n) } : edit.usageWithFinish && finish !== null ? { usage: usage(n) } : {}),
  });
  const out = [chunk({ role: 'assistant', content: '' }, null, 0), chunk({ content: 'Hello ' }, null, 1), chunk({ content: 'there.' }, null, 2), chunk({}, edit.finish ?? 'stop', 2)];
  if (!edit.usageOnEvery && !edit.usageWithFinish) out.push({ ...head, choices: [], usage: usage(2) });
  return out;
}

/** Drops a field from every choice of every chunk. */
function withoutChoiceField(list: Json[], field: string): Json[] {
  return list.map((c) => ({ ...c, choices: (c.choices as Json[]).map((choice) => Object.fromEntries(Object.entries(choice).filter(([k]) => k !== field))) }));
}

/** A streamed tool call answer, its tool call fragments as `calls` gives them. */
function toolChunks(model: string, calls: Json[][]): Json[] {
  const head = { id: 'chatcmpl-drift', object: 'chat.completion.chunk', created: CREATED, model };
  const chunk = (delta: Json, finish: string | null): Json => ({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const usage = { ...head, choices: [], usage: { prompt_tokens: 7, completion_tokens: 12, total_tokens: 19 } };
  return [chunk({ role: 'assistant', content: null }, null), ...calls.map((fragments) => chunk({ tool_calls: fragments }, null)), chunk({}, 'tool_calls'), usage];
}

const events = (list: Json[], more: string[] = []) => ({ events: [...more, ...list.map(data), DONE] });

export const COMPATIBLE_DRIFTS: CompatibleDrift[] = [
  {
    id: 'vllm-error-code-number',
    server: 'vLLM',
    source: 'vllm-project/vllm#12886 and PR #37011 ("Before": `{"error": {"message", "type": "BadRequestError", "code": 400}}`)',
    what: 'an error answer whose `error.code` is the HTTP status as a number, not a string',
    stream: false,
    sdk: 'raises-api-error',
    findings: ['openai-compatible-drift:warning'],
    answer: { status: 400, json: { error: { message: "This model's maximum context length is 2048 tokens.", type: 'BadRequestError', param: null, code: 400 } } },
  },
  {
    id: 'vllm-error-flat',
    server: 'vLLM (before PR #22099)',
    source: 'vllm-project/vllm#12886 (the error at the top level, `{"object": "error", "message", "type", "param", "code": 400}`)',
    what: 'an error answer with no `error` object: its fields at the top level',
    stream: false,
    sdk: 'raises-api-error',
    findings: ['openai-compatible-drift:warning'],
    answer: { status: 400, json: { object: 'error', message: "This model's maximum context length is 2048 tokens.", type: 'BadRequestError', param: null, code: 400 } },
  },
  {
    id: 'ollama-no-logprobs',
    server: 'Ollama, TGI',
    source: 'Ollama chunks as users logged them (g0t4/ask-openai.nvim sse_parse_notes.md: choices of `index`, `delta`, `finish_reason` only); huggingface/text-generation-inference PR #3003 (TGI leaves out what is null)',
    what: 'chunk choices without `logprobs`',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events(withoutChoiceField(chunks('ollama-no-logprobs'), 'logprobs')),
  },
  {
    id: 'vllm-continuous-usage',
    server: 'vLLM, SGLang',
    source: 'vLLM\'s `stream_options.continuous_usage_stats` ("usage statistics are included in every streaming chunk"; dynamo-protocols ChatCompletionStreamOptions docs)',
    what: '`usage` on every chunk, not only on a last one with empty `choices`',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events(chunks('vllm-continuous-usage', { usageOnEvery: true })),
  },
  {
    id: 'llamacpp-usage-with-finish',
    server: 'llama.cpp server, LiteLLM',
    source: 'ggml-org/llama.cpp#15443 (usage in the chunk with `finish_reason`); BerriAI/litellm#28735 (its synthetic usage chunk has non-empty `choices`)',
    what: '`usage` in the finishing chunk, with its choice, and no chunk with empty `choices`',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events(chunks('llamacpp-usage-with-finish', { usageWithFinish: true })),
  },
  {
    id: 'vllm-no-system-fingerprint',
    server: 'vLLM',
    source: "vLLM's ChatCompletionStreamResponse (vllm/entrypoints/openai/protocol.py: id, object, created, model, choices, usage; no `system_fingerprint`); the OpenAI description marks it optional",
    what: 'chunks without `system_fingerprint`',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events(chunks('vllm-no-system-fingerprint').map(({ system_fingerprint: _fp, ...rest }) => rest)),
  },
  {
    id: 'openrouter-gen-id',
    server: 'OpenRouter',
    source: "OpenRouter's API reference (completion ids `gen-…`, not `chatcmpl-…`)",
    what: 'an id without the `chatcmpl-` prefix',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events(chunks('openrouter-gen-id', { head: { id: 'gen-1760000000-AbCdEfGhIjKlMnOp' } })),
  },
  {
    id: 'vllm-extra-fields',
    server: 'vLLM, OpenRouter',
    source: 'langchain-ai/langchain PR #32314 (vLLM answers carry `prompt_logprobs`, `kv_transfer_params`); vLLM\'s stream choice `stop_reason`; OpenRouter\'s `provider` and `native_finish_reason`',
    what: 'fields the description does not name, on the chunk and on its choices',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events(chunks('vllm-extra-fields', { head: { provider: 'Together', prompt_logprobs: null, kv_transfer_params: null }, choice: { stop_reason: null, native_finish_reason: null } })),
  },
  {
    id: 'openrouter-comment',
    server: 'OpenRouter',
    source: 'openrouter.ai/docs/api_reference/streaming ("OpenRouter occasionally sends comments to prevent connection timeouts", `: OPENROUTER PROCESSING`)',
    what: 'SSE comments before and between the chunks',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events(chunks('openrouter-comment'), [': OPENROUTER PROCESSING\n\n', ': OPENROUTER PROCESSING\n\n']),
  },
  {
    id: 'openrouter-midstream-error',
    server: 'OpenRouter',
    source: 'openrouter.ai/docs/api_reference/streaming ("Errors that occur mid-generation still arrive as regular data: events with an error field", with `finish_reason: "error"`)',
    what: 'an error mid-stream as a chunk with an `error` object and `finish_reason: "error"`',
    stream: true,
    sdk: 'raises-api-error',
    findings: ['openai-compatible-drift:warning'],
    answer: {
      events: [
        ...chunks('openrouter-midstream-error').slice(0, 2).map(data),
        data({ id: 'chatcmpl-drift', object: 'chat.completion.chunk', created: CREATED, model: 'openrouter-midstream-error', provider: 'Together', error: { code: 'server_error', message: 'Provider disconnected unexpectedly' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] }),
      ],
    },
  },
  {
    id: 'tgi-finish-eos-token',
    server: 'TGI (before PR #2344), Together',
    source: 'huggingface/text-generation-inference PR #2344 (`finish_reason: "eos_token"`, not `stop`); vespa-engine/vespa PR #33327 (other finish reasons from OpenAI-compatible endpoints)',
    what: 'a `finish_reason` outside the description\'s enum',
    stream: true,
    sdk: 'accepts',
    findings: ['openai-compatible-drift:warning'],
    answer: events(chunks('tgi-finish-eos-token', { finish: 'eos_token' })),
  },
  {
    id: 'ollama-tool-call-no-index',
    server: 'Ollama (before 0.4.7)',
    source: 'ollama/ollama#7881 ("does not populate `tool_calls[].index` … breaks the `chat.completions.stream` helper")',
    what: 'tool call fragments without `index`',
    stream: true,
    sdk: 'breaks',
    // The SDK files each fragment under `tool_calls[undefined]` and hands back no tool call at all.
    findings: ['openai-finish-reason-tool-calls:warning', 'schema:error'],
    answer: events(toolChunks('ollama-tool-call-no-index', [[{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]])),
  },
  {
    id: 'ollama-tool-call-index-reused',
    server: 'Ollama (0.20), LiteLLM ollama_chat',
    source: 'ollama/ollama#15457 and BerriAI/litellm#33678 (every tool call of an answer at `index: 0`, so a client merges them)',
    what: 'two tool calls streamed at the same `index`',
    stream: true,
    sdk: 'breaks',
    findings: ['openai-tool-arguments-not-json:warning', 'openai-tool-call-identity-changed:error'],
    answer: events(
      toolChunks('ollama-tool-call-index-reused', [
        [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        [{ index: 0, id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } }],
      ]),
    ),
  },
];
