import { describe, expect, it } from 'vitest';
import { diffRecordingFiles } from '../../../src/diff/diff-recordings.js';
import { describeOpenAiPointer } from '../../../src/protocols/openai/semantic.js';
import { writeNdjsonRecording, type HandExchange } from '../../support/ndjson-recording.js';
import { chatChunks, chatCompletion, responseEvents, STANDIN_MODEL, WEATHER_TOOL, type StandinReply } from '../../support/openai-scenario.js';

type Json = Record<string, unknown>;
const usage = { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 };
const text = (...pieces: string[]): StandinReply => ({ kind: 'text', pieces, usage });
const toolCall = (id: string, ...fragments: string[]): StandinReply => ({ kind: 'tool', pieces: [], call: { id, name: 'get_weather', fragments }, usage });

const chat = (system: string, more: Json[] = []): Json => ({
  model: STANDIN_MODEL,
  messages: [{ role: 'system', content: system }, { role: 'user', content: 'What is the weather in Paris?' }, ...more],
  tools: [WEATHER_TOOL],
  stream: true,
  stream_options: { include_usage: true },
});

/** A streamed chat completion as recorded, its chunks cut as `reply` says. */
function streamed(request: Json, reply: StandinReply): HandExchange {
  return {
    transport: 'sse',
    protocol: 'openai',
    method: 'POST',
    path: '/v1/chat/completions',
    status: 200,
    responseHeaders: { 'content-type': 'text/event-stream; charset=utf-8' },
    messages: [{ sender: 'client', json: request }, ...chatChunks(request, reply).map((json) => ({ sender: 'server' as const, json })), { sender: 'server', raw: 'data: [DONE]\n\n' }],
  };
}

/** A tool call and the answer to its result: the agent loop's two model calls, with the call id the model minted. */
function agentRun(system: string, callId: string, args: string[], answer: string[]): HandExchange[] {
  const call = { role: 'assistant', content: null, tool_calls: [{ id: callId, type: 'function', function: { name: 'get_weather', arguments: args.join('') } }] };
  return [streamed(chat(system), toolCall(callId, ...args)), streamed(chat(system, [call, { role: 'tool', tool_call_id: callId, content: 'sunny' }]), text(...answer))];
}

const semantic = (a: HandExchange[], b: HandExchange[]) => diffRecordingFiles(writeNdjsonRecording(a, 'a.ndjson'), writeNdjsonRecording(b, 'b.ndjson'), { semantic: true });
const names = (report: ReturnType<typeof semantic>) => report.exchanges.flatMap((e) => e.messages.flatMap((m) => m.differences.map((d) => d.name ?? d.pointer)));

