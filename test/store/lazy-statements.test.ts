import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { lazyStatements } from '../../src/store/lazy-statements.js';

describe('statements prepared on first use', () => {
  it('prepares each one when it is first asked for, once, and leaves the others unprepared', () => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2)');
      const prepared: string[] = [];
      const statements = lazyStatements({
        count: () => (prepared.push('count'), db.prepare('SELECT count(*) AS n FROM t')),
        // Not valid SQL: preparing it throws, so the test sees whether it was prepared.
        never: () => (prepared.push('never'), db.prepare('SELECT FROM nowhere at all')),
      });
      expect(prepared).toEqual([]);
      expect(statements.count.get()).toEqual({ n: 2 });
      expect(statements.count).toBe(statements.count);
      expect(prepared).toEqual(['count']);
      expect(Object.keys(statements)).toEqual(['count', 'never']);
      expect(() => statements.never).toThrow(/syntax error/);
    } finally {
      db.close();
    }
  });
});
