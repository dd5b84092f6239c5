import { describeWithCorpus, corpusJson, fullRegistry, readSharedJson } from '../support/shared.js';
import { expect, it } from 'vitest';
import { AguiChecker } from '../../src/protocols/agui/agui-checker.js';
import { SecretTracker } from '../../src/judge/secret-tracker.js';
import { errorsOf, rulesAt, runStream, warningsOf } from '../protocols/agui/helpers.js';

interface ManifestEntry {
  file: string;
  upstreamExpect: string;
  events: number;
}

type At = number | 'end';

/**
 * What each shared fixture must produce, written from MANIFEST.json and ag-ui-notes.md §3 — not from
 * the code. `errors` / `warnings` are the exact [event index | 'end', rule] lists; `status` is the
 * verdict of the event that carries the decisive finding, when there is one.
 */
const EXPECTED: Record<string, { errors: Array<[At, string]>; warnings?: Array<[At, string]>; note: string }> = {
  // Conformance streams the 1.0.0 client completes.
  'spec-text-message-chunk-expansion.json': { errors: [], note: 'chunk shorthand expands; RUN_FINISHED closes the chunk stream' },
  'spec-state-delta-unappliable-patch.json': {
    errors: [],
    warnings: [[2, 'state-patch-failed']],
    note: 'completed + warning "Failed to apply state patch"; state unchanged',
  },
  'spec-activity-snapshot-then-delta.json': { errors: [], note: 'activity create + JSON Patch' },
  'spec-messages-snapshot-reconciles-by-id.json': { errors: [], note: 'snapshot replaces a, drops b' },
  'spec-reasoning-span-and-message.json': { errors: [], note: 'span + reasoning message + answer' },
  'spec-two-sequential-runs-one-stream.json': { errors: [], note: 'two runs on one stream are allowed' },
  'spec-run-finished-interrupt-outcome.json': { errors: [], note: 'interrupt outcome' },
  'spec-subagent-chunk-stream-closed-by-terminal.json': { errors: [], note: 'SUBAGENT_FINISHED closes the subagent lane' },
  'spec-multibyte-text-deltas.json': { errors: [], note: 'CJK/Arabic deltas' },
  // Accepted by the 1.0.0 client, but the project schema has no cancelled outcome (MANIFEST note).
  'spec-run-finished-cancelled-outcome.json': {
    errors: [
      [4, 'schema'],
      [4, 'schema'],
      [4, 'schema'],
    ],
    note: 'INVALID against the project schema: outcome {type:"cancelled"}',
  },
  // Conformance streams the client rejects.
  'spec-event-after-run-finished-fatal.json': { errors: [[2, 'event-after-run-finished']], note: 'L3' },
  'spec-subagent-attribution-mismatch-fatal.json': { errors: [[3, 'subagent-attribution-mismatch']], note: 'O1 on TOOL_CALL_END' },
  // Draft rules the 1.0.0 client does not check yet.
  'draft-run-finished-wrong-run-id-fatal.json': { errors: [[1, 'run-finished-run-id-mismatch']], note: 'must agree on their runId' },
  'draft-duplicate-interrupt-id-fatal.json': { errors: [[1, 'duplicate-interrupt-id']], note: "two interrupts carrying the id 'i-duplicate-interrupt'" },
  'draft-truncated-stream-no-terminal.json': { errors: [['end', 'stream-truncated']], note: 'ended without a terminal event' },
  // Real .NET captures: consumed by @ag-ui/client 1.0.0 without error.
  'dotnet-text-message-run.json': { errors: [], note: 'real' },
  'dotnet-backend-tool-call-result-then-text.json': { errors: [], note: 'real' },
  'dotnet-frontend-tool-call-left-pending.json': { errors: [], note: 'real' },
  'dotnet-state-snapshot-then-text.json': { errors: [], note: 'real' },
  'dotnet-long-text-693-deltas-raw-usage.json': { errors: [], note: 'real' },
  'dotnet-reasoning-then-text.json': { errors: [], note: 'real' },
  'dotnet-interrupt-tool-approval-run1.json': { errors: [], note: 'real' },
  'dotnet-interrupt-tool-approval-run2-resumed.json': { errors: [], note: 'real' },
  'dotnet-interrupt-input-required-run1.json': { errors: [], note: 'real' },
  'dotnet-parallel-tool-calls.json': { errors: [], note: 'real' },
};

const manifest = corpusJson<ManifestEntry[]>([], 'fixtures', 'agui', 'MANIFEST.json');

describeWithCorpus('AG-UI shared fixtures', () => {
  for (const entry of manifest) {
    it(`${entry.file}: ${EXPECTED[entry.file]?.note ?? 'no expectation'}`, () => {
      const expected = EXPECTED[entry.file];
      expect(expected, `no expectation written for ${entry.file}`).toBeDefined();
      const events = readSharedJson<unknown[]>('fixtures', 'agui', entry.file);
      expect(events).toHaveLength(entry.events);
      const result = runStream(events);
      expect(rulesAt(errorsOf(result))).toEqual(expected.errors);
      expect(rulesAt(warningsOf(result))).toEqual(expected.warnings ?? []);
      // Every event is judged against a per-type $anchor, never the root Event union.
      for (const verdict of result.verdicts) expect(verdict.schemaRef).toMatch(/^https:\/\/ag-ui\.com\/spec\/draft\/schema\.json#[A-Za-z]+Event$/);
      const failed = new Set(expected.errors.map(([at]) => at));
      result.verdicts.forEach((verdict, i) => expect(verdict.status, `event ${i}`).toBe(failed.has(i) ? 'invalid' : 'valid'));
    });
  }

  it('spec-state-delta-unappliable-patch keeps the prior state, as the manifest says', () => {
    const checker = new AguiChecker({ registry: fullRegistry(), secrets: new SecretTracker() });
    for (const value of readSharedJson<unknown[]>('fixtures', 'agui', 'spec-state-delta-unappliable-patch.json')) {
      checker.judge({ sender: 'server', carrier: 'event', value });
    }
    expect(checker.trackedState).toEqual({ plan: { status: 'open' } });
  });

  it('spec-activity-snapshot-then-delta patches the activity content, as the manifest says', () => {
    const checker = new AguiChecker({ registry: fullRegistry(), secrets: new SecretTracker() });
    for (const value of readSharedJson<unknown[]>('fixtures', 'agui', 'spec-activity-snapshot-then-delta.json')) {
      checker.judge({ sender: 'server', carrier: 'event', value });
    }
    expect(checker.trackedActivity('activity-snapshot-then-delta-act')).toEqual({ activityType: 'web_search', content: { query: 'ag-ui', found: 3 } });
  });

  it('the failing fixtures name the rule the upstream expectation names', () => {
    const message = (file: string) => errorsOf(runStream(readSharedJson<unknown[]>('fixtures', 'agui', file)))[0].message;
    expect(message('spec-event-after-run-finished-fatal.json')).toContain("The run has already finished with 'RUN_FINISHED'");
    expect(message('spec-subagent-attribution-mismatch-fatal.json')).toContain('does not match');
    expect(message('draft-run-finished-wrong-run-id-fatal.json')).toContain('must agree on their runId');
    expect(message('draft-duplicate-interrupt-id-fatal.json')).toContain("'i-duplicate-interrupt'");
    expect(message('draft-truncated-stream-no-terminal.json')).toContain('without a terminal event');
  });
});
