/**
 * End to end: a small agent loop on the official `@anthropic-ai/sdk` client (model call → tool use →
 * the tool run here → its tool_result → model call → answer) is recorded against the stand-in
 * Anthropic upstream, then run twice against a replay of the recording, with the upstream gone and
 * no key: the same transcript both times, no miss, nothing left unused. The same run with only its
 * system prompt changed diffs as that and nothing else, plainly and under `--semantic`.
 */
import { describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { startRecorder } from '../../src/record/start-recorder.js';
import { startReplay } from '../../src/replay/start-replay.js';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { startAnthropicUpstream } from '../support/anthropic-upstream.js';
import { runClaudeWeatherAgent } from '../support/anthropic-agent-loop.js';
import { testRegistry } from '../support/shared.js';

const cleanups = fixturesAfterEach();
const QUESTION = 'What is the weather in Paris?';

describe('a Claude agent loop recorded once, replayed without its model', () => {
  it('runs twice against the replay with the same transcript, and a changed system prompt diffs as exactly that', async () => {
    const upstream = await startAnthropicUpstream();
    const dir = cleanups.scratch();
    const record = async (system: string, out: string) => {
      const recorder = await startRecorder({ target: upstream.origin, listen: 0, out, registry: testRegistry() });
      try {
        return await runClaudeWeatherAgent(new Anthropic({ baseURL: recorder.url, apiKey: 'sk-ant-live-key', maxRetries: 0 }), { system, question: QUESTION });
      } finally {
        await recorder.close();
      }
    };
    const helpful = dir.file('helpful.db');
    const terse = dir.file('terse.db');
    const recorded = await record('You are a helpful assistant.', helpful);
    await record('You are a terse assistant.', terse);
    await upstream.close();
    expect(recorded.calls).toBe(2);
    expect(recorded.ran).toEqual([{ name: 'get_weather', input: { city: 'Paris' }, result: 'sunny, 21°C' }]);
    expect(recorded.answer).toBe('The weather in Paris: sunny, 21°C');

    // The model is gone; the replay needs no key (the SDK wants one, any will do) and no network.
    for (const run of [1, 2]) {
      const replay = await startReplay({ recording: helpful, listen: 0, timing: 'none' });
      const transcript = await runClaudeWeatherAgent(new Anthropic({ baseURL: replay.url, apiKey: 'not-a-key', maxRetries: 0 }), { system: 'You are a helpful assistant.', question: QUESTION });
      const summary = await replay.close();
      expect(transcript, `replayed run ${run}`).toEqual(recorded);
      expect([summary.misses, summary.unused], `replayed run ${run}`).toEqual([[], []]);
    }

    const plain = diffRecordingFiles(helpful, terse);
    const semantic = diffRecordingFiles(helpful, terse, { semantic: true });
    const changes = (report: typeof plain) => report.exchanges.flatMap((e) => e.messages.flatMap((m) => m.differences.map((d) => [m.a?.sender, d.name ?? d.pointer, d.a, d.b])));
    const prompts = ['You are a helpful assistant.', 'You are a terse assistant.'];
    // Both model calls carried the system prompt; nothing else differs, though every id of the answers did.
    expect(changes(plain)).toEqual([
      ['client', '/system', ...prompts],
      ['client', '/system', ...prompts],
    ]);
    expect(changes(semantic)).toEqual([
      ['server', 'the system prompt', ...prompts],
      ['server', 'the system prompt', ...prompts],
    ]);
  });
});
