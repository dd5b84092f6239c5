/**
 * store/queries/rows-by-exchange.ts: a diff's first pass reads the messages and error findings of a
 * whole recording a page at a time, and gets for each exchange exactly what a query of that exchange gives.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/finding.js';
import { openDatabase } from '../../src/store/open-database.js';
import { prepareScanQueries } from '../../src/store/queries/scan-queries.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { tempDir } from '../support/temp-dir.js';
import { meta } from './store-fixtures.js';

const dir = tempDir('agent-proxy-error-findings-');
afterAll(() => dir.cleanup());

/** Findings per exchange, by its order of opening: none, a few, more than a page (256), warnings only, errors among warnings. */
const SHAPES: Array<(n: number) => Finding[]> = [
  () => [],
  (n) => [{ rule: 'schema', severity: 'error', pointer: `/a/${n}`, message: 'must be string' }],
  (n) => [
    { rule: 'schema', severity: 'warning', pointer: '/w', message: 'a warning' },
    { rule: 'stream', severity: 'error', pointer: `/b/${n}`, message: 'out of order' },
    { rule: 'schema', severity: 'error', pointer: '', message: 'second error' },
  ],
  () => [{ rule: 'schema', severity: 'warning', pointer: '/w', message: 'only a warning' }],
];

/**
 * Two exchanges open at once, their messages interleaved, so that one exchange's findings' ids are not
 * consecutive; exchange 5 holds 1,500 messages with an error each, several pages.
 */
function record(file: string): number[] {
  const writer = RecordingWriter.open(file, meta());
  const enc = new TextEncoder();
  const ids: number[] = [];
  for (let pair = 0; pair < 6; pair++) {
    const open = [0, 1].map(() => writer.beginExchange({ transport: 'http', method: 'POST', path: '/x', requestHeaders: {}, tOffsetMs: 0 }));
    ids.push(...open);
    const count = pair === 2 ? 1_500 : 3;
    for (let i = 0; i < count; i++) {
      for (const [k, exchangeId] of open.entries()) {
        const findings = pair === 2 && k === 0 ? SHAPES[1](i) : SHAPES[(pair * 2 + k) % SHAPES.length](i);
        const status = findings.some((f) => f.severity === 'error') ? 'invalid' : 'valid';
        writer.addMessage({ exchangeId, sender: 'client', carrier: 'body', tOffsetMs: i, raw: enc.encode('{"n":1}'), json: { n: 1 }, verdict: { status, findings } });
      }
    }
    for (const exchangeId of open) writer.endExchange(exchangeId, { outcome: 'complete', tOffsetMs: 0 });
  }
  // One without messages, among the others.
  ids.push(writer.beginExchange({ transport: 'http', method: 'GET', path: '/empty', requestHeaders: {}, tOffsetMs: 0 }));
  writer.endExchange(ids.at(-1)!, { outcome: 'complete', tOffsetMs: 0 });
  const last = writer.beginExchange({ transport: 'http', method: 'POST', path: '/x', requestHeaders: {}, tOffsetMs: 0 });
  ids.push(last);
  writer.addMessage({ exchangeId: last, sender: 'server', carrier: 'body', tOffsetMs: 0, raw: enc.encode('not json'), verdict: { status: 'unchecked', findings: [] } });
  writer.endExchange(last, { outcome: 'complete', tOffsetMs: 0 });
  writer.close();
  return ids.sort((x, y) => x - y);
}

const file = dir.file('findings.db');
const exchangeIds = record(file);

describe('messagesInOrder', () => {
  it('gives each exchange asked in order its messages as its own query gives them, across pages', () => {
    const db = openDatabase(file, { readonly: true });
    try {
      const queries = prepareScanQueries(db);
      const inOrder = queries.messagesInOrder();
      const each = exchangeIds.map((id) => [id, inOrder.all(id).map(([exchangeId, seq, meta, body, messageId]) => [exchangeId, meta, body, seq, messageId])]);
      expect(each).toEqual(exchangeIds.map((id) => [id, [...queries.messagesToLoad(id)].map((m) => [id, ...m])]));
      expect(Math.max(...each.map(([, m]) => (m as unknown[]).length))).toBe(1_500);
      expect(each.some(([, m]) => (m as unknown[]).length === 0)).toBe(true);
      expect(each.some(([, m]) => (m as unknown[][]).some((row) => Buffer.isBuffer(row[2])))).toBe(true);
    } finally {
      db.close();
    }
  });
});

describe('errorFindingsInOrder', () => {
  it('gives each exchange asked in order what its own query gives, across pages', () => {
    const db = openDatabase(file, { readonly: true });
    try {
      const queries = prepareScanQueries(db);
      const inOrder = queries.errorFindingsInOrder();
      const each = exchangeIds.map((id) => [id, inOrder(id)]);
      expect(each).toEqual(exchangeIds.map((id) => [id, queries.errorFindings(id)]));
      // The recording holds what the cases need: an exchange of more than a page, one with none, warnings left out.
      expect(Math.max(...each.map(([, f]) => (f as unknown[]).length))).toBe(1_500);
      expect(each.some(([, f]) => (f as unknown[]).length === 0)).toBe(true);
      expect(db.prepare("SELECT count(*) FROM findings WHERE severity = 'warning'").pluck().get()).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('skips over exchanges not asked for, and refuses to go back', () => {
    const db = openDatabase(file, { readonly: true });
    try {
      const queries = prepareScanQueries(db);
      const inOrder = queries.errorFindingsInOrder();
      const some = exchangeIds.filter((_, i) => i % 3 !== 1);
      expect(some.map((id) => inOrder(id))).toEqual(some.map((id) => queries.errorFindings(id)));
      expect(inOrder(exchangeIds.at(-1)! + 1)).toEqual([]);
      expect(() => inOrder(exchangeIds[0])).toThrow(RangeError);
    } finally {
      db.close();
    }
  });
});

describe('exchanges', () => {
  it('reads every exchange in id order, a page at a time, as one exchange is read', () => {
    const many = dir.file('many.db');
    const writer = RecordingWriter.open(many, meta());
    for (let i = 0; i < 2_100; i++) {
      const id = writer.beginExchange({ transport: 'http', method: 'GET', path: `/e/${i}`, requestHeaders: { 'x-n': String(i) }, tOffsetMs: i });
      writer.endExchange(id, { outcome: 'complete', tOffsetMs: i });
    }
    writer.close();
    const db = openDatabase(many, { readonly: true });
    try {
      const queries = prepareScanQueries(db);
      const all = [...queries.exchanges()];
      expect(all.map((e) => e.path)).toEqual(Array.from({ length: 2_100 }, (_, i) => `/e/${i}`));
      expect(all).toEqual(all.map((e) => queries.exchange(e.id)));
    } finally {
      db.close();
    }
  });
});
