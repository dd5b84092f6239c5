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
  /** The last ref asked for and its id: a stream's messages ask for the same one again and again. */
  private lastRef: string | undefined;
  private lastId = 0;

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
    if (ref === this.lastRef) return this.lastId;
    let id = this.ids.get(ref);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(ref, id);
      insert(id, ref);
    }
    this.lastRef = ref;
    this.lastId = id;
    return id;
  }
}

/**
 * A reader's refs by id, read once from `schema_refs` and again only when a row names one it has not
 * seen (a recorder still appending adds refs): a message's ref resolved here rather than by a
 * subquery per row, which cost a lookup and a new string for every message read.
 */
export class SchemaRefNames {
  /** null: an id the table does not hold (a damaged file), not looked for again: a ref is written before the rows naming it. */
  private readonly refs = new Map<number, string | null>();
  private readonly all: Database.Statement;

  constructor(db: Database.Database) {
    this.all = db.prepare('SELECT id, ref FROM schema_refs').raw(true);
  }

  /** The message's ref: `schemaRef` as stored, else the one `schemaRefId` names (null: none, as the subquery gave). */
  of(schemaRef: string | null, schemaRefId: number | null): string | null {
    if (schemaRef !== null || schemaRefId === null) return schemaRef;
    let ref = this.refs.get(schemaRefId);
    if (ref === undefined) {
      for (const [id, text] of this.all.all() as Array<[number, string]>) this.refs.set(id, text);
      ref = this.refs.get(schemaRefId);
      if (ref === undefined) this.refs.set(schemaRefId, (ref = null));
    }
    return ref;
  }
}
