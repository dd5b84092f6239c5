/**
 * OpenAI's answer view: a chat completion or a Response assembled from its stream equals the same
 * answer read whole (the stand-in's chunks and its whole answer), with the text, the tool calls and
 * their arguments parsed, the stop reason and the usage; a stream cut short, an error mid-stream,
 * several choices, arguments that are not JSON and hostile indexes are assembled as far as they go.
 */
import { describe, expect, it } from 'vitest';
import type { ViewMessage } from '../../../src/protocols/inspector-views.js';
import { openAiAnswer } from '../../../src/protocols/openai/answer-view.js';
import { chatChunks, chatCompletion, chatReply, embeddingList, errorBody, responseEvents, responseObject, responsesReply, STANDIN_HELLO, STANDIN_MODEL, WEATHER_TOOL } from '../../support/openai-scenario.js';

type Json = Record<string, unknown>;

/** An exchange as the views walk it: the request, then the server's messages (`null` stands for `[DONE]`, which is not JSON). */
function exchange(request: unknown, answers: unknown[]): ViewMessage[] {
  const message = (seq: number, sender: 'client' | 'server', json: unknown, carrier: string): ViewMessage => ({ seq, sender, carrier, channel: null, tOffsetMs: seq, status: 'valid', json });
  return [message(1, 'client', request, 'body'), ...answers.map((json, i) => message(i + 2, 'server', json ?? undefined, answers.length > 1 ? 'event' : 'body'))];
}

const hi = { model: STANDIN_MODEL, messages: [{ role: 'user', content: 'Hi' }] };
const weather = { model: STANDIN_MODEL, messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [WEATHER_TOOL] };
const usage = (u: { prompt_tokens: number; completion_tokens: number }) => ({ input: u.prompt_tokens, output: u.completion_tokens });

describe('a chat completion assembled', () => {
  it('from its stream is the whole answer: text, stop reason, usage', () => {
    const request = { ...hi, stream: true, stream_options: { include_usage: true } };
    const reply = chatReply(request);
    const chunks = chatChunks(request, reply);
    const streamed = openAiAnswer(exchange(request, [...chunks, null]));
    const whole = openAiAnswer(exchange(hi, [chatCompletion(hi, reply)]));
    expect(streamed).toEqual({
      api: 'chat.completions',
      model: STANDIN_MODEL,
      id: chunks[0].id,
      streamed: true,
      chunks: chunks.length,
      outputs: [{ index: 0, text: STANDIN_HELLO, reasoning: '', refusal: null, toolCalls: [], stopReason: 'stop' }],
      usage: usage(reply.usage),
      error: null,
      complete: true,
    });
    expect(whole).toEqual({ ...streamed, id: whole?.id, streamed: false, chunks: 0 });
  });

  it('joins a tool call from its fragments and parses its arguments', () => {
    const request = { ...weather, stream: true };
    const reply = chatReply(request);
    const streamed = openAiAnswer(exchange(request, [...chatChunks(request, reply), null]));
    expect(reply.call?.fragments.length).toBeGreaterThan(1);
    expect(streamed?.outputs).toEqual([{ index: 0, text: '', reasoning: '', refusal: null, toolCalls: [{ id: reply.call?.id, name: 'get_weather', arguments: '{"city":"Paris"}', parsed: { city: 'Paris' } }], stopReason: 'tool_calls' }]);
    // Without stream_options.include_usage a stream reports no usage.
    expect(streamed?.usage).toBeNull();
    expect(openAiAnswer(exchange(weather, [chatCompletion(weather, reply)]))?.outputs).toEqual(streamed?.outputs);
  });

  it('keeps choices apart, and tool calls by their index, whatever order the fragments come in', () => {
    const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
    const chunk = (choices: Json[]) => ({ ...head, choices });
    const answer = openAiAnswer(
      exchange({ ...hi, n: 2, stream: true }, [
        chunk([{ index: 1, delta: { role: 'assistant', content: 'B' } }, { index: 0, delta: { role: 'assistant', tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'two', arguments: '{"b"' } }] } }]),
        chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'one', arguments: '{}' } }] } }]),
        chunk([{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: ':2}' } }] }, finish_reason: 'tool_calls' }]),
        chunk([{ index: 1, delta: { content: 'b', reasoning_content: 'thinking' }, finish_reason: 'length' }]),
      ]),
    );
    expect(answer?.outputs.map((o) => [o.index, o.text, o.reasoning, o.stopReason, o.toolCalls.map((c) => [c.id, c.name, c.parsed])])).toEqual([
      [0, '', '', 'tool_calls', [['c1', 'one', {}], ['c2', 'two', { b: 2 }]]],
      [1, 'Bb', 'thinking', 'length', []],
    ]);
    expect(answer?.model).toBe('m');
  });

  it('says a stream cut short did not end, an error streamed in place of the rest, and arguments that are not JSON', () => {
    const request = { ...weather, stream: true };
    const chunks = chatChunks(request, chatReply(request));
    const cut = openAiAnswer(exchange(request, chunks.slice(0, 3)));
    expect(cut).toMatchObject({ complete: false, error: null, outputs: [{ stopReason: null, toolCalls: [{ name: 'get_weather', arguments: '{"city":"Pa', argumentsError: expect.stringMatching(/^not JSON: /) as unknown }] }] });
    const failed = openAiAnswer(exchange(request, [...chunks.slice(0, 2), { error: { message: 'The server had an error', type: 'server_error', code: null } }]));
    expect(failed).toMatchObject({ complete: false, error: 'server_error: The server had an error' });
    // Arguments nested past what the views walk are kept as text, not parsed.
    const deep = '['.repeat(600) + ']'.repeat(600);
    const nested = openAiAnswer(exchange(hi, [{ ...chatCompletion(hi, chatReply(hi)), choices: [{ index: 0, message: { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: deep } }] }, finish_reason: 'tool_calls' }] }]));
    expect(nested?.outputs[0].toolCalls).toEqual([{ id: 'c', name: 'f', arguments: deep, argumentsError: 'nested deeper than 512 levels: not parsed' }]);
    // An error answer in place of the stream: the request says which API and model.
    expect(openAiAnswer(exchange(hi, [errorBody('Rate limit reached', 'requests', 'rate_limit_exceeded')]))).toMatchObject({ api: 'chat.completions', model: STANDIN_MODEL, outputs: [], error: 'rate_limit_exceeded: Rate limit reached', complete: false });
  });

  it('is none for an exchange with no model answer: embeddings, an unanswered request', () => {
    const embed = { model: 'text-embedding-3-small', input: ['one'] };
    expect(openAiAnswer(exchange(embed, [embeddingList(embed)]))).toBeNull();
    expect(openAiAnswer(exchange(embed, [errorBody('no', 'invalid_request_error', null)]))).toBeNull();
    expect(openAiAnswer(exchange(hi, []))).toBeNull();
  });
});

