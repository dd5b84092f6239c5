/**
 * The diff's first pass reuses the canonical text of a JSON text it had before (CanonicalTexts)
 * instead of parsing and walking it again. That must give exactly what walking it again gives:
 * the same texts, the same ids learnt in the same order, the same alarm of the order watch.
 */
import { describe, expect, it } from 'vitest';
import { CanonicalTexts } from '../../src/diff/canonical-texts.js';
import { FieldMatcher, IdCanonicalizer } from '../../src/diff/id-canonicalizer.js';
import { OrderWatch } from '../../src/diff/id-roles.js';

// A stream that repeats itself, with ids learnt between repeats: a plain string that becomes an id
// later (then labelled where it repeats), a text that learns an id each time it is new to the
// canonicalizer, volatile tokens, and a text seen under two sets of dropped fields.
const STREAM: string[] = [
  '{"type":"delta","text":"tok0 "}',
  '{"type":"delta","note":"call-1234567"}',
  '{"type":"delta","text":"tok0 "}',
  '{"type":"delta","note":"call-1234567"}',
  '{"type":"start","callId":"call-1234567"}',
  '{"type":"delta","note":"call-1234567"}',
  '{"type":"delta","text":"tok0 "}',
  '{"type":"delta","at":"2026-12-01T19:01:28.669Z","file":"/s/01a232fb-bddd-7732-9bc4-d14784196a3f.jsonl"}',
  '{"type":"delta","at":"2026-12-01T19:01:28.669Z","file":"/s/01a232fb-bddd-7732-9bc4-d14784196a3f.jsonl"}',
  '{"type":"start","callId":"call-7654321","echo":"call-1234567"}',
  '{"type":"start","callId":"call-7654321","echo":"call-1234567"}',
  '{"type":"delta","note":"later-id-0001"}',
  '{"type":"delta","note":"later-id-0001"}',
  '{"type":"start","sessionId":"later-id-0001"}',
  '{"type":"delta","note":"later-id-0001"}',
  '[1,2,{"b":1,"a":2}]',
  '[1,2,{"b":1,"a":2}]',
  '"plain"',
  '"plain"',
];

describe('CanonicalTexts', () => {
  for (const roles of [new Map<string, string>(), new Map([['later-id-0001', 'sessionId'], ['call-1234567', 'callId']])]) {
    it(`gives what walking each message again gives${roles.size > 0 ? ' (ids of the whole recording known)' : ''}`, () => {
      const matchers = [new FieldMatcher([]), new FieldMatcher(['text'])];
      const walked = new IdCanonicalizer();
      const remembered = new IdCanonicalizer();
      const watches = [new OrderWatch(), new OrderWatch()];
      walked.useRoles(roles);
      remembered.useRoles(roles);
      walked.watchOrder(watches[0]);
      remembered.watchOrder(watches[1]);
      const texts = new CanonicalTexts(remembered);
      let reused = 0;
      for (const [i, json] of [...STREAM, ...STREAM].entries()) {
        const matcher = matchers[i < STREAM.length ? 0 : Math.floor(i / 3) % 2];
        const expected = walked.canonicalText(JSON.parse(json), matcher);
        const known = texts.get(json, matcher);
        if (known !== undefined) {
          reused++;
          expect(known.value).toEqual(JSON.parse(json));
        }
        const canon = known?.canon ?? texts.make(json, JSON.parse(json), matcher);
        expect(canon, `message ${i}: ${json}`).toBe(expected);
        expect(remembered.log()).toEqual(walked.log());
      }
      expect(watches[1].alarmed).toBe(watches[0].alarmed);
      // Not a vacuous check: texts were reused.
      expect(reused).toBeGreaterThan(5);
    });
  }

  it('keeps a text that repeats however many texts come only once in between', () => {
    const ids = new IdCanonicalizer();
    const texts = new CanonicalTexts(ids);
    const matcher = new FieldMatcher([]);
    const chunk = '{"type":"delta","text":"tok0 "}';
    texts.make(chunk, JSON.parse(chunk), matcher);
    texts.make(chunk, JSON.parse(chunk), matcher);
    for (let i = 0; i < 10_000; i++) {
      const frame = `{"type":"queue_update","followUp":["msg ${i}"]}`;
      texts.make(frame, JSON.parse(frame), matcher);
    }
    expect(texts.get(chunk, matcher)?.canon).toBe('{"text":"tok0 ","type":"delta"}');
    expect(ids.size).toBe(0);
  });

  it('does not reuse a text once an id has been learnt since, nor one whose walk learnt an id', () => {
    const ids = new IdCanonicalizer();
    const texts = new CanonicalTexts(ids);
    const matcher = new FieldMatcher([]);
    const plain = '{"note":"call-1234567"}';
    // Remembered the second time it is made: most texts never repeat.
    expect(texts.make(plain, JSON.parse(plain), matcher)).toBe('{"note":"call-1234567"}');
    expect(texts.get(plain, matcher)).toBeUndefined();
    expect(texts.make(plain, JSON.parse(plain), matcher)).toBe('{"note":"call-1234567"}');
    expect(texts.get(plain, matcher)?.canon).toBe('{"note":"call-1234567"}');
    expect(texts.get(plain, new FieldMatcher(['note']))).toBeUndefined();
    const learning = '{"callId":"call-1234567"}';
    expect(texts.make(learning, JSON.parse(learning), matcher)).toBe('{"callId":"callId#1"}');
    expect(texts.get(learning, matcher)).toBeUndefined();
    expect(texts.get(plain, matcher)).toBeUndefined();
    expect(texts.make(plain, JSON.parse(plain), matcher)).toBe('{"note":"callId#1"}');
    expect(texts.make(plain, JSON.parse(plain), matcher)).toBe('{"note":"callId#1"}');
    expect(texts.get(plain, matcher)?.canon).toBe('{"note":"callId#1"}');
  });
});
