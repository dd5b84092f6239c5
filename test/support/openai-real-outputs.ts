/**
 * Real answers of OpenAI-compatible servers (vLLM, Ollama, LiteLLM, llama.cpp, TGI), as their repositories, docs and
 * issue threads recorded them: the bytes' shapes (fields, nulls, what is left out, the order of chunks), with long
 * texts shortened. Each is a scenario of the compatible stand-in (openai-compatible-upstream.ts), answered to the
 * request whose `model` is its id; `source` names where it was recorded (repository, path and commit, or issue),
 * and says which parts, if any, are put together from the same server's other captures. `sdk` and `findings` are
 * as in openai-compatible-drifts.ts, checked by test/protocols/openai/real-outputs.test.ts: no error where the
 * official `openai` SDK takes the answer.
 */
import type { CompatibleDrift } from './openai-compatible-drifts.js';

type Json = Record<string, unknown>;
const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const DONE = 'data: [DONE]\n\n';
const events = (list: Json[], done = true) => ({ events: [...list.map(data), ...(done ? [DONE] : [])] });

/** vLLM 0.10 (Qwen/Qwen3-0.6B), recorded with curl in Zerohertz/PyCon_KR_2025_Tutorial_vLLM@c6618c90. */
const PYCON = 'Zerohertz/PyCon_KR_2025_Tutorial_vLLM@c6618c90effb222d3c9ec22067335a8b200c0740';
const pyconChunk = (delta: Json, finish: string | null, extra: Json = {}): Json => ({
  id: 'chatcmpl-3a69ae0975b84bf6940a7349172d8935',
  object: 'chat.completion.chunk',
  created: 1754911477,
  model: 'Qwen/Qwen3-0.6B',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, ...extra }],
});

/** A vLLM stream with a tool call (chat-/chatcmpl-tool- ids, usage on every chunk), recorded in vercel/ai's tests. */
const VLLM_TOOL_HEAD = { id: 'chat-2267f7e2910a4254bac0650ba74cfc1c', object: 'chat.completion.chunk', created: 1733162241, model: 'meta/llama-3.1-8b-instruct:fp8' };
const vllmToolChunk = (delta: Json, completion: number, finish: Json = { finish_reason: null }): Json => ({
  ...VLLM_TOOL_HEAD,
  choices: [{ index: 0, delta, logprobs: null, ...finish }],
  usage: { prompt_tokens: 226, total_tokens: 226 + completion, completion_tokens: completion },
});
const vllmArgs = (fragment: string) => ({ tool_calls: [{ index: 0, function: { arguments: fragment } }] });

/** TGI 3.1.2: chunks as its router serializes them (router/src/lib.rs ChatCompletionChunk, chat.rs), values from its snapshots. */
const TGI = 'huggingface/text-generation-inference@db931fcf42da018a3657580c64bf2720f167f9ab';
const tgiChunk = (created: number, delta: Json, finish: string | null, usage: Json | null = null): Json => ({
  object: 'chat.completion.chunk',
  id: '',
  created,
  model: 'meta-llama/Llama-3.1-8B-Instruct',
  system_fingerprint: '3.1.2-dev0-native',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  usage,
});
const TGI_TOOL_ARGUMENTS = ['{', ' "', 'location', '":', ' "', 'Bro', 'oklyn', ',', ' NY', '",', ' "', 'format', '":', ' "', 'f', 'ahrenheit', '"}'];
const TGI_TEXT = ['**', 'Deep', ' Learning', ':', ' An', ' Overview', '**\n', '================================', '=====', '\n\n'];

