/**
 * Anthropic's fold for `diff --semantic`: an agent loop's two Messages calls (a tool use, then the
 * answer to its tool_result) diff equal however their deltas were cut and whatever tool_use ids the
 * model minted; a changed system prompt, tool input or answer text is named as what it is.
 */
import { describe, expect, it } from 'vitest';
import { diffRecordingFiles } from '../../../src/diff/diff-recordings.js';
import { describeAnthropicPointer } from '../../../src/protocols/anthropic/semantic.js';
import { writeNdjsonRecording, type HandExchange } from '../../support/ndjson-recording.js';
import { CLAUDE_MODEL, CLAUDE_WEATHER_TOOL, claudeError, claudeEvents, claudeMessage, type ClaudeReply } from '../../support/anthropic-scenario.js';

type Json = Record<string, unknown>;
const text = (...pieces: string[]): ClaudeReply => ({ kind: 'text', pieces, inputTokens: 12, outputTokens: 5 });
const toolUse = (id: string, ...fragments: string[]): ClaudeReply => ({ kind: 'tool', pieces: ["I'll ", 'look.'], call: { id, name: 'get_weather', fragments }, inputTokens: 10, outputTokens: 20 });

const call = (system: string, more: Json[] = [], extra: Json = {}): Json => ({
  model: CLAUDE_MODEL,
  max_tokens: 256,
  system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
  messages: [{ role: 'user', content: 'What is the weather in Paris?' }, ...more],
  tools: [CLAUDE_WEATHER_TOOL],
  stream: true,
  ...extra,
});

const exchange = (request: Json, messages: HandExchange['messages'], streamed = true): HandExchange => ({
  transport: streamed ? 'sse' : 'http',
  protocol: 'anthropic',
  method: 'POST',
  path: '/v1/messages',
  status: 200,
  responseHeaders: { 'content-type': streamed ? 'text/event-stream; charset=utf-8' : 'application/json' },
  messages: [{ sender: 'client', json: request }, ...messages],
});

/** A streamed call as recorded, its events cut as `reply` says. */
const streamed = (request: Json, reply: ClaudeReply): HandExchange =>
  exchange(
    request,
    claudeEvents(request, reply).map((json) => ({ sender: 'server' as const, json, raw: `event: ${String(json.type)}\ndata: ${JSON.stringify(json)}\n\n` })),
  );

/** A tool use and the answer to its result: the agent loop's two model calls, with the tool_use id the model minted. */
function agentRun(system: string, callId: string, input: string[], answer: string[]): HandExchange[] {
  const assistant = { role: 'assistant', content: [{ type: 'text', text: "I'll look." }, { type: 'tool_use', id: callId, name: 'get_weather', input: JSON.parse(input.join('')) as Json }] };
  const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: 'sunny' }] };
  return [streamed(call(system), toolUse(callId, ...input)), streamed(call(system, [assistant, result]), text(...answer))];
}

const semantic = (a: HandExchange[], b: HandExchange[]) => diffRecordingFiles(writeNdjsonRecording(a, 'a.ndjson'), writeNdjsonRecording(b, 'b.ndjson'), { semantic: true });
const names = (report: ReturnType<typeof semantic>) => report.exchanges.flatMap((e) => e.messages.flatMap((m) => m.differences.map((d) => d.name ?? d.pointer)));

describe("Anthropic's fold for diff --semantic", () => {
  const base = agentRun('Be helpful.', 'toolu_a', ['{"ci', 'ty":"Paris"}'], ['It is ', 'sunny.']);

  it('finds the same answer cut into other deltas, with other tool_use ids and metadata, equal; a plain diff does not', () => {
    const rechunked = agentRun('Be helpful.', 'toolu_b', ['', '{"city":', '"Paris"}'], ['It ', 'is sunny.']);
    rechunked[0].messages[0].json = { ...(rechunked[0].messages[0].json as Json), metadata: { user_id: 'other' } };
    expect(semantic(base, rechunked)).toMatchObject({ equal: true });
    const plain = diffRecordingFiles(writeNdjsonRecording(base, 'a.ndjson'), writeNdjsonRecording(rechunked, 'b.ndjson'));
    expect(plain.equal).toBe(false);
  });

  it('names a changed system prompt, and nothing else, in each model call', () => {
    const report = semantic(base, agentRun('Be terse.', 'toolu_a', ['{"ci', 'ty":"Paris"}'], ['It is ', 'sunny.']));
    expect(names(report)).toEqual(['the system prompt', 'the system prompt']);
    expect(report.exchanges[0].messages[0].differences[0]).toMatchObject({ pointer: '/request/system', a: 'Be helpful.', b: 'Be terse.' });
  });

  it("names the answer's tool input, and what the next call sent back with it", () => {
    const report = semantic(base, agentRun('Be helpful.', 'toolu_a', ['{"city":"Lyon"}'], ['It is ', 'sunny.']));
    expect(names(report)).toEqual(["the answer's tool input /city", "the conversation's message 2 (assistant): content/1/input/city"]);
  });

  it('folds an answer read whole, and names its text, its usage and an error in place of it', () => {
    const whole = (answer: string, outputTokens = 5): HandExchange => {
      const request = { ...call('Be helpful.'), stream: false };
      return exchange(request, [{ sender: 'server', json: claudeMessage(request, { ...text(answer), outputTokens }) }], false);
    };
    expect(names(semantic([whole('It is sunny.')], [whole('Sunny.', 2)]))).toEqual(["the answer's text", "the answer's token usage /output_tokens"]);
    const limited = (answer: string) => exchange(call('Be helpful.'), [{ sender: 'server', json: claudeError('rate_limit_error', answer) }], false);
    expect(names(semantic([limited('slow down')], [limited('wait')]))).toEqual(["the answer's error /message"]);
  });

  it('names places in the request and the answer', () => {
    const result = { answer: { content: [{ type: 'text' }, { type: 'tool_use' }] } };
    expect(describeAnthropicPointer('/request/tools/get_weather/input_schema/properties', {}, {})).toBe('the tool "get_weather" offered: input_schema/properties');
    expect(describeAnthropicPointer('/request/tool_choice/type', {}, {})).toBe('the tool choice /type');
    expect(describeAnthropicPointer('/answer/stop_reason', {}, {})).toBe("the answer's stop reason");
    expect(describeAnthropicPointer('/answer/content/1', result, {})).toBe("the answer's content block 2 (tool_use)");
    expect(describeAnthropicPointer('/answer/content/1/name', result, {})).toBe("the answer's tool name");
    expect(describeAnthropicPointer('/answer/content/0/thinking', {}, {})).toBe("the answer's thinking");
  });
});
