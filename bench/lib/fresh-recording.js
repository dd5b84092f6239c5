// A fresh recording of a build's newest schema as the writer makes it, for the floor benches' rows
// (bench/record-floor.js): the store's pragmas (WAL, synchronous=NORMAL, the writer's cache), one exchange
// (id 1) the messages belong to, one schema ref (id 1) they were judged by, and the exchanges' ChunkedInsert
// that a message insert flushes first.
import { join } from 'node:path';

/**
 * Opens `${name}.db` in `dir` through `load` (a build's dist module by its path), the exchange of `transport`
 * and the schema ref `schemaRef` in it. Returns the connection, its file, the exchanges' insert, and the
 * store's ChunkedInsert class for the caller's own table.
 */
export async function openFreshRecording(load, dir, name, transport, schemaRef) {
  const [{ openDatabase }, { migrate }, { ChunkedInsert }, { EXCHANGE_COLUMNS }] = await Promise.all([
    load('store/open-database.js'),
    load('store/migrations.js'),
    load('store/chunked-insert.js'),
    load('store/schema.js'),
  ]);
  const file = join(dir, `${name}.db`);
  const db = openDatabase(file);
  migrate(db, file);
  db.prepare('INSERT INTO exchanges (id, transport, started_ms) VALUES (1, ?, 0)').run(transport);
  db.prepare('INSERT INTO schema_refs (id, ref) VALUES (1, ?)').run(schemaRef);
  return { db, file, exchanges: new ChunkedInsert(db, 'exchanges', EXCHANGE_COLUMNS), ChunkedInsert };
}
