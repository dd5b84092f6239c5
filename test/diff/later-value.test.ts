import { describe, expect, it } from 'vitest';
import { FieldSpecs } from '../../src/core/field-specs.js';
import { FieldMatcher, IdCanonicalizer } from '../../src/diff/id-canonicalizer.js';
import { LaterValues } from '../../src/diff/later-value.js';
import { normalizeJson } from '../../src/match/normalize.js';

const DROP = ['model'];

/** Messages whose ids are learnt one after another: a later message learns ids an earlier one did not know. */
const MESSAGES = [
  { toolCallId: 'call-aaaaaaaa', text: 'call-bbbbbbbb', model: 'm-1' },
  { toolCallId: 'call-bbbbbbbb', text: 'call-aaaaaaaa' },
  { toolCallId: 'call-cccccccc', items: [{ toolCallId: 'call-aaaaaaaa' }, 'call-cccccccc'] },
];

describe('LaterValues', () => {
  it('makes each value as the in-order normalization did, asked after the whole exchange was compared, in order or not', () => {
    const eager = new IdCanonicalizer();
    const expected = MESSAGES.map((m) => normalizeJson(eager.canonicalize(m), new FieldSpecs(DROP)));

    const ids = new IdCanonicalizer();
    const later = new LaterValues(ids, new Map());
    const makers = MESSAGES.map((m) => {
      const checkpoint = ids.size;
      ids.canonicalText(m, new FieldMatcher(DROP));
      return () => later.value(JSON.stringify(m), checkpoint, new FieldSpecs(DROP), later.log());
    });
    // The first message's plain `text` is not yet a known id there: a value made in today's state would label it.
    expect(expected[0]).toEqual({ toolCallId: 'toolCallId#1', text: 'call-bbbbbbbb' });
    expect(makers.map((make) => make())).toEqual(expected);
    expect([makers[2](), makers[0](), makers[1]()]).toEqual([expected[2], expected[0], expected[1]]);
  });
});
