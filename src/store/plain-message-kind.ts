import type { Finding } from '../core/finding.js';
import type { Verdict } from '../core/verdict.js';
import { MessageRoutes, ROUTE_SQL, type MessageRoute } from './message-route.js';
import type { SchemaRefNames } from './schema-refs.js';

/**
 * A plain message's status, schema ref id, `json_at`, sender, carrier and channel, read by `export`'s
 * reader as one value of its row (`valid,12,6,server,event`, `valid,,0,client,body`): better-sqlite3
 * puts each value of an array row in one at a time (~450 instructions a value, and a new string for
 * each text, the status's too), and a recording holds a handful of these (a stream's JSON texts start
 * at one of a few places), each looked up once made. NULL when the route is (a carrier with a comma,
 * ROUTE_SQL) or the status holds a comma (a file changed by hand), or for a message with no `json_at`
 * (not plain): then the row is read whole.
 */
export const PLAIN_KIND_SQL = `CASE WHEN instr(status, ',') = 0 THEN status || ',' || ifnull(schema_ref_id, '') || ',' || json_at || ',' || (${ROUTE_SQL}) END`;

/** A plain message's route, verdict (no finding, reason or stored ref text) and `json_at`: shared by the messages of one kind, not to be changed. */
export interface PlainKind {
  readonly route: MessageRoute;
  readonly verdict: Verdict;
  readonly jsonAt: number;
}

/** Kinds read so far, by their text; past this many (a file of many channels) one is made each time instead. */
const KEPT_KINDS = 256;

/** The kinds of an export's plain messages, by PLAIN_KIND_SQL's text. */
export class PlainKinds {
  private readonly kinds = new Map<string, PlainKind>();
  private readonly routes = new MessageRoutes();
  private readonly verdicts = new PlainVerdicts();
  private readonly refs: SchemaRefNames;

  constructor(refs: SchemaRefNames) {
    this.refs = refs;
  }

  of(text: string): PlainKind {
    let kind = this.kinds.get(text);
    if (kind === undefined) {
      const first = text.indexOf(',');
      const second = text.indexOf(',', first + 1);
      const third = text.indexOf(',', second + 1);
      const ref = text.slice(first + 1, second);
      const verdict = this.verdicts.of(text.slice(0, first) as Verdict['status'], ref === '' ? null : Number(ref), this.refs);
      kind = { route: this.routes.of(text.slice(third + 1)), verdict, jsonAt: Number(text.slice(second + 1, third)) };
      if (this.kinds.size < KEPT_KINDS) this.kinds.set(text, kind);
    }
    return kind;
  }
}

/**
 * The verdicts of plain messages (a status and a ref, no finding, reason or cut), one object for each
 * status and ref: export reads a verdict of every message, and most share a few. Frozen: rows share them.
 */
export class PlainVerdicts {
  private readonly byStatus = new Map<Verdict['status'], Map<number | null, Verdict>>();

  of(status: Verdict['status'], schemaRefId: number | null, refs: SchemaRefNames): Verdict {
    let byRef = this.byStatus.get(status);
    if (byRef === undefined) this.byStatus.set(status, (byRef = new Map()));
    let verdict = byRef.get(schemaRefId);
    if (verdict === undefined) {
      const schemaRef = refs.of(null, schemaRefId);
      const findings = Object.freeze([]) as unknown as Finding[];
      verdict = Object.freeze(schemaRef === null ? { status, findings } : { status, schemaRef, findings });
      byRef.set(schemaRefId, verdict);
    }
    return verdict;
  }
}
