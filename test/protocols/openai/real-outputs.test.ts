/**
 * Real answers of vLLM, Ollama, LiteLLM, llama.cpp and TGI (test/support/openai-real-outputs.ts, each naming where
 * it was recorded) through `record`, with the official `openai` client: `create` for a plain answer,
 * `stream(...).finalChatCompletion()` for a stream. What the SDK takes is no error (a drift from the description is
 * one `openai-compatible-drift` warning); what breaks it is one. Replayed, each gives the SDK what it gave it
 * recording; and `show` assembles each answer as the SDK does. docs/verdicts.md's table cites these captures.
 */
import { describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import type { ViewMessage } from '../../../src/protocols/inspector-views.js';
import { openAiAnswer } from '../../../src/protocols/openai/answer-view.js';
import type { CompatibleDrift } from '../../support/openai-compatible-drifts.js';
import { fixturesAfterEach } from '../../support/fixtures-after-each.js';
import { judgeScenarios } from '../../support/openai-compatible-judging.js';
import { REAL_OUTPUTS } from '../../support/openai-real-outputs.js';

fixturesAfterEach();

/** The answer `show` assembles from a scenario's messages (its first choice), or its error. */
function shown(output: CompatibleDrift) {
  const bodies = 'json' in output.answer ? [output.answer.json] : output.answer.events.filter((e) => e.startsWith('data: {')).map((e) => JSON.parse(e.slice(6)) as unknown);
  const messages = [{ sender: 'client', json: { model: output.id, messages: [{ role: 'user', content: 'Hi' }] } }, ...bodies.map((json) => ({ sender: 'server', json }))];
  const answer = openAiAnswer(messages.map((m, seq) => ({ seq, carrier: 'body', channel: null, tOffsetMs: 0, status: 'valid', ...m }) as ViewMessage));
  const first = answer?.outputs[0];
  return {
    error: answer?.error ?? null,
    complete: answer?.complete,
    text: first?.text,
    toolCalls: first?.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    stopReason: first?.stopReason,
  };
}

/** The same of the SDK's final completion. */
function assembledBySdk(completion: OpenAI.ChatCompletion) {
  const choice = completion.choices[0];
  const calls = (choice.message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id ?? null, name: c.function.name, arguments: c.function.arguments }] : []));
  return { error: null, complete: true, text: choice.message.content ?? '', toolCalls: calls, stopReason: choice.finish_reason };
}

describe('real outputs of OpenAI-compatible servers', () => {
  it('are judged as the openai SDK takes them, replay to it as recorded, and show as it assembles them', async () => {
    const { outcomes, results, found, protocols, replayed } = await judgeScenarios(REAL_OUTPUTS, { includeUsage: false, replay: true });
    expect(Object.values(protocols)).toEqual(REAL_OUTPUTS.map(() => 'openai'));
    expect({ outcomes, found }).toEqual({
      outcomes: Object.fromEntries(REAL_OUTPUTS.map((o) => [o.id, o.sdk])),
      found: Object.fromEntries(REAL_OUTPUTS.map((o) => [o.id, o.findings])),
    });
    expect(replayed).toEqual(Object.fromEntries(REAL_OUTPUTS.map((o) => [o.id, { outcome: o.sdk, result: results[o.id] }])));
    for (const output of REAL_OUTPUTS) {
      const view = shown(output);
      if (output.sdk === 'accepts') expect(view, output.id).toEqual(assembledBySdk(results[output.id] as OpenAI.ChatCompletion));
      else if (output.sdk === 'raises-api-error') expect(view.error, output.id).not.toBeNull();
      else expect(view.complete, output.id).toBe(false);
    }
  });

  it('declare an error finding exactly where the SDK breaks', () => {
    for (const output of REAL_OUTPUTS) expect(output.findings.some((f) => f.endsWith(':error')), output.id).toBe(output.sdk === 'breaks');
  });
});
