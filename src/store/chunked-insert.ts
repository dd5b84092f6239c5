import type Database from 'better-sqlite3';
import { insertSql, rowsBinder, type Columns, type StoredOf } from './columns.js';

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
 */
export class ChunkedInsert<C extends Columns> {
  private readonly pending: Array<StoredOf<C>> = [];
  /** A statement per chunk size, prepared on first use: the full chunk, and each remainder seen. */
  private readonly inserts = new Map<number, SizedInsert<C>>();

  /**
   * `refersTo`: the inserts of the rows this table's rows point at (a message's exchange), flushed
   * before each chunk of these, so a foreign key never points ahead.
   */
  constructor(
    private readonly db: Database.Database,
    private readonly table: string,
    private readonly columns: C,
    private readonly refersTo?: { flush(): void },
  ) {}

  add(row: StoredOf<C>): void {
    this.pending.push(row);
    if (this.pending.length >= ROWS_PER_INSERT) this.flush();
  }

  /** Inserts every row added so far. On a failure the rows are dropped with the transaction that held them. */
  flush(): void {
    const count = this.pending.length;
    if (count === 0) return;
    this.refersTo?.flush();
    try {
      const insert = this.insertOf(count);
      insert.statement.run(insert.bind(this.pending));
    } finally {
      this.pending.length = 0;
    }
  }

  /** Forgets rows not yet inserted: their transaction failed before it reached them. */
  discard(): void {
    this.pending.length = 0;
  }

  private insertOf(count: number): SizedInsert<C> {
    let insert = this.inserts.get(count);
    if (!insert) {
      insert = { statement: this.db.prepare(insertSql(this.table, this.columns, count)), bind: rowsBinder(this.columns, count) };
      this.inserts.set(count, insert);
    }
    return insert;
  }
}
