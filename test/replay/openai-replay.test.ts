/**
 * Replay as an agent's model calls meet it, through the official `openai` client against recordings
 * written here: a request matches on what the agent decided (the model, the whole conversation, the
 * tools), the ids an earlier answer minted match by where they recur, identical requests take their
 * answers in recorded order; and the faults a provider has (a 429 with `retry-after`, a 5xx, an
 * error event mid-stream, a stream cut short, a slow first token) reach the SDK as the provider's.
 */
import { describe, expect, it } from 'vitest';
import OpenAI, { APIError, OpenAIError } from 'openai';
import { startReplay, type ReplayOptions } from '../../src/replay/start-replay.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { chatChunks, chatCompletion, STANDIN_MODEL, WEATHER_TOOL, type StandinReply } from '../support/openai-scenario.js';
import { writeNdjsonRecording, type HandExchange } from '../support/ndjson-recording.js';
import { ManualClock } from '../support/manual-clock.js';
import { within } from '../support/waits.js';

const cleanups = fixturesAfterEach();
type Json = Record<string, unknown>;
type Message = OpenAI.ChatCompletionMessageParam;

const text = (content: string): StandinReply => ({ kind: 'text', pieces: content.match(/\S+\s*/g) ?? [content], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });

/** A plain chat completion as recorded: the request and OpenAI's answer saying `answer`. */
function plainChat(request: Json, answer: string): HandExchange {
  return {
    transport: 'http',
    protocol: 'openai',
    method: 'POST',
    path: '/v1/chat/completions',
    status: 200,
    responseHeaders: { 'content-type': 'application/json' },
    messages: [
      { sender: 'client', json: request },
      { sender: 'server', json: chatCompletion(request, text(answer)) },
    ],
  };
}

/** A streamed chat completion as recorded: its chunks, then `[DONE]`. */
function streamedChat(request: Json, answer: string): HandExchange {
  return {
    transport: 'sse',
    protocol: 'openai',
    method: 'POST',
    path: '/v1/chat/completions',
    status: 200,
    responseHeaders: { 'content-type': 'text/event-stream; charset=utf-8' },
    messages: [{ sender: 'client', json: request }, ...chatChunks(request, text(answer)).map((json) => ({ sender: 'server' as const, json })), { sender: 'server', raw: 'data: [DONE]\n\n' }],
  };
}

async function replayOf(exchanges: HandExchange[], options: Partial<ReplayOptions> = {}) {
  const replay = await startReplay({ recording: writeNdjsonRecording(exchanges, 'model.ndjson'), listen: 0, timing: 'none', ...options });
  cleanups.push(async () => void (await replay.close()));
  return { replay, client: new OpenAI({ baseURL: `${replay.url}/v1`, apiKey: 'sk-anything', maxRetries: 0 }) };
}

const ask = (messages: Message[], extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) => ({ model: STANDIN_MODEL, messages, ...extra });
const said = (completion: OpenAI.ChatCompletion) => completion.choices[0].message.content;
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** A conversation where the model called get_weather with `callId`, and the tool's result names `resultFor`. */
function afterToolCall(callId: string, resultFor = callId): Message[] {
  return [
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id: callId, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: resultFor, content: 'sunny, 21°C' },
  ];
}

