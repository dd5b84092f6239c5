/**
 * `show` and the inspector assemble each OpenAI answer of a recording: the official `openai` client
 * through `record` to the stand-in upstream (chat completions plain, streamed, a streamed tool call
 * through the stream helper; Responses plain and streamed with a function call; embeddings), then
 * the answers `show --exchange` prints and the inspector's `answer` view hold what the SDK assembled
 * itself (text, tool calls with parsed arguments, stop reason, usage), and `show` sums the tokens
 * in and out per model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startRecorder } from '../../src/record/start-recorder.js';
import { startInspector, type RunningInspector } from '../../src/ui/server/inspector-server.js';
import type { AnswerView, ExchangeDetail } from '../../src/ui/api-types.js';
import { startOpenAiUpstream, type OpenAiUpstream } from '../support/openai-upstream.js';
import { STANDIN_HELLO, STANDIN_MODEL, WEATHER_TOOL } from '../support/openai-scenario.js';
import { testRegistry } from '../support/shared.js';
import { tempDir } from '../support/temp-dir.js';
import { runCli } from './run-cli.js';

const folder = tempDir('agent-proxy-answers-');
const out = folder.file('openai.db');
let upstream: OpenAiUpstream;
let inspector: RunningInspector;
const got: { plain?: OpenAI.ChatCompletion; streamedUsage?: OpenAI.CompletionUsage | null; called?: OpenAI.ChatCompletion; response?: OpenAI.Responses.Response; streamedResponse?: OpenAI.Responses.Response } = {};

beforeAll(async () => {
  upstream = await startOpenAiUpstream();
  const recorder = await startRecorder({ target: upstream.origin, listen: 0, out, registry: testRegistry() });
  const client = new OpenAI({ baseURL: `${recorder.url}/v1`, apiKey: 'sk-standin', maxRetries: 0 });
  const user = (content: string) => ({ role: 'user' as const, content });
  got.plain = await client.chat.completions.create({ model: STANDIN_MODEL, messages: [user('Hi')] }); // 1
  for await (const chunk of await client.chat.completions.create({ model: STANDIN_MODEL, messages: [user('Hi')], stream: true, stream_options: { include_usage: true } })) got.streamedUsage = chunk.usage ?? got.streamedUsage; // 2
  got.called = await client.chat.completions.stream({ model: STANDIN_MODEL, messages: [user('What is the weather in Paris?')], tools: [WEATHER_TOOL] }).finalChatCompletion(); // 3
  got.response = await client.responses.create({ model: STANDIN_MODEL, input: 'Hi' }); // 4
  const tools = [{ type: 'function' as const, name: 'get_weather', parameters: WEATHER_TOOL.function.parameters, strict: true }];
  got.streamedResponse = await client.responses.stream({ model: STANDIN_MODEL, input: 'What is the weather in Paris?', tools }).finalResponse(); // 5
  await client.embeddings.create({ model: 'text-embedding-3-small', input: ['one'] }); // 6
  await recorder.close();
  inspector = await startInspector({ recording: out, listen: 0 });
});

afterAll(async () => {
  await inspector?.close();
  await upstream?.close();
  folder.cleanup();
});

async function answerOf(exchange: number): Promise<AnswerView['answer']> {
  const res = await fetch(`${inspector.url}/api/exchanges/${exchange}/answer`);
  expect(res.status).toBe(200);
  return ((await res.json()) as AnswerView).answer;
}

describe('model answers assembled', () => {
  it('the inspector assembles what the SDK assembled: a streamed tool call, a streamed Response, a plain answer; none for embeddings', async () => {
    expect(((await (await fetch(`${inspector.url}/api/exchanges/3`)).json()) as ExchangeDetail).views).toEqual({ tab: null, state: false, answer: true });
    const call = got.called!.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(await answerOf(3)).toEqual({
      api: 'chat.completions',
      model: got.called!.model,
      id: got.called!.id,
      streamed: true,
      chunks: expect.any(Number) as unknown,
      outputs: [{ index: 0, text: '', reasoning: '', refusal: null, toolCalls: [{ id: call.id, name: call.function.name, arguments: call.function.arguments, parsed: JSON.parse(call.function.arguments) as unknown }], stopReason: got.called!.choices[0].finish_reason }],
      usage: null,
      error: null,
      complete: true,
    });
    const response = got.streamedResponse!;
    const fn = response.output.find((item) => item.type === 'function_call')!;
    expect(await answerOf(5)).toMatchObject({
      api: 'responses',
      id: response.id,
      streamed: true,
      outputs: [{ text: '', toolCalls: [{ id: fn.call_id, name: fn.name, parsed: JSON.parse(fn.arguments) as unknown }], stopReason: response.status }],
      usage: { input: response.usage!.input_tokens, output: response.usage!.output_tokens },
      complete: true,
    });
    expect(await answerOf(1)).toMatchObject({ streamed: false, outputs: [{ text: got.plain!.choices[0].message.content, stopReason: 'stop' }], usage: { input: got.plain!.usage!.prompt_tokens, output: got.plain!.usage!.completion_tokens } });
    expect(await answerOf(4)).toMatchObject({ api: 'responses', streamed: false, outputs: [{ text: got.response!.output_text, toolCalls: [] }] });
    expect(await answerOf(6)).toBeNull();
  });

  it('show prints an exchange\'s answer after its messages, and show --json sums the tokens in and out per model', async () => {
    const [text, json] = await Promise.all([runCli(['show', out, '--exchange', '2']), runCli(['show', out, '--json'])]);
    expect(text.stderr).toBe('');
    const usage = got.streamedUsage!;
    expect(text.stdout.split('\n').slice(-4)).toEqual([
      expect.stringMatching(new RegExp(`^  answer \\(chat\\.completions, ${STANDIN_MODEL}, streamed in \\d+ chunks\\): stopped: stop$`)),
      `    tokens: ${usage.prompt_tokens} in, ${usage.completion_tokens} out`,
      `    text: ${JSON.stringify(STANDIN_HELLO)}`,
      '',
    ]);
    const { tokens } = JSON.parse(json.stdout) as { tokens: unknown };
    const answered = [got.plain!.usage!, usage].map((u) => [u.prompt_tokens, u.completion_tokens]).concat([got.response!, got.streamedResponse!].map((r) => [r.usage!.input_tokens, r.usage!.output_tokens]));
    const sum = (i: number) => answered.reduce((n, pair) => n + pair[i], 0);
    // The streamed tool call asked for no usage (no stream_options.include_usage): counted, with no tokens.
    expect(tokens).toEqual([{ model: STANDIN_MODEL, answers: 5, input: sum(0), output: sum(1), withoutUsage: 1 }]);
  });
});
