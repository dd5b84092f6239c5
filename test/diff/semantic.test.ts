/**
 * `diff --semantic` pairs a model call answered whole with the same call streamed: the official SDKs
 * make the same calls once with `stream: true` and once without, through `record` against the stand-in
 * upstreams, and the two recordings diff as one change per call, `stream` true → false, with the
 * assembled answers (text, tool calls with parsed arguments, stop reason, usage) compared and equal.
 * A plain diff still tells the two deliveries apart, exchange by exchange.
 */
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startRecorder } from '../../src/record/start-recorder.js';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import type { DiffReport } from '../../src/diff/diff-report.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { startOpenAiUpstream } from '../support/openai-upstream.js';
import { startAnthropicUpstream } from '../support/anthropic-upstream.js';
import { STANDIN_MODEL, WEATHER_TOOL } from '../support/openai-scenario.js';
import { CLAUDE_MODEL, CLAUDE_WEATHER_TOOL } from '../support/anthropic-scenario.js';
import { testRegistry } from '../support/shared.js';

const cleanups = fixturesAfterEach();

/** Every difference of a report: the exchange's routes, the difference's name, its two values. */
const changes = (report: DiffReport) =>
  report.exchanges.flatMap((e) => [
    ...e.fields.map((d) => [e.a?.path, d.pointer, d.a, d.b]),
    ...e.messages.flatMap((m) => (m.differences.length === 0 ? [[e.a?.path ?? e.b?.path, m.change]] : m.differences.map((d) => [e.a?.path, d.name ?? d.pointer, d.a, d.b]))),
  ]);

const STREAM_CHANGE = ['whether the answer streamed', true, false];

describe('diff --semantic of a streamed call and the same call answered whole', () => {
  it('OpenAI chat and Responses: one change per call, the stream; a plain diff pairs nothing', async () => {
    const upstream = await startOpenAiUpstream();
    cleanups.push(() => upstream.close());
    const dir = cleanups.scratch();
    const record = async (out: string, stream: boolean, question: string) => {
      const recorder = await startRecorder({ target: upstream.origin, listen: 0, out, registry: testRegistry() });
      try {
        const client = new OpenAI({ baseURL: `${recorder.url}/v1`, apiKey: 'sk-proj-live-key', maxRetries: 0 });
        const chat = { model: STANDIN_MODEL, messages: [{ role: 'system' as const, content: 'Be helpful.' }, { role: 'user' as const, content: question }], tools: [WEATHER_TOOL] };
        if (stream) {
          for await (const _chunk of await client.chat.completions.create({ ...chat, stream: true, stream_options: { include_usage: true } }));
          for await (const _event of await client.responses.create({ model: STANDIN_MODEL, instructions: 'Be helpful.', input: 'Hi', stream: true }));
        } else {
          await client.chat.completions.create(chat);
          await client.responses.create({ model: STANDIN_MODEL, instructions: 'Be helpful.', input: 'Hi' });
        }
      } finally {
        await recorder.close();
      }
    };
    const streamed = dir.file('streamed.db');
    const whole = dir.file('whole.db');
    const wholeOther = dir.file('whole-other.db');
    await record(streamed, true, 'What is the weather in Paris?');
    await record(whole, false, 'What is the weather in Paris?');
    await record(wholeOther, false, 'Say hello.');

    const semantic = diffRecordingFiles(streamed, whole, { semantic: true });
    expect(semantic.summary.exchanges).toEqual({ equal: 0, changed: 2, added: 0, removed: 0 });
    expect(changes(semantic)).toEqual([
      ['/v1/chat/completions', ...STREAM_CHANGE],
      ['/v1/responses', ...STREAM_CHANGE],
    ]);

    // The assembled answers are compared: another question, asked whole, names its answer's differences too.
    const other = changes(diffRecordingFiles(streamed, wholeOther, { semantic: true }));
    expect(other).toContainEqual(['/v1/chat/completions', ...STREAM_CHANGE]);
    expect(other).toContainEqual(['/v1/chat/completions', "the conversation's message 1 (user): content", 'What is the weather in Paris?', 'Say hello.']);
    expect(other).toContainEqual(['/v1/chat/completions', "the answer's stop reason", 'tool_calls', 'stop']);

    const plain = diffRecordingFiles(streamed, whole);
    expect(plain.summary.exchanges).toEqual({ equal: 0, changed: 0, added: 2, removed: 2 });
  });

  it('Anthropic Messages: one change, the stream, with the tool use and its parsed input equal', async () => {
    const upstream = await startAnthropicUpstream();
    cleanups.push(() => upstream.close());
    const dir = cleanups.scratch();
    const record = async (out: string, stream: boolean) => {
      const recorder = await startRecorder({ target: upstream.origin, listen: 0, out, registry: testRegistry() });
      try {
        const client = new Anthropic({ baseURL: recorder.url, apiKey: 'sk-ant-live-key', maxRetries: 0 });
        const params = { model: CLAUDE_MODEL, max_tokens: 1024, system: 'Be helpful.', messages: [{ role: 'user' as const, content: 'What is the weather in Paris?' }], tools: [CLAUDE_WEATHER_TOOL] };
        if (stream) await client.messages.stream(params).finalMessage();
        else await client.messages.create(params);
      } finally {
        await recorder.close();
      }
    };
    const streamed = dir.file('streamed.db');
    const whole = dir.file('whole.db');
    await record(streamed, true);
    await record(whole, false);

    const semantic = diffRecordingFiles(streamed, whole, { semantic: true });
    expect(semantic.summary.exchanges).toEqual({ equal: 0, changed: 1, added: 0, removed: 0 });
    expect(changes(semantic)).toEqual([['/v1/messages', ...STREAM_CHANGE]]);
    expect(diffRecordingFiles(whole, streamed, { semantic: true }).exchanges[0].messages[0].differences).toMatchObject([{ pointer: '/request/stream', a: false, b: true }]);

    const plain = diffRecordingFiles(streamed, whole);
    expect(plain.summary.exchanges).toEqual({ equal: 0, changed: 0, added: 1, removed: 1 });
  });
});