describe('matching a model call on what the agent decided', () => {
  it('gives the same request sent three times the three recorded answers in order, then a miss', async () => {
    const request = ask([{ role: 'user', content: 'Roll a die' }]);
    const { client, replay } = await replayOf([plainChat(request, 'four'), plainChat(request, 'two'), plainChat(request, 'six')]);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(said(await client.chat.completions.create(request)));
    expect(answers).toEqual(['four', 'two', 'six']);
    expect(await failure(client.chat.completions.create(request))).toMatchObject({ status: 404, code: 'replay_miss' });
    expect(replay.misses()).toMatchObject([{ reason: 'exhausted' }]);
  });

  it('never answers a request with the same last message but another history or other tools with the other one', async () => {
    const hi: Message = { role: 'user', content: 'Hi' };
    const recorded = {
      terse: ask([{ role: 'system', content: 'Be terse.' }, hi]),
      verbose: ask([{ role: 'system', content: 'Be verbose.' }, hi]),
      tools: ask([hi], { tools: [WEATHER_TOOL] }),
      bare: ask([hi]),
      forced: ask([hi], { tools: [WEATHER_TOOL], tool_choice: 'required' }),
      json: ask([hi], { response_format: { type: 'json_object' } }),
    };
    const { client, replay } = await replayOf(Object.entries(recorded).map(([name, request]) => plainChat(request, name)));
    // Asked in another order than recorded: each gets its own answer.
    for (const name of ['json', 'bare', 'forced', 'verbose', 'tools', 'terse'] as const) expect(said(await client.chat.completions.create(recorded[name]))).toBe(name);
    // Another system prompt, another tool, another model: misses that name what differs.
    await failure(client.chat.completions.create(ask([{ role: 'system', content: 'Be kind.' }, hi])));
    await failure(client.chat.completions.create(ask([hi], { tools: [{ ...WEATHER_TOOL, function: { ...WEATHER_TOOL.function, name: 'get_time' } }] })));
    await failure(client.chat.completions.create({ ...recorded.bare, model: 'gpt-other' }));
    expect(replay.misses().map((m) => [m.reason, m.differences])).toEqual([
      ['no-match', ['/messages/0/content']],
      ['no-match', ['/tools/0/function/name']],
      ['no-match', ['/model']],
    ]);
  });

  it('matches the tool call ids an answer minted by where they recur, and ignores user, metadata and prompt_cache_key', async () => {
    const recorded = ask(afterToolCall('call_recorded'), { user: 'user-1', metadata: { run: 'a' }, prompt_cache_key: 'key-a' });
    const { client, replay } = await replayOf([plainChat(recorded, 'It is sunny.'), plainChat(recorded, 'Still sunny.')]);
    // The live run's model minted another id, echoed consistently: the same decision.
    expect(said(await client.chat.completions.create(ask(afterToolCall('call_live'), { user: 'user-2', metadata: { run: 'b' }, prompt_cache_key: 'key-b' })))).toBe('It is sunny.');
    // A tool result answering a call the answer never made is another conversation.
    await failure(client.chat.completions.create(ask(afterToolCall('call_live', 'call_other'))));
    expect(replay.misses()).toMatchObject([{ reason: 'no-match', differences: ['/messages/2/tool_call_id'] }]);
    expect(said(await client.chat.completions.create(recorded))).toBe('Still sunny.');
  });
});

