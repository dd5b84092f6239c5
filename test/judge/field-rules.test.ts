import { describe, expect, it } from 'vitest';
import { FieldRules } from '../../src/judge/field-rules.js';
import { ReusedStack } from '../../src/core/reused-stack.js';

describe('FieldRules.finds, one stack for every walk', () => {
  it('answers each value alone after a walk that stopped early, by name and by pointer', () => {
    const rules = new FieldRules(['apiKey', '/config/*/token']);
    // Found with a container still waiting on the stack (keys are walked in order): one that holds a
    // secret-named key, which the next walk must not reach.
    const early = { deep: [{ apiKey: 'inner' }], apiKey: 'k' };
    const clean = { deep: [{ a: { b: [1, { c: 2 }] } }], config: [{ other: 1 }, { more: [true] }] };
    const byPointer = { config: [{ other: 1 }, { token: 'x' }] };
    const wrongPlace = { token: 'x', config: { token: [] } };
    for (let round = 0; round < 3; round++) {
      expect(rules.finds(early)).toBe(true);
      expect(rules.finds(clean)).toBe(false);
      expect(rules.finds(byPointer)).toBe(true);
      expect(rules.finds(clean)).toBe(false);
      expect(rules.finds(wrongPlace)).toBe(false);
      expect(rules.finds({ nested: [[[{ apiKey: null }]]] })).toBe(true);
      expect(rules.finds('apiKey')).toBe(false);
    }
  });
});

describe('ReusedStack', () => {
  it('pops in reverse order, and clear empties it without losing what comes next', () => {
    const stack = new ReusedStack<number | string>();
    stack.push(1);
    stack.pushPair('a', 2);
    expect(stack.top).toBe(3);
    expect(stack.pop()).toBe(2);
    stack.clear();
    expect(stack.top).toBe(0);
    stack.push(3);
    expect(stack.pop()).toBe(3);
    expect(stack.top).toBe(0);
  });
});
