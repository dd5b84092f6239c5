/**
 * The official `openai` client (6.x) through `record` to the stand-in OpenAI upstream, then against
 * `replay` of that recording: chat completions plain, streamed and through the stream helper
 * (`finalChatCompletion()`), a tool call and its result, Responses plain and through `responses.stream`,
 * embeddings, the model list, and a 429. What the SDK hands back is deep-equal to a direct run's, the
 * recording is judged `openai` with no finding, the API key never reaches the disk and replay needs
 * none, a request replay cannot match raises the SDK's own error with the miss report, the SDK's
 * retry of an injected 429 gets the recorded answer, and a stream cut short raises its own error.
 */
import { describe, expect, it } from 'vitest';
import OpenAI, { APIError } from 'openai';
import { startRecorder } from '../../src/record/start-recorder.js';
import { startReplay } from '../../src/replay/start-replay.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { startOpenAiUpstream } from '../support/openai-upstream.js';
import { STANDIN_HELLO, STANDIN_MODEL, WEATHER_TOOL } from '../support/openai-scenario.js';
import { testRegistry } from '../support/shared.js';
import { runCli } from '../cli/run-cli.js';
import { storedBytes } from '../support/stored-bytes.js';

const cleanups = fixturesAfterEach();
const API_KEY = 'sk-proj-standin0123456789abcdefghijklmnopqrstuvwxyzSECRET';
/** Azure's and gateways' key headers, which a client may send besides Authorization. */
const KEY_HEADERS = { 'api-key': 'azure0123456789abcdefAZUREKEY', 'x-api-key': 'gateway0123456789abcdefGATEWAYKEY' };

