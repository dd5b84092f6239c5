import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { error } from '../../src/core/finding.js';
import { verdictFrom } from '../../src/core/verdict.js';
import { ChunkedInsert, ROWS_PER_INSERT } from '../../src/store/chunked-insert.js';
import { integer, requiredInteger, requiredText, sqlLiteral } from '../../src/store/columns.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { meta } from './store-fixtures.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const PARENTS = { id: requiredInteger('id') } as const;
const CHILDREN = { id: requiredInteger('id'), parentId: requiredInteger('parent_id'), label: requiredText('label'), extra: integer('extra') } as const;

let tmp: TempDir;
let db: Database.Database;
beforeEach(() => {
  tmp = tempDir();
  db = new Database(join(tmp.dir, 'chunks.db'));
  db.pragma('foreign_keys = ON');
  db.exec(`
    CREATE TABLE parents (id INTEGER PRIMARY KEY);
    CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parents (id), label TEXT NOT NULL, extra INTEGER);`);
});
afterEach(() => {
  db.close();
  tmp.cleanup();
});

const children = () => db.prepare('SELECT id, parent_id AS parentId, label, extra FROM children ORDER BY id').all();

type Child = { id: number; parentId: number; label: string; extra: number | null };

/** Adds `rows` through `insert` in one transaction, then flushes, telling `prepared` the SQL of each statement it prepares meanwhile. */
function addWatchingPrepare(insert: ChunkedInsert<typeof CHILDREN>, rows: readonly Child[], prepared: (sql: string) => void): void {
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    prepared(sql);
    return prepare(sql);
  }) as typeof db.prepare;
  try {
    db.transaction(() => {
      for (const row of rows) insert.add(row);
      insert.flush();
    })();
  } finally {
    db.prepare = prepare;
  }
}

/** The VALUES tuple of an INSERT's SQL: which columns a statement binds and which it writes as literals. */
const valuesOf = (sql: string): string => {
  const values = sql.indexOf(' VALUES ') + 8;
  return sql.slice(values, sql.indexOf(')', values) + 1);
};

