import { describe, expect, it } from 'vitest';
import { error, warning } from '../../src/core/finding.js';
import { unchecked, verdictFrom, withFindings } from '../../src/core/verdict.js';

describe('an unchecked verdict', () => {
  const behaviour = error('id-mismatch', '/id', '/id: no request has this id');
  const note = warning('unknown-field', '/x', '/x: not in the schema');

  it('is unchecked with its reason when no finding is an error, its schema ref only when it has one', () => {
    expect(Object.entries(unchecked('no schema'))).toEqual([['status', 'unchecked'], ['findings', []], ['reason', 'no schema']]);
    expect(Object.entries(unchecked('no schema', [note], 'ref'))).toEqual([['status', 'unchecked'], ['schemaRef', 'ref'], ['findings', [note]], ['reason', 'no schema']]);
  });

  it('is invalid, keeping its reason, when a behavioural rule found an error: the verdict of its findings, then the reason', () => {
    for (const schemaRef of [undefined, 'ref']) {
      const verdict = unchecked('no schema', [behaviour], schemaRef);
      expect(Object.entries(verdict)).toEqual([...Object.entries(verdictFrom([behaviour], schemaRef)), ['reason', 'no schema']]);
      expect(verdict.status).toBe('invalid');
    }
    // Findings added later to an unchecked verdict follow the same rule.
    expect(withFindings(unchecked('no schema'), [behaviour])).toEqual({ status: 'invalid', findings: [behaviour], reason: 'no schema' });
    expect(withFindings(unchecked('no schema'), [note]).status).toBe('unchecked');
  });
});
