import type Database from 'better-sqlite3';

/** Where a set of lazy statements keeps its connection: a symbol, so that no statement's name can take it. */
const CONNECTION = Symbol('connection');

/**
 * Statements by name, each prepared on its first use. A recording reader that prepared its ~20
 * statements when opened paid ~2 ms of SQLite's parsing and planning for each file it opened, while a
 * command uses a few of them (a replay three). Returns what makes a connection's set: the getters
 * are made once, on a prototype every set shares, so that an open makes one object rather than a
 * property and a closure per statement.
 */
export function lazyStatements<K extends string>(
  prepare: Record<K, (db: Database.Database) => Database.Statement>,
): (db: Database.Database) => Record<K, Database.Statement> {
  const shared: object = {};
  for (const name of Object.keys(prepare) as K[]) {
    Object.defineProperty(shared, name, {
      get(this: { [CONNECTION]: Database.Database }) {
        const statement = prepare[name](this[CONNECTION]);
        Object.defineProperty(this, name, { value: statement, enumerable: true });
        return statement;
      },
    });
  }
  return (db) => Object.create(shared, { [CONNECTION]: { value: db } }) as Record<K, Database.Statement>;
}