/** Ollama: chunks as qwen2.5-coder answered through /v1/chat/completions, logged in g0t4/ask-openai.nvim@9b174b48. */
const OLLAMA_NOTES = 'g0t4/ask-openai.nvim@9b174b48d6783dedd652f1db45288841ef83017e lua/ask-openai/backends/ollama/notes/sses.md';
const ollamaChunk = (id: string, created: number, delta: Json, finish: string | null): Json => ({
  id,
  object: 'chat.completion.chunk',
  created,
  model: 'qwen2.5-coder:7b-instruct-q8_0',
  system_fingerprint: 'fp_ollama',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** llama.cpp's llama-server (b4764): its finishing chunk carries usage and timings, and no chunk has empty choices. */
const llamaChunk = (delta: Json, finish: string | null, more: Json = {}): Json => ({
  choices: [{ finish_reason: finish, index: 0, delta }],
  created: 1740866276,
  id: 'chatcmpl-eWACYYovPVwZUlX94o2w9BeOsAhfN3z7',
  model: 'gpt-3.5-turbo',
  system_fingerprint: 'b4764-7ad0779f',
  object: 'chat.completion.chunk',
  ...more,
});

/** LiteLLM's proxy: chunks as ModelResponseStream serializes them, `finish_reason` left out while it is null. */
const litellmChunk = (delta: Json, finish?: string): Json => ({
  id: 'chatcmpl-B1z1HwsKbjazcsxVWxtBgG1FEOFEJ',
  created: 1739812588,
  model: 'gpt-4o',
  object: 'chat.completion.chunk',
  system_fingerprint: 'fp_523b9b6e5f',
  choices: [{ index: 0, delta, ...(finish === undefined ? {} : { finish_reason: finish }) }],
  stream_options: { include_usage: true },
});

export const REAL_OUTPUTS: CompatibleDrift[] = [
  // vLLM
  {
    id: 'real-vllm-plain',
    server: 'vLLM 0.10',
    source: `${PYCON} src/11_v1_chat_completions_enable_thinking.sh`,
    what: 'a plain answer: `reasoning_content`, `tool_calls: []`, no `refusal`, `stop_reason`, `usage.prompt_tokens_details: null`, `prompt_logprobs`, `kv_transfer_params`',
    stream: false,
    sdk: 'accepts',
    findings: ['openai-compatible-drift:warning'],
    answer: {
      status: 200,
      json: {
        id: 'chatcmpl-8eb6c33541a84eb4b96562ef7c858290',
        object: 'chat.completion',
        created: 1754912052,
        model: 'Qwen/Qwen3-0.6B',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', reasoning_content: null, content: "Hello, PyCon Korea 2025! 🎉 What's the best way to celebrate this event? Let me know!", tool_calls: [] },
            logprobs: null,
            finish_reason: 'stop',
            stop_reason: null,
          },
        ],
        usage: { prompt_tokens: 23, total_tokens: 52, completion_tokens: 29, prompt_tokens_details: null },
        prompt_logprobs: null,
        kv_transfer_params: null,
      },
    },
  },
  {
    id: 'real-vllm-tool-call',
    server: 'vLLM 0.10',
    source: `${PYCON} src/07_v1_chat_completions_tool_call.sh (the <think> content shortened)`,
    what: 'a plain answer with a tool call, `finish_reason: "tool_calls"`',
    stream: false,
    sdk: 'accepts',
    findings: ['openai-compatible-drift:warning'],
    answer: {
      status: 200,
      json: {
        id: 'chatcmpl-892580acdd4443edb7eacee820fb2280',
        object: 'chat.completion',
        created: 1753616514,
        model: 'Qwen/Qwen3-0.6B',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              reasoning_content: null,
              content: '<think>\nOkay, the user is asking about the weather in Seoul. I need to use the get_weather function.\n</think>\n\n',
              tool_calls: [{ id: 'chatcmpl-tool-0e7aedb0c1e543d592c2ba92cb77d4d5', type: 'function', function: { name: 'get_weather', arguments: '{"location": "Seoul"}' } }],
            },
            logprobs: null,
            finish_reason: 'tool_calls',
            stop_reason: null,
          },
        ],
        usage: { prompt_tokens: 194, total_tokens: 330, completion_tokens: 136, prompt_tokens_details: null },
        prompt_logprobs: null,
        kv_transfer_params: null,
      },
    },
  },
  {
    id: 'real-vllm-error-flat',
    server: 'vLLM 0.10',
    source: `${PYCON} src/07_v1_chat_completions_tool_call.sh`,
    what: "an error's fields at the top level (`object: \"error\"`, `code` the status as a number)",
    stream: false,
    sdk: 'raises-api-error',
    findings: ['openai-compatible-drift:warning'],
    answer: { status: 400, json: { object: 'error', message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: 'BadRequestError', param: null, code: 400 } },
  },
  {
    id: 'real-vllm-stream',
    server: 'vLLM 0.10',
    source: `${PYCON} src/06_v1_chat_completions_with_stream.sh (the chunks it shows; its "..." left out)`,
    what: 'a streamed answer: a role chunk with empty content, the finishing chunk with empty content and `stop_reason`, no usage',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events([
      pyconChunk({ role: 'assistant', content: '' }, null),
      pyconChunk({ content: '<think>' }, null),
      pyconChunk({ content: '\n' }, null),
      pyconChunk({ content: '!' }, null),
      pyconChunk({ content: '' }, 'stop', { stop_reason: null }),
    ]),
  },
  {
    id: 'real-vllm-stream-tool-call',
    server: 'vLLM',
    source:
      'vercel/ai@1a06e44b237b87a7f4d27f6a922cd25d8c0bfde9 packages/openai-compatible/src/openai-compatible-chat-language-model.test.ts ("should not duplicate tool calls when there is an additional empty chunk"; vLLM\'s chat-/chatcmpl-tool- ids, stop_reason 128008)',
    what: 'a streamed tool call: name first, arguments in fragments, the finishing chunk with an empty fragment, usage on every chunk',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events([
      vllmToolChunk({ role: 'assistant', content: '' }, 0),
      vllmToolChunk({ tool_calls: [{ id: 'chatcmpl-tool-b3b307239370432d9910d4b79b4dbbaa', type: 'function', index: 0, function: { name: 'searchGoogle' } }] }, 7),
      vllmToolChunk(vllmArgs('{"query": "'), 15),
      vllmToolChunk(vllmArgs('latest'), 16),
      vllmToolChunk(vllmArgs(' news'), 17),
      vllmToolChunk(vllmArgs(' on'), 18),
      vllmToolChunk(vllmArgs(' ai"}'), 19),
      vllmToolChunk(vllmArgs(''), 20, { finish_reason: 'tool_calls', stop_reason: 128008 }),
      { ...VLLM_TOOL_HEAD, choices: [], usage: { prompt_tokens: 226, total_tokens: 246, completion_tokens: 20 } },
    ]),
  },
  {
    id: 'real-vllm-0.9-no-finish-reason',
    server: 'vLLM 0.9.0–0.9.1',
    source:
      'vllm-project/vllm#19650 (chunks without `finish_reason`, with `tool_calls: []`; fixed by PR #19662); its three chunks, then the finishing chunk as vLLM 0.10 sends it (real-vllm-stream)',
    what: 'chunk choices without `finish_reason` until the last',
    stream: true,
    sdk: 'accepts',
    findings: ['openai-compatible-drift:warning'],
    answer: events([
      { id: 'chatcmpl-c4eefdc442064e16be757120a2ec7703', object: 'chat.completion.chunk', created: 1749904375, model: 'meta-llama/llama-4-scout-17b-16e-instruct', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
      { id: 'chatcmpl-c4eefdc442064e16be757120a2ec7703', object: 'chat.completion.chunk', created: 1749904375, model: 'meta-llama/llama-4-scout-17b-16e-instruct', choices: [{ index: 0, delta: { content: '안', tool_calls: [] } }] },
      { id: 'chatcmpl-c4eefdc442064e16be757120a2ec7703', object: 'chat.completion.chunk', created: 1749904375, model: 'meta-llama/llama-4-scout-17b-16e-instruct', choices: [{ index: 0, delta: { content: '녕', tool_calls: [] } }] },
      { id: 'chatcmpl-c4eefdc442064e16be757120a2ec7703', object: 'chat.completion.chunk', created: 1749904375, model: 'meta-llama/llama-4-scout-17b-16e-instruct', choices: [{ index: 0, delta: { content: '' }, logprobs: null, finish_reason: 'stop', stop_reason: null }] },
    ]),
  },

  // Ollama
  {
    id: 'real-ollama-plain',
    server: 'Ollama',
    source: 'skypilot-org/skypilot@a7847029c8c267acd178c23f4a3f602f3de035aa llm/ollama/README.md (the answer shortened)',
    what: 'a plain answer whose choice has no `logprobs` and whose message has no `refusal`',
    stream: false,
    sdk: 'accepts',
    findings: ['openai-compatible-drift:warning'],
    answer: {
      status: 200,
      json: {
        id: 'chatcmpl-322',
        object: 'chat.completion',
        created: 1712015174,
        model: 'llama2',
        system_fingerprint: 'fp_ollama',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there! *adjusts glasses* I am Assistant, your friendly and helpful AI companion.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 29, completion_tokens: 68, total_tokens: 97 },
      },
    },
  },
  {
    id: 'real-ollama-stream-one-chunk',
    server: 'Ollama',
    source: `${OLLAMA_NOTES} (the first chunk); \`data: [DONE]\` as ollama/ollama@fb307609 middleware/openai.go writes it`,
    what: 'a whole answer in one chunk: role, content and `finish_reason` together, no `logprobs`',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events([ollamaChunk('chatcmpl-768', 1744445346, { role: 'assistant', content: 'My name is Ben Dover. How can I help you today?' }, 'stop')]),
  },
  {
    id: 'real-ollama-stream-tool-calls',
    server: 'Ollama',
    source: `${OLLAMA_NOTES} (the parallel tool call); \`data: [DONE]\` as ollama/ollama@fb307609 middleware/openai.go writes it`,
    what: 'two whole tool calls in two chunks (index 0 and 1), each repeating role and empty content, then `finish_reason: "tool_calls"`',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events([
      ollamaChunk('chatcmpl-18', 1744446075, { role: 'assistant', content: '', tool_calls: [{ id: 'call_wteop8bt', index: 0, type: 'function', function: { name: 'run_command', arguments: '{"command":"ls"}' } }] }, null),
      ollamaChunk('chatcmpl-18', 1744446075, { role: 'assistant', content: '', tool_calls: [{ id: 'call_rk2xye1l', index: 1, type: 'function', function: { name: 'run_command', arguments: '{"command":"ls -l"}' } }] }, null),
      ollamaChunk('chatcmpl-18', 1744446075, { role: 'assistant', content: '' }, 'tool_calls'),
    ]),
  },
  {
    id: 'real-ollama-error',
    server: 'Ollama',
    source: 'ollama/ollama@fb30760996871fa9460115c753afd2c60d4ab0f7 openai/openai.go (ErrorResponse, NewError: 404 is `not_found_error`, `param` and `code` null)',
    what: 'an error answer for a model it does not have',
    stream: false,
    sdk: 'raises-api-error',
    findings: [],
    answer: { status: 404, json: { error: { message: "model 'nope' not found", type: 'not_found_error', param: null, code: null } } },
  },

  // LiteLLM
  {
    id: 'real-litellm-plain',
    server: 'LiteLLM proxy',
    source: 'BerriAI/litellm@03ba6481623890f9e55e0cc464cde80ce29765dd docs/my-website/docs/proxy/enterprise.md ("Expected Response")',
    what: 'a plain answer with `system_fingerprint: null`, no `logprobs`, no `refusal`',
    stream: false,
    sdk: 'accepts',
    findings: ['openai-compatible-drift:warning'],
    answer: {
      status: 200,
      json: {
        id: 'chatcmpl-9XALnHqkCBMBKrOx7Abg0hURHqYtY',
        choices: [{ finish_reason: 'stop', index: 0, message: { content: 'Hello! How can I assist you today?', role: 'assistant' } }],
        created: 1717691639,
        model: 'gpt-3.5-turbo-0125',
        object: 'chat.completion',
        system_fingerprint: null,
        usage: { completion_tokens: 9, prompt_tokens: 8, total_tokens: 17 },
      },
    },
  },
  {
    id: 'real-litellm-error',
    server: 'LiteLLM proxy',
    source: 'BerriAI/litellm@03ba6481623890f9e55e0cc464cde80ce29765dd docs/my-website/docs/proxy/enterprise.md (enforced params, "Expected Response")',
    what: 'an error with `param: "None"` and `code` the status as a number',
    stream: false,
    sdk: 'raises-api-error',
    findings: ['openai-compatible-drift:warning'],
    answer: { status: 401, json: { error: { message: 'Authentication Error, BadRequest please pass param=user in request body. This is a required param', type: 'auth_error', param: 'None', code: 401 } } },
  },
  {
    id: 'real-litellm-stream',
    server: 'LiteLLM proxy',
    source:
      'BerriAI/liteLLM-proxy#19 (the "?" chunk verbatim: `finish_reason` left out while null, `stream_options` echoed); the first and last chunk in its shape, with the role and the finish_reason the issue says LiteLLM sends',
    what: 'chunk choices without `finish_reason` until the last',
    stream: true,
    sdk: 'accepts',
    findings: ['openai-compatible-drift:warning'],
    answer: events([litellmChunk({ content: 'How can I help', role: 'assistant' }), litellmChunk({ content: '?' }), litellmChunk({}, 'stop')]),
  },

  // llama.cpp
  {
    id: 'real-llamacpp-stream',
    server: 'llama.cpp server',
    source:
      'ggml-org/llama.cpp#12137 (the finishing chunk verbatim, build b4764: usage and timings on it); ggml-org/llama.cpp#15681 (the reasoning_content chunk\'s shape); the role chunk in the same shape',
    what: 'usage (and `timings`) on the finishing chunk, no chunk with empty `choices`, `reasoning_content` deltas',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events([
      llamaChunk({ role: 'assistant', content: null }, null),
      llamaChunk({ reasoning_content: ' appropriate' }, null),
      llamaChunk({}, 'length', {
        usage: { completion_tokens: 1, prompt_tokens: 43, total_tokens: 44 },
        timings: { prompt_n: 43, prompt_ms: 246.082, prompt_per_token_ms: 5.722837209302326, prompt_per_second: 174.73850180021293, predicted_n: 1, predicted_ms: 0.028, predicted_per_token_ms: 0.028, predicted_per_second: 35714.28571428571 },
      }),
    ]),
  },

  {
    id: 'real-llamacpp-error',
    server: 'llama.cpp server',
    source:
      'ggml-org/llama.cpp@0123497e2d1b677868238c2f6cdcff43dfd8fda7 tools/server/utils.hpp (format_error_response: `code` the status, `message`, `type`; no `param`); ggml-org/llama.cpp@01dca87bb81848d72919c6e6966a3680abfe3f0a tools/server/tests/unit/test_security.py (a wrong key: 401, `authentication_error`)',
    what: 'an error whose `code` is the status as a number and that has no `param`',
    stream: false,
    sdk: 'raises-api-error',
    findings: ['openai-compatible-drift:warning'],
    answer: { status: 401, json: { error: { code: 401, message: 'Invalid API Key', type: 'authentication_error' } } },
  },

  // TGI
  {
    id: 'real-tgi-plain',
    server: 'TGI',
    source: `${TGI} integration-tests/models/__snapshots__/test_chat_llama/test_flash_llama_simple.json (text shortened), in the router's wire form (router/src/lib.rs ChatCompletion, TextMessage)`,
    what: 'a plain answer with `id: ""` and a message of role and content only',
    stream: false,
    sdk: 'accepts',
    findings: ['openai-compatible-drift:warning'],
    answer: {
      status: 200,
      json: {
        object: 'chat.completion',
        id: '',
        created: 1724792495,
        model: 'TinyLlama/TinyLlama-1.1B-Chat-v1.0',
        system_fingerprint: '2.2.1-dev0-native',
        choices: [{ index: 0, message: { role: 'assistant', content: 'As of your last question, the weather in Brooklyn, New York, is typically hot and humid throughout the year.' }, logprobs: null, finish_reason: 'length' }],
        usage: { prompt_tokens: 61, completion_tokens: 100, total_tokens: 161 },
      },
    },
  },
  {
    id: 'real-tgi-tool-call',
    server: 'TGI',
    source: `${TGI} integration-tests/models/__snapshots__/test_tools_llama/test_flash_llama_grammar_tools_nostream.json, in the router's wire form (ToolCallMessage: no content; FunctionDefinition's description)`,
    what: 'a tool call answer whose message has no `content`, a tool call id "0", a function `description: null`, `finish_reason: "stop"`',
    stream: false,
    sdk: 'accepts',
    findings: ['openai-compatible-drift:warning'],
    answer: {
      status: 200,
      json: {
        object: 'chat.completion',
        id: '',
        created: 1741372335,
        model: 'meta-llama/Llama-3.1-8B-Instruct',
        system_fingerprint: '3.1.2-dev0-native',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', tool_calls: [{ id: '0', type: 'function', function: { description: null, name: 'get_current_weather', arguments: '{"location":"Brooklyn, NY","format":"fahrenheit"}' } }] },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 501, completion_tokens: 29, total_tokens: 530 },
      },
    },
  },
  {
    id: 'real-tgi-stream',
    server: 'TGI',
    source: `${TGI} integration-tests/models/__snapshots__/test_completion_prompts/test_flash_llama_completion_stream_usage.json, in the router's wire form (chat.rs: role on every delta, usage: null)`,
    what: 'a streamed answer: `id: ""`, role on every chunk, the last text with the finish_reason, then a usage chunk with empty choices',
    stream: true,
    sdk: 'accepts',
    findings: [],
    answer: events([
      ...TGI_TEXT.map((text, i) => tgiChunk(i < 3 ? 1741373593 : 1741373594, { role: 'assistant', content: text }, i === TGI_TEXT.length - 1 ? 'length' : null)),
      { ...tgiChunk(1741373594, {}, null, { completion_tokens: 10, prompt_tokens: 40, total_tokens: 50 }), choices: [] },
    ]),
  },
  {
    id: 'real-tgi-stream-tool-call',
    server: 'TGI 3.1',
    source: `${TGI} integration-tests/models/__snapshots__/test_tools_llama/test_flash_llama_grammar_tools_openai.json (17 chunks, read by the openai Python client), in the router's wire form (chat.rs create_event_from_stream_token: \`name: null\` after the first fragment, no finishing chunk)`,
    what: 'a streamed tool call whose later fragments repeat the id and give `function.name: null`, and that no chunk finishes',
    stream: true,
    // finalChatCompletion() throws "missing finish_reason for choice 0".
    sdk: 'breaks',
    findings: ['openai-compatible-drift:warning', 'openai-finish-reason-missing:error'],
    answer: events(
      TGI_TOOL_ARGUMENTS.map((fragment, i) =>
        tgiChunk(1741689423, { role: 'assistant', tool_calls: [{ index: 0, id: '0', type: 'function', function: { name: i === 0 ? 'get_current_weather' : null, arguments: fragment } }] }, null),
      ),
    ),
  },
  {
    id: 'real-tgi-error',
    server: 'TGI',
    source: `${TGI} docs/openapi.json (POST /v1/chat/completions, 422: the router's ErrorResponse)`,
    what: 'an error whose `error` is a string, with `error_type` beside it',
    stream: false,
    sdk: 'raises-api-error',
    findings: ['openai-compatible-drift:warning'],
    answer: { status: 422, json: { error: 'Input validation error', error_type: 'validation' } },
  },
];
