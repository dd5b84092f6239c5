import type Database from 'better-sqlite3';

/**
 * Each reader's read-only connection, for the queries of another reader over the same file (the
 * inspector's), which then opens no second one. Kept here, not as a member of RecordingReader: the
 * package exports that class, and neither its users nor its declarations get a handle on the database
 * (a consumer's type-check would need better-sqlite3's types).
 */
const connections = new WeakMap<object, Database.Database>();

export function keepReaderConnection(reader: object, db: Database.Database): void {
  connections.set(reader, db);
}

export function readerConnection(reader: object): Database.Database {
  const db = connections.get(reader);
  if (db === undefined) throw new Error('readerConnection: not a recording reader');
  return db;
}
