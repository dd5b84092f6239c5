import { describe, expect, it } from 'vitest';
import { error, warning } from '../../src/core/finding.js';
import { unchecked, verdictFrom, withFindings, withoutRules } from '../../src/core/verdict.js';

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

describe('a verdict without some rules\' findings', () => {
  const leak = error('secret-leak', '/env', '/env: a session env value is in this message');
  const behaviour = error('id-mismatch', '/id', '/id: no request has this id');
  const note = warning('unknown-field', '/x', '/x: not in the schema');
  const dropped = new Set(['secret-leak']);

  it('derives its status again: unchecked when it had a reason, else valid; invalid while an error is left', () => {
    expect(withoutRules(unchecked('no schema', [leak, note], 'ref'), dropped)).toEqual(unchecked('no schema', [note], 'ref'));
    expect(withoutRules(verdictFrom([leak, note], 'ref'), dropped)).toEqual(verdictFrom([note], 'ref'));
    expect(withoutRules(verdictFrom([leak, behaviour]), dropped)).toEqual(verdictFrom([behaviour]));
  });

  it('has its keys in the order of a verdict made with those findings, so the JSON written is the same', () => {
    for (const schemaRef of [undefined, 'ref']) {
      expect(JSON.stringify(withoutRules(unchecked('no schema', [leak, note], schemaRef), dropped))).toBe(JSON.stringify(unchecked('no schema', [note], schemaRef)));
      expect(JSON.stringify(withoutRules(unchecked('no schema', [leak, behaviour], schemaRef), dropped))).toBe(JSON.stringify(unchecked('no schema', [behaviour], schemaRef)));
      expect(JSON.stringify(withoutRules(verdictFrom([note, leak], schemaRef), dropped))).toBe(JSON.stringify(verdictFrom([note], schemaRef)));
    }
  });

  it('is the same verdict when none of its findings is of those rules', () => {
    const verdict = verdictFrom([note]);
    expect(withoutRules(verdict, dropped)).toBe(verdict);
  });
});
