/**
 * A message's sender, carrier and channel read as one value of its row (`server,frame,text`,
 * `client,body`): better-sqlite3 puts each value of an array row in one at a time (~450 instructions
 * a value, and a new string for each text), and these three take a handful of values in a recording,
 * so `export`'s and `validate`'s readers read one and look it up. The sender is one of two words and the carrier
 * one of the four a recorder writes (ROUTE_SQL is NULL for any other, in a file changed by hand: then the
 * three are read apart, routeOfColumns), so the text splits at its first two commas; the channel may hold any.
 */
import type { MessageRow } from './store-types.js';

/**
 * The carriers a recorder writes (core/message.ts's Carrier), none with a comma. Told by comparisons: a
 * function per row (`instr`) costs SQLite ~1,000 instructions a call.
 */
const KNOWN_CARRIER_SQL = `(carrier = 'event' OR carrier = 'frame' OR carrier = 'body' OR carrier = 'line')`;

export const ROUTE_SQL = `CASE WHEN ${KNOWN_CARRIER_SQL} THEN sender || ',' || carrier || ifnull(',' || channel, '') END`;

export interface MessageRoute {
  sender: MessageRow['sender'];
  carrier: MessageRow['carrier'];
  channel: string | null;
}

/** Routes read so far, by their text; past this many (a file of many channels) one is made each time instead. */
const KEPT_ROUTES = 256;

export class MessageRoutes {
  private readonly routes = new Map<string, MessageRoute>();

  /** The route of ROUTE_SQL's text: one object for every message of the same route (not to be changed). */
  of(text: string): MessageRoute {
    let route = this.routes.get(text);
    if (route === undefined) {
      const first = text.indexOf(',');
      const second = text.indexOf(',', first + 1);
      route = routeOfColumns(text.slice(0, first), second < 0 ? text.slice(first + 1) : text.slice(first + 1, second), second < 0 ? null : text.slice(second + 1));
      if (this.routes.size < KEPT_ROUTES) this.routes.set(text, route);
    }
    return route;
  }
}

export function routeOfColumns(sender: string, carrier: string, channel: string | null): MessageRoute {
  return { sender: sender as MessageRow['sender'], carrier: carrier as MessageRow['carrier'], channel };
}
