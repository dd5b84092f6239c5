import type Database from 'better-sqlite3';
import { insertSql, nullTest, pickColumns, rowsBinder, sameFields, sqlLiteral, type Columns, type StoredOf } from './columns.js';

/** Rows per statement: past about a dozen the saving per row levels off (bench/micro.js, the writer). */
export const ROWS_PER_INSERT = 16;

/**
 * Statements with shared columns as literals kept per table: one per shape, set of columns and of
 * values seen. Enumerated columns make few; past this a chunk binds its values as usual. A prepared
 * 16-row INSERT holds ~36 KB (256 of them: 9 MB of RSS), hence the bound, and literals only for full chunks.
 */
const MAX_SHARED_STATEMENTS = 64;

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
 *
 * Columns of a few values that a chunk's rows nearly always share (`usuallyShared`: a message's
 * sender, carrier, status) are written into the statement as literals, each one that every row of
 * the chunk holds the same value in: the same record again, without binding a text per row and
 * column (better-sqlite3 converts each string bound to UTF-8), about a sixth of an SSE event's row.
 * Only a full chunk's: most rows of a flood, which is where the cost counts.
 * (A REST exchange's or a WebSocket's chunk alternates senders: its other shared columns still are.)
 */
export class ChunkedInsert<C extends Columns> {
  private readonly pending: Array<StoredOf<C>> = [];
  /** Whether every pending row has each `usuallyNull` column null. */
  private pendingLean = true;
  /** Which `usuallyShared` columns (bit i: the i-th) every pending row holds the first one's value in. */
  private pendingShared: number;
  /** A statement per chunk size and shape, prepared on first use: the full chunk, and each remainder seen. */
  private readonly inserts = new Map<number, SizedInsert<C>>();
  private readonly leanInserts = new Map<number, SizedInsert<C>>();
  /** Statements with shared columns' values as literals, by shape, size, columns and values. */
  private readonly sharedInserts = new Map<string, SizedInsert<C>>();
  /** Their binders, by shape, size and columns: the same for every set of literals. */
  private readonly sharedBinders = new Map<string, SizedInsert<C>['bind']>();
  private readonly leanColumns: Columns;
  private readonly isLean: (row: StoredOf<C>) => boolean;
  private readonly sharedFields: ReadonlyArray<keyof C & string>;
  private readonly sameShared: (a: StoredOf<C>, b: StoredOf<C>) => number;
  /** Every `usuallyShared` column's bit. */
  private readonly allShared: number;
  /** The last full chunk's statement with literals, the shared values it was made for, and its shape. */
  private lastShared: { lean: boolean; count: number; mask: number; values: unknown[]; insert: SizedInsert<C> } | undefined;

  /**
   * `refersTo`: the inserts of the rows this table's rows point at (a message's exchange), flushed
   * before each chunk of these, so a foreign key never points ahead. `usuallyNull`: nullable
   * columns' fields (none by default) that a chunk leaves out when all its rows have them null.
   * `usuallyShared`: fields of few values (none by default) written as literals when all a chunk's rows share them.
   */
  constructor(
    private readonly db: Database.Database,
    private readonly table: string,
    private readonly columns: C,
    private readonly refersTo?: { flush(): void },
    usuallyNull: ReadonlyArray<keyof C & string> = [],
    usuallyShared: ReadonlyArray<keyof C & string> = [],
  ) {
    for (const field of usuallyNull) if (columns[field]?.notNull !== false) throw new Error(`${table}.${field}: not a nullable column`);
    const left = new Set<string>(usuallyNull);
    for (const field of usuallyShared) if (left.has(field)) throw new Error(`${table}.${field}: usually null and usually shared`);
    this.leanColumns = pickColumns(columns, Object.keys(columns).filter((field) => !left.has(field)));
    this.isLean = nullTest(columns, usuallyNull);
    this.sharedFields = usuallyShared;
    this.sameShared = sameFields(columns, usuallyShared);
    this.allShared = this.pendingShared = (1 << usuallyShared.length) - 1;
  }

  add(row: StoredOf<C>): void {
    this.pending.push(row);
    if (this.pendingLean && !this.isLean(row)) this.pendingLean = false;
    if (this.pendingShared !== 0) this.pendingShared &= this.sameShared(this.pending[0]!, row);
    if (this.pending.length >= ROWS_PER_INSERT) this.flush();
  }