describe('ChunkedInsert', () => {
  it('inserts every row, in full chunks and a remainder, each column in its place', () => {
    const parents = new ChunkedInsert(db, 'parents', PARENTS);
    const insert = new ChunkedInsert(db, 'children', CHILDREN, parents);
    const count = ROWS_PER_INSERT * 2 + 3;
    const expected: Child[] = [];
    db.transaction(() => {
      parents.add({ id: 1 });
      for (let id = 1; id <= count; id++) {
        const row = { id, parentId: 1, label: `row ${id}`, extra: id % 2 === 0 ? id * 10 : null };
        expected.push(row);
        insert.add(row);
      }
      insert.flush();
    })();
    expect(children()).toEqual(expected);
  });

  it('flushes the rows it refers to before a chunk of its own, so a foreign key never points ahead', () => {
    const parents = new ChunkedInsert(db, 'parents', PARENTS);
    const insert = new ChunkedInsert(db, 'children', CHILDREN, parents);
    db.transaction(() => {
      // A new parent before each child: each child's chunk needs parents still waiting to be inserted.
      for (let id = 1; id <= ROWS_PER_INSERT + 1; id++) {
        parents.add({ id });
        insert.add({ id, parentId: id, label: 'x', extra: null });
      }
      insert.flush();
    })();
    expect(db.prepare('SELECT count(*) AS n FROM parents').get()).toEqual({ n: ROWS_PER_INSERT + 1 });
    expect(children()).toHaveLength(ROWS_PER_INSERT + 1);
  });

  it('drops the rows of a failed chunk, so the next transaction starts empty', () => {
    const insert = new ChunkedInsert(db, 'children', CHILDREN);
    // No parent 7: the chunk breaks the foreign key and the transaction rolls back.
    expect(() =>
      db.transaction(() => {
        insert.add({ id: 1, parentId: 7, label: 'orphan', extra: null });
        insert.flush();
      })(),
    ).toThrow(/FOREIGN KEY/);
    db.prepare('INSERT INTO parents (id) VALUES (1)').run();
    db.transaction(() => {
      insert.add({ id: 2, parentId: 1, label: 'kept', extra: null });
      insert.flush();
    })();
    expect(children()).toEqual([{ id: 2, parentId: 1, label: 'kept', extra: null }]);
  });

  it('leaves columns that are usually null out of a chunk whose rows all have them null, and keeps them in one where a row does not', () => {
    const insert = new ChunkedInsert(db, 'children', CHILDREN, undefined, ['extra']);
    db.prepare('INSERT INTO parents (id) VALUES (1)').run();
    const expected: Child[] = [];
    // A lean chunk, a chunk with one row that sets the column, then a lean remainder.
    for (let id = 1; id <= ROWS_PER_INSERT * 2 + 3; id++) expected.push({ id, parentId: 1, label: `row ${id}`, extra: id === ROWS_PER_INSERT + 4 ? 42 : null });
    const statements = new Set<string>();
    addWatchingPrepare(insert, expected, (sql) => statements.add(sql.slice(0, sql.indexOf(' VALUES'))));
    expect(children()).toEqual(expected);
    expect([...statements].sort()).toEqual(['INSERT INTO children (id, parent_id, label)', 'INSERT INTO children (id, parent_id, label, extra)']);
  });

  it("writes columns a chunk's rows all share as literals, storing the same values and types as bound ones", () => {
    const insert = new ChunkedInsert(db, 'children', CHILDREN, undefined, ['extra'], ['label']);
    db.prepare('INSERT INTO parents (id) VALUES (1)').run();
    // Chunks: all 'same' with one row's `extra` set (a literal, the full shape); 'same' and lean (a
    // literal, the lean shape); one row differs (bound); all share a text with no plain literal (bound:
    // the lean statement again); 'same' and lean again (its statement reused); 'other'; a remainder of
    // 'other' (bound: remainders never have literals).
    const labels = [
      ...Array<string>(ROWS_PER_INSERT * 2).fill('same'),
      ...Array<string>(ROWS_PER_INSERT - 1).fill('same'),
      'different',
      ...Array<string>(ROWS_PER_INSERT).fill("it's"),
      ...Array<string>(ROWS_PER_INSERT).fill('same'),
      ...Array<string>(ROWS_PER_INSERT + 2).fill('other'),
    ];
    const expected: Child[] = labels.map((label, i) => ({ id: i + 1, parentId: 1, label, extra: i + 1 === 3 ? 2 ** 40 : null }));
    const statements: string[] = [];
    addWatchingPrepare(insert, expected, (sql) => statements.push(valuesOf(sql)));
    expect(children()).toEqual(expected);
    const types = db.prepare('SELECT DISTINCT typeof(id) AS id, typeof(parent_id) AS parentId, typeof(label) AS label FROM children').all();
    expect(types).toEqual([{ id: 'integer', parentId: 'integer', label: 'text' }]);
    expect(statements).toEqual(["(?, ?, 'same', ?)", "(?, ?, 'same')", '(?, ?, ?)', "(?, ?, 'other')", '(?, ?, ?)']);
  });

  it('writes a 32-bit integer or null as a literal, and a larger number bound', () => {
    const NUMBERS = { id: requiredInteger('id'), parentId: requiredInteger('parent_id'), label: requiredText('label'), extra: integer('extra') } as const;
    const insert = new ChunkedInsert(db, 'children', NUMBERS, undefined, [], ['extra', 'label']);
    db.prepare('INSERT INTO parents (id) VALUES (1)').run();
    const extras = [0, -7, 2 ** 31 - 1, null, 2 ** 40, 1.5];
    let id = 0;
    // A full chunk of each value.
    db.transaction(() => {
      for (const extra of extras) for (let k = 0; k < ROWS_PER_INSERT; k++) insert.add({ id: ++id, parentId: 1, label: 'x', extra });
    })();
    const stored = db.prepare('SELECT DISTINCT extra, typeof(extra) AS t FROM children ORDER BY id').all() as Array<{ extra: number | null; t: string }>;
    expect(stored.map((row) => row.extra)).toEqual(extras);
    expect(stored.map((row) => row.t)).toEqual(['integer', 'integer', 'integer', 'null', 'integer', 'real']);
    expect([0, -7, 2 ** 31 - 1, null, 2 ** 40, 1.5, -0, 'server', "it's", 'x'.repeat(65)].map(sqlLiteral)).toEqual(['0.0', '-7.0', '2147483647.0', 'NULL', undefined, undefined, undefined, "'server'", undefined, undefined]);
  });

  it('stores a shared number in a TEXT column as binding it does', () => {
    // better-sqlite3 binds a number as a REAL: a TEXT column keeps 7 as '7.0', from a literal (a full chunk) as from a bound value (the remainder).
    const insert = new ChunkedInsert(db, 'children', CHILDREN, undefined, [], ['label']);
    db.prepare('INSERT INTO parents (id) VALUES (1)').run();
    db.transaction(() => {
      for (let id = 1; id <= ROWS_PER_INSERT + 1; id++) insert.add({ id, parentId: 1, label: 7 as unknown as string, extra: null });
    })();
    expect(db.prepare('SELECT DISTINCT label, typeof(label) AS t FROM children').all()).toEqual([{ label: '7.0', t: 'text' }]);
  });

  it("writes each shared column that a chunk's rows all hold one value in as a literal, and binds the others", () => {
    const insert = new ChunkedInsert(db, 'children', CHILDREN, undefined, [], ['parentId', 'label']);
    db.prepare('INSERT INTO parents (id) VALUES (1), (2)').run();
    const expected: Child[] = [];
    // A chunk of one parent whose labels alternate (as a REST exchange's senders do), then one of alternating parents and one label.
    for (let id = 1; id <= ROWS_PER_INSERT * 2; id++) {
      expected.push(id <= ROWS_PER_INSERT ? { id, parentId: 1, label: id % 2 === 0 ? 'even' : 'odd', extra: id } : { id, parentId: 1 + (id % 2), label: 'same', extra: null });
    }
    const statements: string[] = [];
    addWatchingPrepare(insert, expected, (sql) => statements.push(valuesOf(sql)));
    expect(children()).toEqual(expected);
    expect(statements).toEqual(['(?, 1.0, ?, ?)', "(?, ?, 'same', ?)"]);
  });

  it("reuses a full chunk's statement only for a chunk that shares the same values, each chunk storing its own", () => {
    const insert = new ChunkedInsert(db, 'children', CHILDREN, undefined, ['extra'], ['parentId', 'label']);
    db.prepare('INSERT INTO parents (id) VALUES (1), (2)').run();
    // Full chunks in turn: the same values twice, a label then a parent changed, a usually-null column set, back again.
    const chunks: Array<{ parentId: number; label: string; extra: number | null }> = [
      { parentId: 1, label: 'a', extra: null },
      { parentId: 1, label: 'a', extra: null },
      { parentId: 1, label: 'b', extra: null },
      { parentId: 2, label: 'b', extra: null },
      { parentId: 2, label: 'b', extra: 0 },
      { parentId: 2, label: 'b', extra: 7 },
      { parentId: 1, label: 'a', extra: null },
    ];
    const expected: Child[] = [];
    for (const shared of chunks) for (let k = 0; k < ROWS_PER_INSERT; k++) expected.push({ id: expected.length + 1, ...shared });
    let prepared = 0;
    addWatchingPrepare(insert, expected, () => prepared++);
    expect(children()).toEqual(expected);
    // One statement per lean or full shape and set of values: (1,a), (1,b), (2,b) lean, (2,b) with extra.
    expect(prepared).toBe(4);
  });

  it('refuses a column both usually null and usually shared', () => {
    expect(() => new ChunkedInsert(db, 'children', CHILDREN, undefined, ['extra'], ['extra'])).toThrow(/children\.extra: usually null and usually shared/);
  });

  it('refuses a usually-null column that cannot be null', () => {
    expect(() => new ChunkedInsert(db, 'children', CHILDREN, undefined, ['label'])).toThrow(/children\.label: not a nullable column/);
  });

  it('forgets rows on discard', () => {
    const insert = new ChunkedInsert(db, 'children', CHILDREN);
    db.prepare('INSERT INTO parents (id) VALUES (1)').run();
    insert.add({ id: 1, parentId: 1, label: 'never', extra: null });
    insert.discard();
    insert.flush();
    expect(children()).toEqual([]);
  });
});

