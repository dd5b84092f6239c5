import type { Verdict } from '../core/verdict.js';

/** Distinct verdicts kept at most (a status and a schema ref each: far fewer in practice). */
const MAX_SHAPES = 1024;

/**
 * One verdict object for every judged message whose verdict says only its status and schema ref (no
 * finding, no reason), as most messages' do: `validate`'s report keeps every message's verdict, and
 * two objects each (the verdict and its empty findings) were most of what it kept. A verdict is
 * never changed once made (a finding added makes a new one, withFindings), so sharing one is safe.
 */
export class SharedVerdicts {
  private readonly byShape = new Map<string, Verdict>();

  /** `verdict`, or the equal one handed out before: the same keys in the same order (the report writes them so) and values. */
  of(verdict: Verdict): Verdict {
    if (verdict.findings.length !== 0 || verdict.reason !== undefined) return verdict;
    let shape = '';
    for (const key in verdict) shape += key === 'status' ? `${verdict.status}\n` : key === 'schemaRef' ? `ref ${verdict.schemaRef}\n` : `${key}\n`;
    const known = this.byShape.get(shape);
    if (known !== undefined) return known;
    if (this.byShape.size < MAX_SHAPES) this.byShape.set(shape, verdict);
    return verdict;
  }
}
