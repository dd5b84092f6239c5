import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { lazyStatements } from '../../src/store/lazy-statements.js';

describe('statements prepared on first use', () => {
  it('prepares each one when it is first asked for, once, and leaves the others unprepared', () => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2)');
      const prepared: string[] = [];
      const statementsOf = lazyStatements({
        count: (on) => (prepared.push('count'), on.prepare('SELECT count(*) AS n FROM t')),
        // Not valid SQL: preparing it throws, so the test sees whether it was prepared.
        never: (on) => (prepared.push('never'), on.prepare('SELECT FROM nowhere at all')),
      });
      const statements = statementsOf(db);
      expect(prepared).toEqual([]);
      expect(statements.count.get()).toEqual({ n: 2 });
      expect(statements.count).toBe(statements.count);
      expect(prepared).toEqual(['count']);
      expect('never' in statements).toBe(true);
      expect(() => statements.never).toThrow(/syntax error/);
    } finally {
      db.close();
    }
  });

  it('gives each connection its own statements, prepared on it', () => {
    const [a, b] = [new Database(':memory:'), new Database(':memory:')];
    try {
      a.exec('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1)');
      b.exec('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2), (3)');
      const statementsOf = lazyStatements({ count: (on) => on.prepare('SELECT count(*) FROM t').pluck() });
      const [onA, onB] = [statementsOf(a), statementsOf(b)];
      expect(onB.count.get()).toBe(3);
      expect(onA.count.get()).toBe(1);
      expect(onA.count).not.toBe(onB.count);
      expect(onA.count.database).toBe(a);
    } finally {
      a.close();
      b.close();
    }
  });
});
