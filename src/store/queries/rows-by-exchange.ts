import type Database from 'better-sqlite3';

/**
 * Rows read at a time: one statement for a recording of many small exchanges, memory bounded for an exchange of many
 * rows. 1,024 kept rows alive long enough to be promoted out of the young generation (read-scale's diff: 249 MB peak RSS
 * against 240 with 256).
 */
export const ROWS_PAGE = 256;

/** A row whose first two values are its exchange id and its order within the exchange (a message's seq, a finding's id). */
export type RowInExchange = [exchangeId: number, order: number, ...rest: unknown[]];

/**
 * The rows of a table in (exchange_id, order) order, read a page at a time, taken exchange by exchange
 * in ascending id order: what a pass over a whole recording (diff's first pass) reads instead of a query per
 * exchange, whose cost (~20–30 µs of statement and iterator even for a row or none) dominated a recording of
 * many small exchanges. `page` takes (exchange id, order) and gives, as arrays (`.raw(true)`), the rows
 * after that place, in that order, at most `pageSize` (its own `LIMIT`, written as a number: SQLite
 * prepares a statement of `LIMIT ?` again each time it is bound, ~35 µs a page).
 */
export class RowsByExchange<Row extends RowInExchange> {
  private rows: Row[] = [];
  private at = 0;
  private done = false;
  private lastExchange = 0;
  private lastOrder = -1;
  private asked = -Infinity;

  constructor(
    private readonly page: Database.Statement,
    private readonly pageSize = ROWS_PAGE,
  ) {}

  /** The next row of `exchangeId`, undefined once it has no more. Rows of exchanges before it are skipped; asking an earlier exchange after a later one is an error. */
  next(exchangeId: number): Row | undefined {
    if (exchangeId < this.asked) throw new RangeError(`exchange ${exchangeId} asked for after ${this.asked}: ask in ascending order`);
    this.asked = exchangeId;
    for (;;) {
      if (this.at < this.rows.length) {
        const row = this.rows[this.at];
        if (row[0] > exchangeId) return undefined;
        this.at++;
        if (row[0] === exchangeId) return row;
        continue;
      }
      if (this.done) return undefined;
      this.read(exchangeId);
    }
  }

  /** All the rows of `exchangeId` left. */
  all(exchangeId: number): Row[] {
    const out: Row[] = [];
    for (let row = this.next(exchangeId); row !== undefined; row = this.next(exchangeId)) out.push(row);
    return out;
  }

  private read(exchangeId: number): void {
    // From where the last page ended, or from the exchange asked for when that is further on (those between were not asked for); orders are never negative.
    const from = exchangeId > this.lastExchange ? [exchangeId, -1] : [this.lastExchange, this.lastOrder];
    this.rows = this.page.all(from[0], from[1]) as Row[];
    this.at = 0;
    this.done = this.rows.length < this.pageSize;
    const last = this.rows.at(-1);
    if (last !== undefined) [this.lastExchange, this.lastOrder] = last;
  }
}
