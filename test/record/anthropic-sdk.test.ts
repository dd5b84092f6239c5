/**
 * The official `@anthropic-ai/sdk` client (1.17, on Node 20) through `record` to the stand-in Anthropic
 * upstream, then against `replay` of that recording: messages.create plain and streamed,
 * `messages.stream(...).finalMessage()` with a tool_use and then its tool_result and with extended
 * thinking, count_tokens, a 429 and a stream ending in an overloaded_error event. What the SDK hands
 * back is deep-equal to a direct run's, the recording is judged `anthropic` with no finding, the API
 * key (`Authorization: Bearer`, as the SDK sends it, or `x-api-key`) never reaches the disk and replay
 * needs none, a request replay cannot match raises the SDK's own NotFoundError with the miss report,
 * the SDK's retry of an injected 529 gets the recorded answer, and a stream cut short raises the
 * SDK's connection error.
 */
import { describe, expect, it } from 'vitest';
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { startRecorder } from '../../src/record/start-recorder.js';
import { startReplay } from '../../src/replay/start-replay.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { startAnthropicUpstream } from '../support/anthropic-upstream.js';
import { CLAUDE_HELLO, CLAUDE_MODEL, CLAUDE_WEATHER_TOOL, claudeReply } from '../support/anthropic-scenario.js';
import { testRegistry } from '../support/shared.js';
import { runCli } from '../cli/run-cli.js';
import { storedBytes } from '../support/stored-bytes.js';

const cleanups = fixturesAfterEach();
const API_KEY = 'sk-ant-api03-standin0123456789abcdefghijklmnopqrstuvwxyzSECRET';
/** A key sent as `x-api-key`, as the API documents it (the SDK 1.17 sends its apiKey as a bearer token). */
const X_API_KEY = 'sk-ant-api03-xapikey0123456789abcdefghijklmnopqrstuvwxyzXKEY';