/** What the agent's calls got back, in order: the SDK's objects as it hands them out, or its error. */
async function agentRun(client: OpenAI): Promise<unknown[]> {
  const out: unknown[] = [];
  const user = (content: string) => ({ role: 'user' as const, content });
  out.push(await client.chat.completions.create({ model: STANDIN_MODEL, messages: [user('Hi')] }));

  const chunks: unknown[] = [];
  for await (const chunk of await client.chat.completions.create({ model: STANDIN_MODEL, messages: [user('Hi')], stream: true, stream_options: { include_usage: true } })) chunks.push(chunk);
  out.push(chunks);

  // The agent loop: a streamed answer with a tool call, then its result, then the answer.
  const ask = [user('What is the weather in Paris?')];
  const called = await client.chat.completions.stream({ model: STANDIN_MODEL, messages: ask, tools: [WEATHER_TOOL] }).finalChatCompletion();
  out.push(called);
  const call = called.choices[0].message.tool_calls?.[0];
  if (call?.type !== 'function') throw new Error('the stand-in made no function call');
  const answered = await client.chat.completions
    .stream({ model: STANDIN_MODEL, messages: [...ask, called.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 21°C' }], tools: [WEATHER_TOOL] })
    .finalChatCompletion();
  out.push(answered);

  out.push(await client.responses.create({ model: STANDIN_MODEL, input: 'Hi' }));
  out.push(await client.responses.stream({ model: STANDIN_MODEL, input: 'What is the weather in Paris?', tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER_TOOL.function.parameters, strict: true }] }).finalResponse());
  out.push(await client.embeddings.create({ model: 'text-embedding-3-small', input: ['one', 'two'] }));
  out.push((await client.models.list()).data);
  try {
    await client.chat.completions.create({ model: STANDIN_MODEL, messages: [user('RATE LIMIT please')] });
    out.push('no error');
  } catch (error) {
    out.push(error instanceof APIError ? { status: error.status, code: error.code, type: error.type, message: error.message } : String(error));
  }
  return out;
}

const client = (baseURL: string, apiKey = API_KEY, defaultHeaders: Record<string, string> = {}) => new OpenAI({ baseURL, apiKey, maxRetries: 0, defaultHeaders });

describe('the openai SDK through record and replay', () => {
  it('gets the same objects directly, through record and from replay; the recording is openai with no finding and no key', async () => {
    const upstream = await startOpenAiUpstream();
    cleanups.push(() => upstream.close());
    const direct = await agentRun(client(`${upstream.origin}/v1`));
    expect((direct[3] as OpenAI.ChatCompletion).choices[0].message.content).toBe('The weather in Paris: sunny, 21°C');
    expect((direct[0] as OpenAI.ChatCompletion).choices[0].message.content).toBe(STANDIN_HELLO);
    expect(direct[8]).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });

    const out = cleanups.scratch().file('openai.db');
    const recorder = await startRecorder({ target: upstream.origin, listen: 0, out, registry: testRegistry() });
    const recorded = await agentRun(client(`${recorder.url}/v1`, API_KEY, KEY_HEADERS));
    await recorder.close();
    expect(recorded).toEqual(direct);
    // What went upstream carried the key: the proxy forwards it.
    expect(upstream.requests.at(-1)?.headers).toMatchObject({ authorization: `Bearer ${API_KEY}`, ...KEY_HEADERS });

    const { stdout } = await runCli(['show', out, '--json']);
    const { exchanges } = JSON.parse(stdout) as { exchanges: Array<{ protocol: string | null; invalid: number; path: string }> };
    expect(exchanges.map((e) => [e.path, e.protocol, e.invalid])).toEqual(exchanges.map((e) => [e.path, 'openai', 0]));
    const findings = JSON.parse((await runCli(['findings', out, '--json'])).stdout) as { totals: { findings: number } };
    expect(findings.totals.findings).toBe(0);
    // No key on disk, in a header or anywhere else.
    const onDisk = storedBytes(out);
    expect(onDisk.includes('get_weather'), 'the recording holds the traffic').toBe(true);
    for (const key of [API_KEY.slice(8), ...Object.values(KEY_HEADERS)]) expect(onDisk.includes(key), `the recording holds ${key}`).toBe(false);

    const replay = await startReplay({ recording: out, listen: 0, timing: 'none' });
    cleanups.push(async () => void (await replay.close()));
    // Replay needs no key: any will do.
    const replayed = await agentRun(client(`${replay.url}/v1`, 'sk-anything'));
    expect(replayed).toEqual(direct);
    expect(replay.misses()).toEqual([]);

    // A request the recording does not hold raises the SDK's own error, carrying the miss report.
    const missed = await client(`${replay.url}/v1`, 'sk-anything')
      .chat.completions.create({ model: STANDIN_MODEL, messages: [{ role: 'user', content: 'Something never asked' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(missed).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missed).toMatchObject({ status: 404, code: 'replay_miss', type: 'invalid_request_error' });
    expect((missed as Error).message).toMatch(/^404 agent-proxy replay: .*chat\/completions/);

    // Faults: the SDK's retry of a 429 gets the recorded answer; a stream cut short raises its own error.
    // The third chat request is the stream (the first got the 429, the second is the SDK's retry).
    const faulty = await startReplay({ recording: out, listen: 0, timing: 'none', faults: ['status=429,nth=1,path=/v1/chat/completions', 'cut=reset,after=2,path=/v1/chat/completions,nth=3'] });
    cleanups.push(async () => void (await faulty.close()));
    const retrying = new OpenAI({ baseURL: `${faulty.url}/v1`, apiKey: 'sk-anything', maxRetries: 1 });
    expect(await retrying.chat.completions.create({ model: STANDIN_MODEL, messages: [{ role: 'user', content: 'Hi' }] })).toEqual(direct[0]);
    const cut = await retrying.chat.completions
      .stream({ model: STANDIN_MODEL, messages: [{ role: 'user', content: 'Hi' }], stream_options: { include_usage: true } })
      .finalChatCompletion()
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    // What fetch raises when a provider's connection resets mid-answer, as the SDK passes it on.
    expect(cut).toMatchObject({ message: 'terminated' });
    await expect(faulty.close()).resolves.toMatchObject({ faults: [{ injected: 1 }, { injected: 1 }] });
  });
});
