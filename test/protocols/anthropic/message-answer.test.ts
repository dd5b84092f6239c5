/**
 * Anthropic's answer view: a Messages answer assembled from its stream equals the same answer read
 * whole (the stand-in's events and its Message), with the text, the thinking, the tool use and its
 * input parsed, the stop reason and the tokens; an error mid-stream, a stream cut short and an error
 * in place of the answer are assembled as far as they go, and `show` sums Claude's tokens per model.
 */
import { describe, expect, it } from 'vitest';
import { answerOf } from '../../../src/cli/model-answers.js';
import { tokensByModel, type AssembledAnswer } from '../../../src/protocols/assembled-answer.js';
import type { ViewMessage } from '../../../src/protocols/inspector-views.js';
import { anthropicAnswer } from '../../../src/protocols/anthropic/message-answer.js';
import { CLAUDE_HELLO, CLAUDE_MODEL, CLAUDE_WEATHER_TOOL, claudeError, claudeEvents, claudeMessage, claudeReply, claudeTokenCount } from '../../support/anthropic-scenario.js';
import type { MessageRow } from '../../../src/store/recording-reader.js';

/** An exchange as the views walk it: the request, then the server's messages. */
function exchange(request: unknown, answers: unknown[]): ViewMessage[] {
  const message = (seq: number, sender: 'client' | 'server', json: unknown, carrier: string): ViewMessage => ({ seq, sender, carrier, channel: null, tOffsetMs: seq, status: 'valid', json });
  return [message(1, 'client', request, 'body'), ...answers.map((json, i) => message(i + 2, 'server', json, answers.length > 1 ? 'event' : 'body'))];
}

const hi = { model: CLAUDE_MODEL, max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] };
const weather = { model: CLAUDE_MODEL, max_tokens: 256, messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [CLAUDE_WEATHER_TOOL] };

describe('a Messages answer assembled', () => {
  it('from its stream is the whole answer: text, stop reason, tokens', () => {
    const request = { ...hi, stream: true };
    const reply = claudeReply(request);
    const events = claudeEvents(request, reply);
    const streamed = anthropicAnswer(exchange(request, events));
    expect(streamed).toEqual({
      api: 'messages',
      model: CLAUDE_MODEL,
      id: (events[0].message as { id: string }).id,
      streamed: true,
      chunks: events.length - 1,
      outputs: [{ index: 0, text: CLAUDE_HELLO, reasoning: '', refusal: null, toolCalls: [], stopReason: 'end_turn' }],
      usage: { input: reply.inputTokens, output: reply.outputTokens },
      error: null,
      complete: true,
    } satisfies AssembledAnswer);
    const whole = anthropicAnswer(exchange(hi, [claudeMessage(hi, reply)]));
    expect(whole).toEqual({ ...streamed, id: whole?.id, streamed: false, chunks: 0 });
  });

  it('joins a tool use from its input fragments, parses it, and keeps the thinking as reasoning', () => {
    const request = { ...weather, stream: true, thinking: { type: 'enabled', budget_tokens: 1024 } };
    const reply = claudeReply(request);
    expect(reply.call?.fragments.length).toBeGreaterThan(1);
    const streamed = anthropicAnswer(exchange(request, claudeEvents(request, reply)));
    expect(streamed?.outputs).toEqual([
      {
        index: 0,
        text: "I'll look that up.",
        reasoning: 'The user wants a short answer.',
        refusal: null,
        toolCalls: [{ id: reply.call?.id, name: 'get_weather', arguments: '{"city": "Paris"}', parsed: { city: 'Paris' } }],
        stopReason: 'tool_use',
      },
    ]);
    // Read whole, the input is the object the API sent, as JSON text.
    const whole = anthropicAnswer(exchange(request, [claudeMessage(request, reply)]));
    expect(whole?.outputs[0].toolCalls).toEqual([{ id: reply.call?.id, name: 'get_weather', arguments: '{"city":"Paris"}', parsed: { city: 'Paris' } }]);
    expect({ ...whole?.outputs[0], toolCalls: [] }).toEqual({ ...streamed?.outputs[0], toolCalls: [] });
  });

  it('says an error mid-stream, a stream cut short, an error in place of the answer, and none for count_tokens', () => {
    const request = { ...hi, stream: true };
    const midstream = anthropicAnswer(exchange(request, claudeEvents({ ...request, messages: [{ role: 'user', content: 'MIDSTREAM' }] }, claudeReply({ messages: [{ role: 'user', content: 'MIDSTREAM' }] }))));
    expect(midstream).toMatchObject({ error: 'overloaded_error: Overloaded', complete: false, outputs: [{ text: 'Hello ', stopReason: null }] });
    const cut = anthropicAnswer(exchange(request, claudeEvents(request, claudeReply(request)).slice(0, 5)));
    expect(cut).toMatchObject({ error: null, complete: false, outputs: [{ stopReason: null }] });
    expect(anthropicAnswer(exchange(hi, [claudeError('rate_limit_error', 'slow down')]))).toMatchObject({ error: 'rate_limit_error: slow down', outputs: [], usage: null, complete: false });
    expect(anthropicAnswer(exchange({ model: CLAUDE_MODEL, messages: hi.messages }, [claudeTokenCount(hi)]))).toBeNull();
    expect(anthropicAnswer(exchange(hi, []))).toBeNull();
  });

  it("counts a cached prompt's reads and writes as tokens in, and show sums Claude's tokens per model", () => {
    const reply = claudeReply(hi);
    const message = claudeMessage(hi, reply);
    const cached = { ...message, usage: { ...(message.usage as object), cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 } };
    expect(anthropicAnswer(exchange(hi, [cached]))?.usage).toEqual({ input: reply.inputTokens + 1100, output: reply.outputTokens });
    const row = (m: ViewMessage): MessageRow => ({ ...m, verdict: { status: m.status } }) as unknown as MessageRow;
    const answers = [exchange(hi, [message]), exchange(hi, [cached])].map((e) => answerOf({ protocol: 'anthropic' }, e.map(row)) as AssembledAnswer);
    expect(tokensByModel(answers)).toEqual([{ model: CLAUDE_MODEL, answers: 2, input: 2 * reply.inputTokens + 1100, output: 2 * reply.outputTokens, withoutUsage: 0 }]);
  });

  it("assembles a peer's hostile stream as far as it goes: deltas for blocks never started, indexes out of order, input nested too deep", () => {
    const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], usage: { input_tokens: 1, output_tokens: 0 } } };
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const answer = anthropicAnswer(
      exchange(hi, [
        start,
        { type: 'content_block_delta', index: 7, delta: { type: 'text_delta', text: 'lost' } },
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 't', name: 'n', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: deep } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'kept' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 7 } },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: null } },
      ]),
    );
    expect(answer).toMatchObject({ complete: false, usage: { input: 1, output: 0 }, outputs: [{ text: 'kept', stopReason: 'tool_use', toolCalls: [{ id: 't', name: 'n', argumentsError: expect.stringMatching(/nested deeper than/) as unknown }] }] });
  });
});
