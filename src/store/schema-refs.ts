import type Database from 'better-sqlite3';

/**
 * A message's schema ref (`https://…/schema.json#/$defs/RunStartedEvent`) is the same for thousands
 * of messages: from format 8 the file holds each once, in `schema_refs`, and a message its id
 * (`messages.schema_ref_id`); `messages.schema_ref` keeps the refs of rows written before, and of
 * verdicts rewritten in a scratch copy. A message's ref is the one or the other (schemaRefSql).
 */

/** The message's schema ref in SQL, for a query over `messages` (`alias`: the table's alias in it). */
export function schemaRefSql(alias?: string): string {
  const c = alias === undefined ? '' : `${alias}.`;
  return `coalesce(${c}schema_ref, (SELECT r.ref FROM schema_refs r WHERE r.id = ${c}schema_ref_id))`;
}

/** A writer's ids of the refs in its file: each new ref gets the next id, and is told to `insert` once. */
export class SchemaRefIds {
  private readonly ids = new Map<string, number>();
  private nextId = 1;

  /** `db`: a file being appended to, whose refs keep their ids. */
  constructor(db?: Database.Database) {
    if (!db) return;
    for (const row of db.prepare('SELECT id, ref FROM schema_refs').all() as Array<{ id: number; ref: string }>) {
      this.ids.set(row.ref, row.id);
      this.nextId = Math.max(this.nextId, row.id + 1);
    }
  }

  /** The id of `ref` (null for none); a ref seen for the first time is handed to `insert` with its new id first. */
  idOf(ref: string | null, insert: (id: number, ref: string) => void): number | null {
    if (ref === null) return null;
    let id = this.ids.get(ref);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(ref, id);
      insert(id, ref);
    }
    return id;
  }
}
