import type { FieldSpecs } from '../core/field-specs.js';
import { normalizeJson } from '../match/normalize.js';
import { IdCanonicalizer } from './id-canonicalizer.js';
import type { IdLogEntry } from './id-roles.js';

/**
 * Normalizes a message's value only when a report needs it (a changed, added or removed message),
 * not for every message of an exchange that differs: most of them align as equal, and their
 * comparing text (IdCanonicalizer.canonicalText) costs one walk where the value costs three.
 *
 * The value is made by a canonicalizer of its own put in the state the side's had just before that
 * message (its id log up to the message's checkpoint), so it gets exactly the labels it would have
 * got in order. Asked in message order (as a diff's report asks), each restore only adds the ids in
 * between.
 */
export class LaterValues {
  private readonly ids = new IdCanonicalizer();

  constructor(
    private readonly source: IdCanonicalizer,
    roles: ReadonlyMap<string, string>,
  ) {
    this.ids.useRoles(roles);
  }

  /** The side's id log now, to hand back to `value` (IdCanonicalizer.log). */
  log(): readonly IdLogEntry[] {
    return this.source.log();
  }

  /** The JSON text `json`'s value normalized as it was at `checkpoint` of `log` (IdCanonicalizer.size before it). */
  value(json: string, checkpoint: number, drop: FieldSpecs, log: readonly IdLogEntry[]): unknown {
    this.ids.restore(log, checkpoint);
    return normalizeJson(this.ids.canonicalize(JSON.parse(json)), drop);
  }
}
