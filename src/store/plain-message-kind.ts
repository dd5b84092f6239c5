import type { Finding } from '../core/finding.js';
import type { Verdict } from '../core/verdict.js';
import type { MessageRoute } from './message-route.js';
import { ROUTE_CODE_SQL, RouteCodes, codeOf } from './route-code.js';
import type { SchemaRefNames } from './schema-refs.js';

const STATUS_WORDS: readonly Verdict['status'][] = ['valid', 'invalid', 'unchecked'];

/**
 * A plain message's sender, carrier, channel, status, schema ref id and `json_at`, read by `export`'s
 * reader as one integer of its row: better-sqlite3 puts each value of an array row in one at a time
 * (~450 instructions a value, and a new string for each text, a status's too), and SQLite joining
 * them into a text cost as much again (~0.5 µs a row), while a recording holds a handful of these (a
 * stream's JSON texts start at one of a few places), each looked up by its number once made. Bits,
 * from the lowest: sender (1), carrier (2), channel (4), status (2), `json_at` (12), schema ref id + 1
 * (10): below 2^31, an integer V8 holds without a heap number. NULL for a message outside what these
 * bits hold (a word not listed below, a text starting past 4,095, a ref id past 1,022): its row is
 * then read whole, as any message that is not plain.
 */
export const PLAIN_KIND_SQL = `CASE WHEN json_at >= 0 AND json_at < 4096 AND ifnull(schema_ref_id, 0) < 1023 THEN
  ${ROUTE_CODE_SQL}
  + 128 * ${codeOf('status', STATUS_WORDS)} + 512 * json_at + 2097152 * ifnull(schema_ref_id + 1, 0) END`;

/** A plain message's route, verdict (no finding, reason or stored ref text) and `json_at`: shared by the messages of one kind, not to be changed. */
export interface PlainKind {
  readonly route: MessageRoute;
  readonly verdict: Verdict;
  readonly jsonAt: number;
}

/** Kinds read so far, by their number; past this many one is made each time instead. */
const KEPT_KINDS = 256;

/** The kinds of an export's plain messages, by PLAIN_KIND_SQL's number. */
export class PlainKinds {
  private readonly kinds = new Map<number, PlainKind>();
  private readonly verdicts = new PlainVerdicts();
  private readonly routes = new RouteCodes();
  private readonly refs: SchemaRefNames;

  constructor(refs: SchemaRefNames) {
    this.refs = refs;
  }

  of(code: number): PlainKind {
    let kind = this.kinds.get(code);
    if (kind === undefined) {
      const refPlusOne = code >>> 21;
      const verdict = this.verdicts.of(STATUS_WORDS[(code >>> 7) & 3]!, refPlusOne === 0 ? null : refPlusOne - 1, this.refs);
      kind = { route: this.routes.of(code), verdict, jsonAt: (code >>> 9) & 4095 };
      if (this.kinds.size < KEPT_KINDS) this.kinds.set(code, kind);
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