describe("OpenAI's fold for diff --semantic", () => {
  const base = agentRun('Be helpful.', 'call_a', ['{"ci', 'ty":"Paris"}'], ['It is ', 'sunny.']);

  it('finds the same answer chunked differently, with other tool call ids, equal; a plain diff does not', () => {
    const rechunked = agentRun('Be helpful.', 'call_b', ['{"city":', '"Paris"}'], ['It ', 'is sunny.']);
    expect(semantic(base, rechunked)).toMatchObject({ equal: true });
    const plain = diffRecordingFiles(writeNdjsonRecording(base, 'a.ndjson'), writeNdjsonRecording(rechunked, 'b.ndjson'));
    expect(plain.equal).toBe(false);
  });

  it('names a changed system prompt, and nothing else, in each model call', () => {
    const report = semantic(base, agentRun('Be terse.', 'call_a', ['{"ci', 'ty":"Paris"}'], ['It is ', 'sunny.']));
    expect(names(report)).toEqual(['the system prompt', 'the system prompt']);
    expect(report.exchanges[0].messages[0].differences[0]).toMatchObject({ pointer: '/request/system', a: 'Be helpful.', b: 'Be terse.' });
  });

  it("names the answer's tool call arguments, and what the next call sent back with them", () => {
    const report = semantic(base, agentRun('Be helpful.', 'call_a', ['{"city":"Lyon"}'], ['It is ', 'sunny.']));
    expect(names(report)).toEqual(["the answer's tool call arguments /city", "the conversation's message 2 (assistant): tool_calls/0/arguments/city"]);
  });

  it('folds a whole completion, and a Responses stream by its final response', () => {
    const whole = (system: string, answer: string): HandExchange => {
      const request = { ...chat(system), stream: false };
      return {
        transport: 'http',
        protocol: 'openai',
        method: 'POST',
        path: '/v1/chat/completions',
        status: 200,
        responseHeaders: { 'content-type': 'application/json' },
        messages: [{ sender: 'client', json: request }, { sender: 'server', json: chatCompletion(request, text(answer)) }],
      };
    };
    expect(names(semantic([whole('Be helpful.', 'It is sunny.')], [whole('Be terse.', 'Sunny.')]))).toEqual(["the answer's text", 'the system prompt']);
    const responses = (instructions: string, answer: string): HandExchange => {
      const body = { model: STANDIN_MODEL, instructions, input: 'Hi', stream: true };
      const events = responseEvents(body, text(...answer.split(/(?<= )/)));
      return { ...streamed(body, text('')), path: '/v1/responses', messages: [{ sender: 'client', json: body }, ...events.map((json) => ({ sender: 'server' as const, json }))] };
    };
    expect(names(semantic([responses('Be helpful.', 'Hello there.')], [responses('Be terse.', 'Hello there.')]))).toEqual(['the system prompt']);
    expect(names(semantic([responses('Be helpful.', 'Hello there.')], [responses('Be helpful.', 'Hello you.')]))).toEqual(["output item 1: the answer's text"]);
  });

  it('compares what it does not fold as it is: embeddings, the model list, an error answer', () => {
    const plain = (path: string, request: Json | undefined, answer: Json, status = 200): HandExchange => ({
      transport: 'http',
      protocol: 'openai',
      method: request ? 'POST' : 'GET',
      path,
      status,
      responseHeaders: { 'content-type': 'application/json' },
      messages: [...(request ? [{ sender: 'client' as const, json: request }] : []), { sender: 'server', json: answer }],
    });
    const run = (vector: number[], limit: string) => [
      plain('/v1/embeddings', { model: 'text-embedding-3-small', input: ['one'] }, { object: 'list', data: [{ object: 'embedding', index: 0, embedding: vector }], model: 'text-embedding-3-small', usage: { prompt_tokens: 1, total_tokens: 1 } }),
      plain('/v1/models', undefined, { object: 'list', data: [{ id: STANDIN_MODEL, object: 'model', created: 1, owned_by: 'x' }] }),
      plain('/v1/chat/completions', chat('Be helpful.'), { error: { message: limit, type: 'requests', param: null, code: 'rate_limit_exceeded' } }, 429),
    ];
    expect(semantic(run([0.5], 'slow down'), run([0.5], 'slow down'))).toMatchObject({ equal: true });
    expect(names(semantic(run([0.5], 'slow down'), run([0.25], 'wait')))).toEqual(['/data/0/embedding/0', '/error/message']);
  });

  it('names places in the request and the answer', () => {
    expect(describeOpenAiPointer('/request/tools/get_weather/function/parameters', {}, {})).toBe('the tool "get_weather" offered: function/parameters');
    expect(describeOpenAiPointer('/request/model', {}, {})).toBe('the model');
    expect(describeOpenAiPointer('/answer/choices/0/finish_reason', {}, {})).toBe("the answer's stop reason");
    expect(describeOpenAiPointer('/answer/choices/1/content', {}, {})).toBe("choice 2: the answer's text");
    expect(describeOpenAiPointer('/answer/usage/completion_tokens', {}, {})).toBe("the answer's token usage /completion_tokens");
  });
});