describe('a Response assembled', () => {
  it('from its events is the whole Response: text, usage, completed', () => {
    const request = { model: STANDIN_MODEL, input: 'Hi', stream: true };
    const reply = responsesReply(request);
    const events = responseEvents(request, reply);
    const streamed = openAiAnswer(exchange(request, events));
    expect(streamed).toMatchObject({ api: 'responses', model: STANDIN_MODEL, streamed: true, chunks: events.length, usage: usage(reply.usage), error: null, complete: true });
    expect(streamed?.outputs).toEqual([{ index: 0, text: STANDIN_HELLO, reasoning: '', refusal: null, toolCalls: [], stopReason: 'completed' }]);
    const plain = { model: STANDIN_MODEL, input: 'Hi' };
    expect(openAiAnswer(exchange(plain, [responseObject(plain, responsesReply(plain))]))).toEqual({ ...streamed, id: expect.any(String) as unknown, streamed: false, chunks: 0 });
  });

  it('joins a function call from its argument deltas, also when the stream is cut before the terminal event', () => {
    const request = { model: STANDIN_MODEL, input: 'What is the weather in Paris?', stream: true, tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER_TOOL.function.parameters }] };
    const reply = responsesReply(request);
    const events = responseEvents(request, reply);
    const call = { id: reply.call?.id, name: 'get_weather', arguments: '{"city":"Paris"}', parsed: { city: 'Paris' } };
    expect(openAiAnswer(exchange(request, events))?.outputs[0]).toMatchObject({ toolCalls: [call], stopReason: 'completed' });
    // Cut after the argument deltas: what the deltas said, and no end.
    const deltas = events.findIndex((e) => e.type === 'response.function_call_arguments.done');
    const cut = openAiAnswer(exchange(request, events.slice(0, deltas)));
    expect(cut).toMatchObject({ complete: false, usage: null, outputs: [{ toolCalls: [call], stopReason: null }] });
  });

  it('takes an error event as the end, and an incomplete Response with its reason; a hostile output index is no array size', () => {
    const request = { model: STANDIN_MODEL, input: 'Hi', stream: true };
    const events = responseEvents(request, responsesReply(request));
    const errored = openAiAnswer(exchange(request, [...events.slice(0, 5), { type: 'error', sequence_number: 99, code: 'server_error', message: 'boom', param: null }]));
    expect(errored).toMatchObject({ complete: true, error: 'server_error: boom', outputs: [{ text: 'Hello ' }] });
    const last = events[events.length - 1] as { response: Json };
    const incomplete = openAiAnswer(exchange(request, [...events.slice(0, -1), { ...last, type: 'response.incomplete', response: { ...last.response, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } }]));
    expect(incomplete?.outputs[0].stopReason).toBe('incomplete: max_output_tokens');
    const hostile = openAiAnswer(exchange(request, [events[0], { type: 'response.output_item.added', sequence_number: 1, output_index: 4_294_967_295, item: { type: 'message', content: [{ type: 'output_text', text: 'x' }] } }]));
    expect(hostile?.outputs[0].text).toBe('x');
  });
});
