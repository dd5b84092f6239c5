/**
 * Replay as an agent's Claude calls meet it, through the official `@anthropic-ai/sdk` client against
 * recordings written here: a request matches on what the agent decided (the model, the system prompt,
 * the whole conversation, the tools, the tool choice), the tool_use ids an earlier answer minted match
 * by where they recur, identical requests take their answers in recorded order; and the faults the
 * Messages API has (a 429, a 529 overloaded, a 5xx, an error event mid-stream) reach the SDK as
 * Anthropic's own.
 */
import { describe, expect, it } from 'vitest';
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { startReplay, type ReplayOptions } from '../../src/replay/start-replay.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { CLAUDE_MODEL, CLAUDE_WEATHER_TOOL, claudeEvents, claudeMessage, type ClaudeReply } from '../support/anthropic-scenario.js';
import { writeNdjsonRecording, type HandExchange } from '../support/ndjson-recording.js';

const cleanups = fixturesAfterEach();
type Json = Record<string, unknown>;
type Message = Anthropic.MessageParam;

const text = (content: string): ClaudeReply => ({ kind: 'text', pieces: content.match(/\S+\s*/g) ?? [content], inputTokens: 5, outputTokens: 3 });

/** A plain Messages call as recorded: the request and Anthropic's Message saying `answer`. */
function plainCall(request: Json, answer: string): HandExchange {
  return {
    transport: 'http',
    protocol: 'anthropic',
    method: 'POST',
    path: '/v1/messages',
    status: 200,
    responseHeaders: { 'content-type': 'application/json' },
    messages: [
      { sender: 'client', json: request },
      { sender: 'server', json: claudeMessage(request, text(answer)) },
    ],
  };
}

/** A streamed Messages call as recorded: each event with its `event:` name, as Anthropic frames them. */
function streamedCall(request: Json, answer: string): HandExchange {
  const events = claudeEvents(request, text(answer));
  return {
    transport: 'sse',
    protocol: 'anthropic',
    method: 'POST',
    path: '/v1/messages',
    status: 200,
    responseHeaders: { 'content-type': 'text/event-stream; charset=utf-8' },
    messages: [{ sender: 'client', json: request }, ...events.map((json) => ({ sender: 'server' as const, json, raw: `event: ${String(json.type)}\ndata: ${JSON.stringify(json)}\n\n` }))],
  };
}

async function replayOf(exchanges: HandExchange[], options: Partial<ReplayOptions> = {}) {
  const replay = await startReplay({ recording: writeNdjsonRecording(exchanges, 'claude.ndjson'), listen: 0, timing: 'none', ...options });
  cleanups.push(async () => void (await replay.close()));
  return { replay, client: new Anthropic({ baseURL: replay.url, apiKey: 'sk-ant-anything', maxRetries: 0 }) };
}

const ask = (messages: Message[], extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}) => ({ model: CLAUDE_MODEL, max_tokens: 256, messages, ...extra });
const said = (message: Anthropic.Message) => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** A conversation where the model called get_weather with `callId`, and the tool_result names `resultFor`. */
function afterToolUse(callId: string, resultFor = callId): Message[] {
  return [
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: callId, name: 'get_weather', input: { city: 'Paris' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: resultFor, content: 'sunny, 21°C' }] },
  ];
}

