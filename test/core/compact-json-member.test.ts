import { describe, expect, it } from 'vitest';
import { compactJsonMember, compactJsonString, compactJsonStringMember, hasCompactJsonMember } from '../../src/core/compact-json-member.js';
import { isCompactJson } from '../../src/core/compact-json-text.js';

/** Objects whose members sit among nested values, strings holding brackets, quotes and escapes. */
const VALUES: unknown[] = [
  { type: 'RUN_STARTED', threadId: 't' },
  { a: { type: 'inner' }, type: 'outer' },
  { a: [{ type: 'x' }, [], {}, '}', ']', '"'], b: '\\', type: 'last' },
  { s: 'a "quoted" } ] { [ \\ back\n', n: -1.5e-7, t: true, f: false, z: null, e: [], o: {}, kind: 'event' },
  { type: 'with "quote" and \\ and \n and \u0001', kind: 'é 😀' },
  { object: 'chat.completion.chunk', error: null },
  { error: { type: 'x' }, object: 'chat.completion.chunk' },
  { typ: 1, types: 2, ype: 3, 'type"': 4, type: 5 },
  { '': '', type: '' },
  { s: '"error":1,"type":"x"', o: { kind: 'k' }, one: 1 },
  { one: 1 },
  { type: 'plain', s: 'an escape after it: \\ \n' },
  {},
];

describe('compactJsonMember', () => {
  it('gives the text of the top-level member JSON.parse gives, and tells no member from any other', () => {
    for (const value of VALUES) {
      const text = JSON.stringify(value);
      expect(isCompactJson(text), text).toBe(true);
      for (const key of ['type', 'kind', 'object', 'error', 'a', 'one', 'missing', 'ype']) {
        const member = (value as Record<string, unknown>)[key];
        const expected = Object.hasOwn(value as object, key) ? JSON.stringify(member) : undefined;
        expect(compactJsonMember(text, key), `${text} ${key}`).toBe(expected);
        expect(compactJsonString(compactJsonMember(text, key)), `${text} ${key}`).toBe(typeof member === 'string' ? member : undefined);
        // The same member read without slicing its value's text first.
        expect(compactJsonStringMember(text, key), `${text} ${key}`).toBe(typeof member === 'string' ? member : undefined);
        expect(hasCompactJsonMember(text, key), `${text} ${key}`).toBe(expected !== undefined);
      }
    }
  });

  it('finds nothing in a text that is no object', () => {
    for (const value of [[{ type: 'x' }], 'type', 1, null, true, ['type', 'x']]) {
      expect(compactJsonMember(JSON.stringify(value), 'type')).toBeUndefined();
      expect(compactJsonStringMember(JSON.stringify(value), 'type')).toBeUndefined();
      expect(hasCompactJsonMember(JSON.stringify(value), 'type')).toBe(false);
    }
  });
});
