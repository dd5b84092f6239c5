/**
 * validate's report shares one verdict object among messages whose verdicts say only a status and a
 * schema ref; a verdict with a finding or a reason, or with its keys in another order (the report
 * writes them in their order), is kept as it is.
 */
import { describe, expect, it } from 'vitest';
import { error } from '../../src/core/finding.js';
import { unchecked, verdictFrom, type Verdict } from '../../src/core/verdict.js';
import { SharedVerdicts } from '../../src/validate/shared-verdicts.js';

describe('SharedVerdicts', () => {
  it('hands out the first of equal verdicts, by status and schema ref', () => {
    const shared = new SharedVerdicts();
    const a = verdictFrom([], 'https://x/s.json#/$defs/A');
    expect(shared.of(a)).toBe(a);
    expect(shared.of(verdictFrom([], 'https://x/s.json#/$defs/A'))).toBe(a);
    const b = verdictFrom([], 'https://x/s.json#/$defs/B');
    expect(shared.of(b)).toBe(b);
    const bare = verdictFrom([]);
    expect(shared.of(bare)).toBe(bare);
    expect(shared.of(verdictFrom([]))).toBe(bare);
  });

  it('keeps a verdict with a finding, a reason, or its keys in another order', () => {
    const shared = new SharedVerdicts();
    shared.of(verdictFrom([], 'r'));
    const withFinding = verdictFrom([error('schema', '/a', 'wrong')], 'r');
    expect(shared.of(withFinding)).toBe(withFinding);
    const withReason = unchecked('no schema');
    expect(shared.of(withReason)).toBe(withReason);
    const reordered: Verdict = { status: 'valid', findings: [], schemaRef: 'r' };
    expect(shared.of(reordered)).toBe(reordered);
    expect(JSON.stringify(shared.of(reordered))).toBe('{"status":"valid","findings":[],"schemaRef":"r"}');
    const more = { status: 'valid', schemaRef: 'r', findings: [], seen: 2 } as Verdict;
    expect(shared.of(more)).toBe(more);
  });
});