/** What the agent's calls got back, in order: the SDK's objects as it hands them out, or its error. */
async function agentRun(client: Anthropic): Promise<unknown[]> {
  const out: unknown[] = [];
  const user = (content: string) => ({ role: 'user' as const, content });
  out.push(await client.messages.create({ model: CLAUDE_MODEL, max_tokens: 256, messages: [user('Hi')] }));

  const events: unknown[] = [];
  for await (const event of await client.messages.create({ model: CLAUDE_MODEL, max_tokens: 256, messages: [user('Hi')], stream: true })) events.push(event);
  out.push(events);

  // The agent loop: a streamed answer with a tool_use, then its tool_result, then the answer.
  const ask = [user('What is the weather in Paris?')];
  const called = await client.messages.stream({ model: CLAUDE_MODEL, max_tokens: 256, messages: ask, tools: [CLAUDE_WEATHER_TOOL] }).finalMessage();
  out.push(called);
  const call = called.content.find((block) => block.type === 'tool_use');
  if (call?.type !== 'tool_use') throw new Error('the stand-in made no tool_use');
  const answered = await client.messages
    .stream({
      model: CLAUDE_MODEL,
      max_tokens: 256,
      tools: [CLAUDE_WEATHER_TOOL],
      messages: [...ask, { role: 'assistant', content: called.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny, 21°C' }] }],
    })
    .finalMessage();
  out.push(answered);

  // Extended thinking: a thinking block (its deltas, then its signature) before the text.
  out.push(await client.messages.stream({ model: CLAUDE_MODEL, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [user('Hi')] }).finalMessage());

  out.push(await client.messages.countTokens({ model: CLAUDE_MODEL, messages: ask, tools: [CLAUDE_WEATHER_TOOL] }));
  // A 429, and a stream that ends in an overloaded_error event: the SDK raises each as the provider's error.
  out.push(await failure(client.messages.create({ model: CLAUDE_MODEL, max_tokens: 256, messages: [user('RATE LIMIT please')] })));
  out.push(await failure(client.messages.stream({ model: CLAUDE_MODEL, max_tokens: 256, messages: [user('Hi MIDSTREAM')] }).finalMessage()));
  return out;
}

/** What a call that should fail raised: the SDK's APIError's status, type and message. */
async function failure(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
    return 'no error';
  } catch (error) {
    return error instanceof APIError ? { status: error.status, type: error.type, message: error.message } : String(error);
  }
}

const client = (baseURL: string, apiKey = API_KEY, defaultHeaders: Record<string, string> = {}) => new Anthropic({ baseURL, apiKey, maxRetries: 0, defaultHeaders });

describe('the @anthropic-ai/sdk client through record and replay', () => {
  it('gets the same objects directly, through record and from replay; the recording is anthropic with no finding and no key', async () => {
    const upstream = await startAnthropicUpstream();
    cleanups.push(() => upstream.close());
    const direct = await agentRun(client(upstream.origin));
    expect((direct[0] as Anthropic.Message).content).toEqual([{ type: 'text', text: CLAUDE_HELLO, citations: null }]);
    expect((direct[2] as Anthropic.Message).stop_reason).toBe('tool_use');
    expect((direct[3] as Anthropic.Message).content[0]).toMatchObject({ type: 'text', text: 'The weather in Paris: sunny, 21°C' });
    expect((direct[4] as Anthropic.Message).content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect((direct[4] as Anthropic.Message).content[0]).toMatchObject({ type: 'thinking', thinking: 'The user wants a short answer.', signature: expect.stringMatching(/^Eq/) as string });
    expect(direct[6]).toMatchObject({ status: 429, type: 'rate_limit_error' });
    expect(direct[7]).toMatchObject({ status: undefined, type: 'overloaded_error' });

    const out = cleanups.scratch().file('anthropic.db');
    const recorder = await startRecorder({ target: upstream.origin, listen: 0, out, registry: testRegistry() });
    const recorded = await agentRun(client(recorder.url));
    // A client that sends the key in x-api-key, as curl and older SDKs do.
    const keyed = new Anthropic({ baseURL: recorder.url, apiKey: null, defaultHeaders: { 'x-api-key': X_API_KEY }, maxRetries: 0 });
    expect(await keyed.messages.countTokens({ model: CLAUDE_MODEL, messages: [{ role: 'user', content: 'Hi' }] })).toEqual({ input_tokens: 10 });
    await recorder.close();
    expect(recorded).toEqual(direct);
    // What went upstream carried the keys: the proxy forwards them.
    expect(upstream.requests.at(-2)?.headers).toMatchObject({ authorization: `Bearer ${API_KEY}` });
    expect(upstream.requests.at(-1)?.headers).toMatchObject({ 'x-api-key': X_API_KEY });

    const { stdout } = await runCli(['show', out, '--json']);
    const { exchanges, tokens } = JSON.parse(stdout) as { exchanges: Array<{ protocol: string | null; invalid: number; path: string }>; tokens: unknown };
    expect(exchanges.map((e) => e.path)).toEqual(['/v1/messages', '/v1/messages', '/v1/messages', '/v1/messages', '/v1/messages', '/v1/messages/count_tokens', '/v1/messages', '/v1/messages', '/v1/messages/count_tokens']);
    expect(exchanges.map((e) => [e.path, e.protocol, e.invalid])).toEqual(exchanges.map((e) => [e.path, 'anthropic', 0]));
    // show sums the tokens of each answer as the SDK assembled it: the Messages, the raw stream's, the
    // stream cut by its error event (message_start's counts); the 429 reported none; count_tokens is no answer.
    const messages = [0, 2, 3, 4].map((i) => (direct[i] as Anthropic.Message).usage);
    const streamEvents = direct[1] as Anthropic.RawMessageStreamEvent[];
    const started = streamEvents.find((e) => e.type === 'message_start')!.message.usage;
    const ended = streamEvents.findLast((e) => e.type === 'message_delta')!.usage;
    const midstream = claudeReply({ messages: [{ role: 'user', content: 'Hi MIDSTREAM' }] });
    const input = messages.reduce((n, u) => n + u.input_tokens, 0) + started.input_tokens + midstream.inputTokens;
    const output = messages.reduce((n, u) => n + u.output_tokens, 0) + ended.output_tokens + 1;
    expect(tokens).toEqual([{ model: CLAUDE_MODEL, answers: 7, input, output, withoutUsage: 1 }]);
    const findings = JSON.parse((await runCli(['findings', out, '--json'])).stdout) as { totals: { findings: number } };
    expect(findings.totals.findings).toBe(0);
    // No key on disk, in a header or anywhere else.
    const onDisk = storedBytes(out);
    expect(onDisk.includes('get_weather'), 'the recording holds the traffic').toBe(true);
    for (const key of [API_KEY.slice(7), X_API_KEY.slice(7)]) expect(onDisk.includes(key), `the recording holds ${key}`).toBe(false);

    const replay = await startReplay({ recording: out, listen: 0, timing: 'none' });
    cleanups.push(async () => void (await replay.close()));
    // Replay needs no key: any will do.
    const replayed = await agentRun(client(replay.url, 'sk-ant-anything'));
    expect(replayed).toEqual(direct);
    expect(replay.misses()).toEqual([]);

    // A request the recording does not hold raises the SDK's own error, carrying the miss report.
    const missed = await client(replay.url, 'sk-ant-anything')
      .messages.create({ model: CLAUDE_MODEL, max_tokens: 256, messages: [{ role: 'user', content: 'Something never asked' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(missed).toBeInstanceOf(Anthropic.NotFoundError);
    expect(missed).toMatchObject({ status: 404, type: 'not_found_error' });
    expect((missed as Error).message).toMatch(/agent-proxy replay: .*\/v1\/messages/);

    // Faults: the SDK retries an injected 529 (Anthropic's "overloaded") and gets the recorded answer;
    // a stream cut short raises its own error. The third request is the stream (the first got the 529,
    // the second is the SDK's retry).
    const faulty = await startReplay({ recording: out, listen: 0, timing: 'none', faults: ['status=529,nth=1,path=/v1/messages', 'cut=reset,after=2,path=/v1/messages,nth=3'] });
    cleanups.push(async () => void (await faulty.close()));
    const retrying = new Anthropic({ baseURL: faulty.url, apiKey: 'sk-ant-anything', maxRetries: 1 });
    expect(await retrying.messages.create({ model: CLAUDE_MODEL, max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] })).toEqual(direct[0]);
    const cut = await retrying.messages.stream({ model: CLAUDE_MODEL, max_tokens: 256, messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [CLAUDE_WEATHER_TOOL] }).finalMessage().then(
      () => undefined,
      (error: unknown) => error,
    );
    // What the SDK raises when a provider's connection resets mid-answer: its own connection error, fetch's as the cause.
    expect(cut).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(cut).toMatchObject({ message: 'Connection error.', cause: { message: 'terminated' } });
    await expect(faulty.close()).resolves.toMatchObject({ faults: [{ injected: 1 }, { injected: 1 }] });
  });
});
