import type Database from 'better-sqlite3';
import { insertSql, nullTest, pickColumns, rowsBinder, type Columns, type StoredOf } from './columns.js';

/** Rows per statement: past about a dozen the saving per row levels off (bench/micro.js, the writer). */
export const ROWS_PER_INSERT = 16;

interface SizedInsert<C extends Columns> {
  statement: Database.Statement;
  bind: (rows: ReadonlyArray<StoredOf<C>>) => unknown[];
}

/**
 * Inserts the rows of one table several at a time, in one INSERT … VALUES (…), (…) each: SQLite
 * then plans, binds and steps once per chunk, which takes about a third off the cost of a small row
 * (a WebSocket frame, an SSE event). Rows wait here only until `flush`, which the writer calls
 * before anything that must see them (a finding that points at one) and at the end of every
 * transaction, so what a transaction commits is exactly what it was given.
 *
 * Columns that are nearly always null (`usuallyNull`) are left out of the INSERT of a chunk whose
 * rows all have them null: SQLite stores a column an INSERT leaves out as its default, NULL, the
 * same record byte for byte, and binds and checks fewer values per row (about a tenth of a small
 * row's cost: bench/micro.js, `sqlite-insert`).
 */
export class ChunkedInsert<C extends Columns> {
  private readonly pending: Array<StoredOf<C>> = [];
  /** Whether every pending row has each `usuallyNull` column null. */
  private pendingLean = true;
  /** A statement per chunk size and shape, prepared on first use: the full chunk, and each remainder seen. */
  private readonly inserts = new Map<number, SizedInsert<C>>();
  private readonly leanInserts = new Map<number, SizedInsert<C>>();
  private readonly leanColumns: Columns;
  private readonly isLean: (row: StoredOf<C>) => boolean;

  /**
   * `refersTo`: the inserts of the rows this table's rows point at (a message's exchange), flushed
   * before each chunk of these, so a foreign key never points ahead. `usuallyNull`: nullable
   * columns' fields (none by default) that a chunk leaves out when all its rows have them null.
   */
  constructor(
    private readonly db: Database.Database,
    private readonly table: string,
    private readonly columns: C,
    private readonly refersTo?: { flush(): void },
    usuallyNull: ReadonlyArray<keyof C & string> = [],
  ) {
    for (const field of usuallyNull) if (columns[field]?.notNull !== false) throw new Error(`${table}.${field}: not a nullable column`);
    const left = new Set<string>(usuallyNull);
    this.leanColumns = pickColumns(columns, Object.keys(columns).filter((field) => !left.has(field)));
    this.isLean = nullTest(columns, usuallyNull);
  }

  add(row: StoredOf<C>): void {
    this.pending.push(row);
    if (this.pendingLean && !this.isLean(row)) this.pendingLean = false;
    if (this.pending.length >= ROWS_PER_INSERT) this.flush();
  }

  /** Inserts every row added so far. On a failure the rows are dropped with the transaction that held them. */
  flush(): void {
    const count = this.pending.length;
    if (count === 0) return;
    this.refersTo?.flush();
    try {
      const insert = this.pendingLean ? this.insertOf(this.leanInserts, this.leanColumns, count) : this.insertOf(this.inserts, this.columns, count);
      insert.statement.run(insert.bind(this.pending));
    } finally {
      this.pending.length = 0;
      this.pendingLean = true;
    }
  }

  /** Forgets rows not yet inserted: their transaction failed before it reached them. */
  discard(): void {
    this.pending.length = 0;
    this.pendingLean = true;
  }

  private insertOf(inserts: Map<number, SizedInsert<C>>, columns: Columns, count: number): SizedInsert<C> {
    let insert = inserts.get(count);
    if (!insert) {
      insert = { statement: this.db.prepare(insertSql(this.table, columns, count)), bind: rowsBinder(columns, count) as SizedInsert<C>['bind'] };
      inserts.set(count, insert);
    }
    return insert;
  }
}