  /** Inserts every row added so far. On a failure the rows are dropped with the transaction that held them. */
  flush(): void {
    const count = this.pending.length;
    if (count === 0) return;
    this.refersTo?.flush();
    try {
      const lean = this.pendingLean;
      const insert =
        // Full chunks only: a remainder (the end of a transaction, before a finding) is a few rows, and
        // a statement per remainder size would multiply the statements kept.
        (this.pendingShared !== 0 && count === ROWS_PER_INSERT ? this.sharedInsertOf(lean, count, this.pendingShared, this.pending[0]!) : undefined) ??
        (lean ? this.insertOf(this.leanInserts, this.leanColumns, count) : this.insertOf(this.inserts, this.columns, count));
      insert.statement.run(insert.bind(this.pending));
    } finally {
      this.pending.length = 0;
      this.pendingLean = true;
      this.pendingShared = this.allShared;
    }
  }

  /** Forgets rows not yet inserted: their transaction failed before it reached them. */
  discard(): void {
    this.pending.length = 0;
    this.pendingLean = true;
    this.pendingShared = this.allShared;
  }

  private insertOf(inserts: Map<number, SizedInsert<C>>, columns: Columns, count: number): SizedInsert<C> {
    let insert = inserts.get(count);
    if (!insert) {
      insert = { statement: this.db.prepare(insertSql(this.table, columns, count)), bind: rowsBinder(columns, count) as SizedInsert<C>['bind'] };
      inserts.set(count, insert);
    }
    return insert;
  }

  /**
   * The INSERT of `count` rows with the shared columns in `mask` (those all of them hold `first`'s
   * value in) as literals; undefined when none has a literal, or too many statements were made.
   */
  private sharedInsertOf(lean: boolean, count: number, mask: number, first: StoredOf<C>): SizedInsert<C> | undefined {
    // A flood's chunks are one stream's: the same statement as the last chunk's, found without making
    // its literals and key again (a string and an object per chunk, held with the rows until they are written).
    const last = this.lastShared;
    if (last !== undefined && last.lean === lean && last.count === count && last.mask === mask && this.sameValues(last.values, first, mask)) return last.insert;
    const found = this.sharedInsertFor(lean, count, mask, first);
    if (found !== undefined) {
      const values: unknown[] = [];
      for (let i = 0; i < this.sharedFields.length; i++) values.push((mask & (1 << i)) === 0 ? undefined : first[this.sharedFields[i]!]);
      this.lastShared = { lean, count, mask, values, insert: found };
    }
    return found;
  }

  /** Whether `row` holds `values` in each shared column of `mask` (Object.is: 0 and -0 are told apart, as their literals are). */
  private sameValues(values: readonly unknown[], row: StoredOf<C>, mask: number): boolean {
    for (let i = 0; i < this.sharedFields.length; i++) if ((mask & (1 << i)) !== 0 && !Object.is(values[i], row[this.sharedFields[i]!])) return false;
    return true;
  }

  private sharedInsertFor(lean: boolean, count: number, mask: number, first: StoredOf<C>): SizedInsert<C> | undefined {
    const literals = Object.create(null) as Record<string, string>;
    let values = '';
    for (let i = 0; i < this.sharedFields.length; i++) {
      if ((mask & (1 << i)) === 0) continue;
      const field = this.sharedFields[i]!;
      const literal = sqlLiteral(first[field]);
      // A value with no literal (a long text, a large number) is bound as usual.
      if (literal === undefined) mask &= ~(1 << i);
      else {
        literals[field] = literal;
        values += `,${literal}`;
      }
    }
    if (mask === 0) return undefined;
    const shape = `${lean ? 'l' : 'f'}${count}/${mask}`;
    const key = shape + values;
    let insert = this.sharedInserts.get(key);
    if (insert === undefined) {
      if (this.sharedInserts.size >= MAX_SHARED_STATEMENTS) return undefined;
      const columns = lean ? this.leanColumns : this.columns;
      let bind = this.sharedBinders.get(shape);
      if (bind === undefined) {
        bind = rowsBinder(pickColumns(columns, Object.keys(columns).filter((field) => literals[field] === undefined)), count) as SizedInsert<C>['bind'];
        this.sharedBinders.set(shape, bind);
      }
      insert = { statement: this.db.prepare(insertSql(this.table, columns, count, literals)), bind };
      this.sharedInserts.set(key, insert);
    }
    return insert;
  }
}
