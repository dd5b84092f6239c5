/**
 * A message's sender, carrier and channel as one small integer of its row: each a word's place among the
 * few a recorder writes. better-sqlite3 puts each value of an array row in one at a time, and a text
 * costs SQLite a string joined per row and JavaScript a string made and hashed to look it up; below
 * Node 22 (module ABI 127) each value goes through V8's generic property store, ~50 ns more than on
 * Node 22. `export`'s kind of a plain message (plain-message-kind.ts) and `validate`'s in-order read
 * (recording-reader.ts) hold these bits, then their own.
 */
import { routeOfColumns, type MessageRoute } from './message-route.js';

export const SENDER_WORDS: readonly MessageRoute['sender'][] = ['client', 'server'];
export const CARRIER_WORDS: readonly MessageRoute['carrier'][] = ['body', 'event', 'frame', 'line'];
/** The channels record writes (at most 16: 4 bits), none first. */
export const CHANNEL_WORDS: ReadonlyArray<string | null> = [null, 'text', 'binary', 'close', 'ping', 'pong', 'comment', 'proto', 'stdin', 'stdout', 'stderr'];

/** A column's place among `words` in SQL (NULL for a value not among them; a NULL column is `null`'s place). */
export function codeOf(column: string, words: ReadonlyArray<string | null>): string {
  const cases = words.map((word, i) => (word === null ? `WHEN ${column} IS NULL THEN ${i}` : `WHEN ${column} = '${word}' THEN ${i}`));
  return `(CASE ${cases.join(' ')} END)`;
}

/**
 * The route's bits, from the lowest: sender (1), carrier (2), channel (4). NULL for a message whose
 * words are not all listed above (a file changed by hand, a channel of another kind, a value that is not
 * text): its route is then read as it was stored.
 */
export const ROUTE_CODE_SQL = `${codeOf('sender', SENDER_WORDS)} + 2 * ${codeOf('carrier', CARRIER_WORDS)} + 8 * ${codeOf('channel', CHANNEL_WORDS)}`;
/** ROUTE_CODE_SQL's values are below this. */
export const ROUTE_CODES = 128;

/** The routes of ROUTE_CODE_SQL's values: one object for every message of the same route (not to be changed). */
export class RouteCodes {
  private readonly routes: Array<MessageRoute | undefined> = new Array(ROUTE_CODES);

  /** The route of `code`, a value of ROUTE_CODE_SQL (its bits above the route's ignored). */
  of(code: number): MessageRoute {
    const bits = code & (ROUTE_CODES - 1);
    return (this.routes[bits] ??= routeOfColumns(SENDER_WORDS[bits & 1]!, CARRIER_WORDS[(bits >>> 1) & 3]!, CHANNEL_WORDS[(bits >>> 3) & 15]!));
  }
}
