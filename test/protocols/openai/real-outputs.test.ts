/**
 * Real answers of vLLM, Ollama, LiteLLM, llama.cpp and TGI (test/support/openai-real-outputs.ts, each naming where
 * it was recorded) through `record`, with the official `openai` client: `create` for a plain answer,
 * `stream(...).finalChatCompletion()` for a stream. What the SDK takes is no error (a drift from the description is
 * one `openai-compatible-drift` warning); what breaks it is one. Replayed, each gives the SDK what it gave it
 * recording. docs/verdicts.md's table cites these captures.
 */
import { describe, expect, it } from 'vitest';
import { fixturesAfterEach } from '../../support/fixtures-after-each.js';
import { judgeScenarios } from '../../support/openai-compatible-judging.js';
import { REAL_OUTPUTS } from '../../support/openai-real-outputs.js';

fixturesAfterEach();

describe('real outputs of OpenAI-compatible servers', () => {
  it('are judged as the openai SDK takes them, and replay to the SDK as they were recorded', async () => {
    const { outcomes, results, found, protocols, replayed } = await judgeScenarios(REAL_OUTPUTS, { includeUsage: false, replay: true });
    expect(Object.values(protocols)).toEqual(REAL_OUTPUTS.map(() => 'openai'));
    expect({ outcomes, found }).toEqual({
      outcomes: Object.fromEntries(REAL_OUTPUTS.map((o) => [o.id, o.sdk])),
      found: Object.fromEntries(REAL_OUTPUTS.map((o) => [o.id, o.findings])),
    });
    expect(replayed).toEqual(Object.fromEntries(REAL_OUTPUTS.map((o) => [o.id, { outcome: o.sdk, result: results[o.id] }])));
  });

  it('declare an error finding exactly where the SDK breaks', () => {
    for (const output of REAL_OUTPUTS) expect(output.findings.some((f) => f.endsWith(':error')), output.id).toBe(output.sdk === 'breaks');
  });
});