describe('matching a Claude call on what the agent decided', () => {
  it('gives the same request sent three times the three recorded answers in order, then a miss', async () => {
    const request = ask([{ role: 'user', content: 'Roll a die' }]);
    const { client, replay } = await replayOf([plainCall(request, 'four'), plainCall(request, 'two'), plainCall(request, 'six')]);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(said(await client.messages.create(request)));
    expect(answers).toEqual(['four', 'two', 'six']);
    expect(await failure(client.messages.create(request))).toBeInstanceOf(Anthropic.NotFoundError);
    expect(replay.misses()).toMatchObject([{ reason: 'exhausted' }]);
  });

  it('never answers a request with the same last message but another system prompt, history, tools or tool choice with the other one', async () => {
    const hi: Message = { role: 'user', content: 'Hi' };
    const recorded = {
      terse: ask([hi], { system: 'Be terse.' }),
      verbose: ask([hi], { system: 'Be verbose.' }),
      history: ask([{ role: 'user', content: 'Hello' }, { role: 'assistant', content: 'Hello.' }, hi]),
      tools: ask([hi], { tools: [CLAUDE_WEATHER_TOOL] }),
      bare: ask([hi]),
      forced: ask([hi], { tools: [CLAUDE_WEATHER_TOOL], tool_choice: { type: 'any' } }),
    };
    const { client, replay } = await replayOf(Object.entries(recorded).map(([name, request]) => plainCall(request, name)));
    // Asked in another order than recorded: each gets its own answer.
    for (const name of ['forced', 'bare', 'history', 'verbose', 'tools', 'terse'] as const) expect(said(await client.messages.create(recorded[name]))).toBe(name);
    // Another system prompt, another tool, another model: misses that name what differs.
    await failure(client.messages.create(ask([hi], { system: 'Be kind.' })));
    await failure(client.messages.create(ask([hi], { tools: [{ ...CLAUDE_WEATHER_TOOL, name: 'get_time' }] })));
    await failure(client.messages.create({ ...recorded.bare, model: 'claude-other' }));
    expect(replay.misses().map((m) => [m.reason, m.differences])).toEqual([
      ['no-match', ['/system']],
      ['no-match', ['/tools/0/name']],
      ['no-match', ['/model']],
    ]);
  });

  it('matches the tool_use ids an answer minted by where they recur, and ignores metadata', async () => {
    const recorded = ask(afterToolUse('toolu_recorded'), { metadata: { user_id: 'user-1' } });
    const { client, replay } = await replayOf([plainCall(recorded, 'It is sunny.'), plainCall(recorded, 'Still sunny.')]);
    // The live run's model minted another id, echoed consistently: the same decision.
    expect(said(await client.messages.create(ask(afterToolUse('toolu_live'), { metadata: { user_id: 'user-2' } })))).toBe('It is sunny.');
    // A tool_result answering a call the answer never made is another conversation.
    await failure(client.messages.create(ask(afterToolUse('toolu_live', 'toolu_other'))));
    expect(replay.misses()).toMatchObject([{ reason: 'no-match', differences: ['/messages/2/content/0/tool_use_id'] }]);
    expect(said(await client.messages.create(recorded))).toBe('Still sunny.');
  });
});

describe("faults in Anthropic's own shapes", () => {
  const hi = ask([{ role: 'user', content: 'Hi' }]);
  const streamed = { ...ask([{ role: 'user', content: 'Tell me a story' }]), stream: true as const };

  it('answers status=529 as overloaded_error, 429 as rate_limit_error and a 5xx as api_error, each raised by the SDK as its own error class', async () => {
    const { replay, client } = await replayOf([plainCall(hi, 'Hello there.')], { faults: ['status=529,nth=1', 'status=429,nth=2', 'status=503,nth=3', 'status=413,nth=4', 'status=529,nth=5'] });
    const direct = await fetch(`${replay.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(hi) });
    expect(direct.status).toBe(529);
    expect(await direct.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'agent-proxy replay: status 529 injected by --fault status=529,nth=1', fault: 'status=529,nth=1' },
      request_id: null,
    });
    expect(await failure(client.messages.create(hi))).toMatchObject({ constructor: Anthropic.RateLimitError, status: 429, type: 'rate_limit_error' });
    expect(await failure(client.messages.create(hi))).toMatchObject({ status: 503, type: 'api_error' });
    expect(await failure(client.messages.create(hi))).toMatchObject({ status: 413, type: 'request_too_large' });
    const overloaded = await failure(client.messages.create(hi));
    expect(overloaded).toBeInstanceOf(APIError);
    expect(overloaded).toMatchObject({ status: 529, type: 'overloaded_error' });
    // Every fault is spent: the answer they stood in for is still there.
    expect(said(await client.messages.create(hi))).toBe('Hello there.');
  });

  it('lets the SDK retry a 529 and a 429 and recover on the recorded answer', async () => {
    const { replay } = await replayOf([plainCall(hi, 'Hello there.')], { faults: ['status=529,retry-after=10ms,nth=1', 'status=429,retry-after=10ms,nth=2'] });
    const retrying = new Anthropic({ baseURL: replay.url, apiKey: 'sk-ant-anything', maxRetries: 2 });
    expect(said(await retrying.messages.create(hi))).toBe('Hello there.');
    await expect(replay.close()).resolves.toMatchObject({ faults: [{ injected: 1 }, { injected: 1 }] });
  });

  it("puts Anthropic's error event into a stream after N events, which the SDK raises as an APIError of that type", async () => {
    const { client } = await replayOf([streamedCall(streamed, 'Once upon a time.')], { faults: ['error=529,after=3'] });
    const got: string[] = [];
    const error = await failure(
      (async () => {
        for await (const event of await client.messages.create(streamed)) got.push(event.type);
      })(),
    );
    expect(got).toEqual(['message_start', 'content_block_start']);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ error: { type: 'error', error: { type: 'overloaded_error', message: 'agent-proxy replay: a 529 error event injected by --fault error=529,after=3' } } });
    // The stream helper raises it too.
    const { stream: _stream, ...plain } = streamed;
    const { client: again } = await replayOf([streamedCall(streamed, 'Once upon a time.')], { faults: ['error=500,after=4'] });
    expect(await failure(again.messages.stream(plain).finalMessage())).toMatchObject({ constructor: APIError, error: { error: { type: 'api_error' } } });
  });
});