describe('the writer with chunked inserts', () => {
  it('keeps findings beside their messages, in order, when they fall inside a chunk', () => {
    const file = join(tmp.dir, 'findings.db');
    const writer = RecordingWriter.open(file, meta());
    const exchangeId = writer.beginExchange({ transport: 'ws', tOffsetMs: 0 });
    const ids: number[] = [];
    for (let i = 0; i < ROWS_PER_INSERT + 5; i++) {
      // Every fifth message carries a finding; every seventh gets one later, through addFindings.
      const findings = i % 5 === 0 ? [error('rule-a', `/m${i}`, `first ${i}`)] : [];
      ids.push(writer.addMessage({ exchangeId, sender: 'server', carrier: 'frame', channel: 'text', tOffsetMs: i, raw: Buffer.from(`{"n":${i}}`), json: { n: i }, verdict: verdictFrom(findings) }));
      if (i % 7 === 6) writer.addFindings(ids[i]!, exchangeId, [error('rule-b', '', `later ${i}`)], verdictFrom([error('rule-b', '', `later ${i}`)]));
    }
    writer.endExchange(exchangeId, { outcome: 'complete', tOffsetMs: 99 });
    writer.close();

    const reader = RecordingReader.open(file);
    try {
      const messages = reader.messages(exchangeId);
      expect(messages.map((m) => m.seq)).toEqual(ids.map((_, i) => i + 1));
      expect(messages.map((m) => m.json)).toEqual(ids.map((_, i) => ({ n: i })));
      const findingRows = new Database(file, { readonly: true });
      try {
        const rows = findingRows.prepare('SELECT message_id AS messageId, message FROM findings ORDER BY id').all() as Array<{ messageId: number; message: string }>;
        const expected: Array<{ messageId: number; message: string }> = [];
        for (let i = 0; i < ids.length; i++) {
          if (i % 5 === 0) expected.push({ messageId: ids[i]!, message: `first ${i}` });
          if (i % 7 === 6) expected.push({ messageId: ids[i]!, message: `later ${i}` });
        }
        expect(rows).toEqual(expected);
        const counts = findingRows.prepare('SELECT id, finding_count AS n, status FROM messages ORDER BY id').all() as Array<{ id: number; n: number; status: string }>;
        expect(counts.map((c) => c.n)).toEqual(ids.map((_, i) => (i % 5 === 0 ? 1 : 0) + (i % 7 === 6 ? 1 : 0)));
        expect(counts.every((c) => c.status === (c.n > 0 ? 'invalid' : 'valid'))).toBe(true);
      } finally {
        findingRows.close();
      }
    } finally {
      reader.close();
    }
  });
});