describe('faults as a provider has them', () => {
  const hi = ask([{ role: 'user', content: 'Hi' }]);
  const streamed = { ...ask([{ role: 'user', content: 'Tell me a story' }]), stream: true as const };

  it('answers status=429 in OpenAI error shape with retry-after, and the SDK retries onto the recorded answer', async () => {
    const { replay } = await replayOf([plainChat(hi, 'Hello there.')], { faults: ['status=429,retry-after=20ms,nth=1', 'status=503,nth=2'] });
    const direct = await fetch(`${replay.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(hi) });
    expect([direct.status, direct.headers.get('retry-after'), direct.headers.get('retry-after-ms')]).toEqual([429, '1', '20']);
    expect(await direct.json()).toEqual({
      error: { message: 'agent-proxy replay: status 429 injected by --fault status=429,retry-after=20ms,nth=1', type: 'requests', param: null, code: 'rate_limit_exceeded', fault: 'status=429,retry-after=20ms,nth=1' },
    });
    const once = new OpenAI({ baseURL: `${replay.url}/v1`, apiKey: 'sk-anything', maxRetries: 0 });
    expect(await failure(once.chat.completions.create(hi))).toMatchObject({ status: 503, type: 'server_error', code: 'server_error' });
    // Both faults are spent: the answer the 429 and the 503 stood in for is still there.
    expect(said(await once.chat.completions.create(hi))).toBe('Hello there.');
  });

  it('lets the SDK retry a 429 and a 529 whose retry-after it honours, and recover on the recorded answer', async () => {
    const { replay } = await replayOf([plainChat(hi, 'Hello there.')], { faults: ['status=429,retry-after=10ms,nth=1', 'status=529,retry-after=10ms,nth=2'] });
    const retrying = new OpenAI({ baseURL: `${replay.url}/v1`, apiKey: 'sk-anything', maxRetries: 2 });
    expect(said(await retrying.chat.completions.create(hi))).toBe('Hello there.');
    await expect(replay.close()).resolves.toMatchObject({ faults: [{ injected: 1 }, { injected: 1 }] });
  });

  it('tells the SDK not to retry a 429 with should-retry=false, and to retry a 400 with should-retry=true', async () => {
    const { replay } = await replayOf([plainChat(hi, 'Hello there.')], { faults: ['status=429,should-retry=false,nth=1', 'status=400,should-retry=true,retry-after=10ms,nth=2'] });
    const retrying = new OpenAI({ baseURL: `${replay.url}/v1`, apiKey: 'sk-anything', maxRetries: 2 });
    expect(await failure(retrying.chat.completions.create(hi))).toBeInstanceOf(OpenAI.RateLimitError);
    expect(said(await retrying.chat.completions.create(hi))).toBe('Hello there.');
  });

  it('puts OpenAI error event into a stream after N chunks, which the SDK raises as an APIError', async () => {
    const { client } = await replayOf([streamedChat(streamed, 'Once upon a time.')], { faults: ['error=500,after=2'] });
    const got: unknown[] = [];
    const error = await failure(
      (async () => {
        for await (const chunk of await client.chat.completions.create(streamed)) got.push(chunk.choices[0]?.delta.content);
      })(),
    );
    expect(got).toEqual(['', 'Once ']);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ type: 'server_error', code: 'server_error', message: 'agent-proxy replay: a 500 error event injected by --fault error=500,after=2' });
  });

  it('ends a stream cut cleanly before its end so that the stream helper raises its own error', async () => {
    const { client } = await replayOf([streamedChat(streamed, 'Once upon a time.')], { faults: ['cut=clean,after=3'] });
    const { stream: _stream, ...plain } = streamed;
    const error = await failure(client.chat.completions.stream(plain).finalChatCompletion());
    expect(error).toBeInstanceOf(OpenAIError);
  });

  it('sends the head of a stream at once and holds its first token for latency=,after=0, on the replay clock', async () => {
    const clock = new ManualClock();
    const { client } = await replayOf([streamedChat(streamed, 'Once upon a time.')], { faults: ['latency=5s,after=0'], clock });
    // The SDK has its answer's head (a 200 event stream) before any token came.
    const stream = await client.chat.completions.create(streamed);
    const held = await within(clock.sleeping(), 'the replay holds the first token');
    expect(held - clock.now()).toBe(5000);
    const text = (async () => {
      let out = '';
      for await (const chunk of stream) out += chunk.choices[0]?.delta.content ?? '';
      return out;
    })();
    clock.advanceTo(held);
    expect(await text).toBe('Once upon a time.');
  });

  it('holds the whole answer of a stream for latency=, on the replay clock', async () => {
    const clock = new ManualClock();
    const { client } = await replayOf([streamedChat(streamed, 'Once upon a time.')], { faults: ['latency=5s'], clock });
    const text = (async () => {
      let out = '';
      for await (const chunk of await client.chat.completions.create(streamed)) out += chunk.choices[0]?.delta.content ?? '';
      return out;
    })();
    const held = await within(clock.sleeping(), 'the replay holds the answer');
    expect(held - clock.now()).toBe(5000);
    clock.advanceTo(held);
    expect(await text).toBe('Once upon a time.');
  });
});
