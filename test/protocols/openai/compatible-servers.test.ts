/**
 * OpenAI-compatible servers drift from the OpenAI description (test/support/openai-compatible-drifts.ts, each
 * drift with its source). The official `openai` client makes one call per drift through `record` against a
 * stand-in that answers with it: what the SDK does with it is as the drift says (it accepts it, raises its
 * own APIError as for OpenAI's errors, or breaks), and record's findings follow the SDK: a drift every SDK
 * accepts is no error, so no agent's CI fails for it; one that breaks the SDK is.
 */
import { describe, expect, it } from 'vitest';
import { fixturesAfterEach } from '../../support/fixtures-after-each.js';
import { COMPATIBLE_DRIFTS } from '../../support/openai-compatible-drifts.js';
import { judgeScenarios } from '../../support/openai-compatible-judging.js';

fixturesAfterEach();

describe('OpenAI-compatible servers: what record finds follows what the openai SDK accepts', () => {
  it('judges each documented drift as the SDK takes it', async () => {
    const { outcomes, found, protocols } = await judgeScenarios(COMPATIBLE_DRIFTS, { includeUsage: true });
    expect(Object.values(protocols)).toEqual(COMPATIBLE_DRIFTS.map(() => 'openai'));
    expect({ outcomes, found }).toEqual({
      outcomes: Object.fromEntries(COMPATIBLE_DRIFTS.map((d) => [d.id, d.sdk])),
      found: Object.fromEntries(COMPATIBLE_DRIFTS.map((d) => [d.id, d.findings])),
    });
  });

  it('declares an error finding exactly where the SDK breaks', () => {
    for (const drift of COMPATIBLE_DRIFTS) expect(drift.findings.some((f) => f.endsWith(':error')), drift.id).toBe(drift.sdk === 'breaks');
  });
});
