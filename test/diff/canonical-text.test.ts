/**
 * The diff's first pass normalizes messages with IdCanonicalizer.canonicalText (one walk, no
 * intermediate values); reports use canonicalize + normalizeJson. Both must learn the same ids in
 * the same order and agree on what is equal, or the exchanges loaded again from a checkpoint would
 * get other labels than the first pass saw.
 */
import { describe, expect, it } from 'vitest';
import { FieldMatcher, IdCanonicalizer } from '../../src/diff/id-canonicalizer.js';
import { FieldSpecs } from '../../src/core/field-specs.js';
import { canonicalJson, normalizeJson } from '../../src/match/normalize.js';

const VALUES: unknown[] = [
  { threadId: 't-1234567', runId: 'r-1234567', messages: [{ id: 'u-1234567', role: 'user', content: 'Hi' }], state: { n: 1 }, tools: [], context: [], forwardedProps: {} },
  { type: 'RUN_STARTED', threadId: 't-1234567', runId: 'r-1234567', timestamp: 1700000000000 },
  { type: 'TEXT_MESSAGE_CONTENT', delta: 'r-1234567', messageId: 'm-7654321', timestamp: '2026-01-01T00:00:00Z' },
  { b: 1, a: { z: [1, 'm-7654321', { id: 7, createdAt: 5, nested: { updatedAt: { deep: 'x' } } }], y: null }, '10': true, '2': false },
  { jsonrpc: '2.0', id: 42, method: 'session/prompt', params: { sessionId: 'sess-abcdef', nextCursor: 'c-99999999', cursor: 'c-1' } },
  { kind: 'command', command: { id: 'cmd-abcdefg', type: 'prompt' }, messages: [{ id: 1 }, { id: '1' }] },
  ['t-1234567', 42, { requestId: 'q-1234567', durationMs: 12, etag: 'W/1' }, [[]]],
  { secret: { token: 'keep-me-out', inner: { messageId: 'hidden-id-1' } }, list: ['a', 'b', 'c'], keep: 'r-1234567' },
  // Volatile tokens inside strings, a tree of entries (`id` beside `parentId`), and a dropped subtree holding a token.
  { file: '/s/2026-12-01T19-01-28-669Z_01a232fb-bddd-7732-9bc4-d14784196a3f.jsonl', again: '01a232fb-bddd-7732-9bc4-d14784196a3f' },
  { entries: [{ id: 'e-aaaaaaa', parentId: null }, { id: 'e-bbbbbbb', parentId: 'e-aaaaaaa' }], leafId: 'e-bbbbbbb', secret: { at: 'Tue, 01 Dec 2026 19:01:26 GMT' } },
  'plain text',
  17,
  null,
];

function oldPath(ids: IdCanonicalizer, value: unknown, drop: string[]): string {
  return canonicalJson(normalizeJson(ids.canonicalize(value), new FieldSpecs(drop)));
}

describe('IdCanonicalizer.canonicalText', () => {
  for (const drop of [[], ['timestamp'], ['secret', '/list/1', '/a/z/*'], ['/messages/*/id', 'runId', '/*/token']]) {
    it(`learns the same ids in the same order as canonicalize + normalizeJson (drop ${JSON.stringify(drop)})`, () => {
      const fast = new IdCanonicalizer();
      const slow = new IdCanonicalizer();
      const matcher = new FieldMatcher(drop);
      const fastTexts = VALUES.map((v) => fast.canonicalText(v, matcher));
      const slowTexts = VALUES.map((v) => oldPath(slow, v, drop));
      expect(fast.log()).toEqual(slow.log());
      // Equal texts exactly where the normalized values are equal (also across values).
      for (let i = 0; i < VALUES.length; i++) {
        for (let j = 0; j < VALUES.length; j++) expect(fastTexts[i] === fastTexts[j]).toBe(slowTexts[i] === slowTexts[j]);
      }
    });
  }

  it('agrees on equality for values that differ only in key order, ids or timestamps', () => {
    const pairs: Array<[unknown, unknown, boolean]> = [
      [{ a: 1, b: 2 }, { b: 2, a: 1 }, true],
      [{ runId: 'r-aaaaaaa', t: 'x', timestamp: 1 }, { t: 'x', runId: 'r-bbbbbbb', timestamp: 2 }, true],
      [{ runId: 'r-aaaaaaa', echo: 'r-aaaaaaa' }, { runId: 'r-bbbbbbb', echo: 'r-ccccccc' }, false],
      [{ list: [1, 2] }, { list: [2, 1] }, false],
      [{ n: 1 }, { n: '1' }, false],
      [{ a: { b: [] } }, { a: { b: {} } }, false],
    ];
    for (const [x, y, equal] of pairs) {
      const matcher = new FieldMatcher([]);
      expect(new IdCanonicalizer().canonicalText(x, matcher) === new IdCanonicalizer().canonicalText(y, matcher)).toBe(equal);
      expect(oldPath(new IdCanonicalizer(), x, []) === oldPath(new IdCanonicalizer(), y, [])).toBe(equal);
    }
  });

  it('restore brings a canonicalizer to a checkpoint of another one', () => {
    const source = new IdCanonicalizer();
    const checkpoints: number[] = [];
    for (const v of VALUES) {
      checkpoints.push(source.size);
      source.canonicalText(v, new FieldMatcher([]));
    }
    const copy = new IdCanonicalizer();
    // Forward from checkpoint to checkpoint, then back to an earlier one (starts over).
    for (const [i, n] of checkpoints.entries()) {
      copy.restore(source.log(), n);
      const fresh = new IdCanonicalizer();
      fresh.restore(source.log(), n);
      expect(copy.canonicalText(VALUES[i], new FieldMatcher([]))).toBe(fresh.canonicalText(VALUES[i], new FieldMatcher([])));
      expect(copy.log()).toEqual(source.log().slice(0, copy.size));
    }
    copy.restore(source.log(), checkpoints[2]);
    expect(copy.size).toBe(checkpoints[2]);
    const runIdsBefore = source.log().slice(0, checkpoints[2]).filter(([, label]) => label.startsWith('runId#')).length;
    expect(runIdsBefore).toBeGreaterThan(0);
    expect(copy.label('runId', 'brand-new-run')).toBe(`runId#${runIdsBefore + 1}`);
  });
});

describe('IdCanonicalizer.plain', () => {
  it('labels the segments of a path that are known ids (a link, a Location), so two runs that minted other ids read alike', () => {
    const texts = ['ticket-aaaaaaaa', 'ticket-bbbbbbbb'].map((ticketId) => {
      const ids = new IdCanonicalizer();
      return ids.canonicalText({ data: { ticketId, links: { self: `/v1/ticket/${ticketId}` } } }, new FieldMatcher([]));
    });
    expect(texts[0]).toBe(texts[1]);
    expect(texts[0]).toContain('"/v1/ticket/{ticketId#1}"');
  });

  it('leaves a path alone when no segment is a known id, and a string that is no path', () => {
    const ids = new IdCanonicalizer();
    ids.label('ticketId', 'ticket-aaaaaaaa');
    expect(ids.plain('/v1/ticket/other-one')).toBe('/v1/ticket/other-one');
    expect(ids.plain('see ticket-aaaaaaaa')).toBe('see ticket-aaaaaaaa');
  });
});
