import type Database from 'better-sqlite3';

/**
 * Statements by name, each prepared on its first use. A recording reader that prepared its ~20
 * statements when opened paid ~2 ms of SQLite's parsing and planning for each file it opened, while a
 * command uses a few of them (a replay three).
 */
export function lazyStatements<K extends string>(prepare: Record<K, () => Database.Statement>): Record<K, Database.Statement> {
  const statements = {} as Record<K, Database.Statement>;
  for (const name of Object.keys(prepare) as K[]) {
    Object.defineProperty(statements, name, {
      configurable: true,
      enumerable: true,
      get() {
        const statement = prepare[name]();
        Object.defineProperty(statements, name, { value: statement, enumerable: true });
        return statement;
      },
    });
  }
  return statements;
}
