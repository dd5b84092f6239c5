import type { Finding } from '../../core/finding.js';
import type { SchemaCheck } from '../../schema/schema-registry.js';
import { validateMember } from './scoped-validation.js';

/**
 * The schema checks one message went through: their findings (merged, since the envelope and a
 * per-method `$def` can report the same problem), the most specific reference that judged it,
 * and why any check could not run.
 */
export class SchemaPass {
  readonly findings: Finding[] = [];
  readonly reasons: string[] = [];
  /** The last (most specific) schema reference that actually ran. */
  ref?: string;
  private readonly seen = new Set<string>();

  /** Runs `check` on `value`, found at pointer `at` of the message ('' for the whole message). */
  run(check: SchemaCheck, value: unknown, at = '', note = ''): boolean {
    if (!check.ok) {
      if (!this.reasons.includes(check.reason)) this.reasons.push(check.reason);
      return false;
    }
    this.ref = check.ref;
    const found = at === '' && note === '' ? check.validate(value) : validateMember(check, value, at, note);
    for (const f of found) {
      const key = `${f.pointer}\u0000${f.message}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.findings.push(f);
    }
    return true;
  }

  get ran(): boolean {
    return this.ref !== undefined;
  }
}
