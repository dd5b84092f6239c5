import type { Verdict, VerdictStatus } from '../core/verdict.js';

const WITHOUT_REF = ['status', 'findings'];
const WITH_REF = ['status', 'schemaRef', 'findings'];

/** Which of the two shapes verdictFrom makes the verdict has (its keys, in order), if either; without making an array of its keys. */
function shapeOf(verdict: Verdict): readonly string[] | undefined {
  let i = 0;
  let shape: readonly string[] | undefined;
  for (const key in verdict) {
    if (i === 0) {
      if (key !== 'status') return undefined;
    } else if (i === 1) {
      shape = key === 'findings' ? WITHOUT_REF : key === 'schemaRef' ? WITH_REF : undefined;
      if (shape === undefined) return undefined;
    } else if (i >= shape!.length || shape![i] !== key) return undefined;
    i++;
  }
  return shape !== undefined && i === shape.length ? shape : undefined;
}

/**
 * One verdict object for every judged message whose verdict says only its status and schema ref (no
 * finding, no reason), as most messages' do: `validate`'s report keeps every message's verdict, and
 * two objects each (the verdict and its empty findings) were most of what it kept. A verdict is
 * never changed once made (a finding added makes a new one, withFindings), so sharing one is safe.
 * Only the shapes verdictFrom makes are shared (the report writes the keys in their order).
 */
export class SharedVerdicts {
  /** `{ status, findings }` by status. */
  private readonly withoutRef = new Map<VerdictStatus, Verdict>();
  /** `{ status, schemaRef, findings }` by status, then ref. */
  private readonly withRef = new Map<VerdictStatus, Map<string, Verdict>>();

  /** `verdict`, or an equal one handed out before: the same keys, in the same order, with the same values. */
  of(verdict: Verdict): Verdict {
    if (verdict.findings.length !== 0) return verdict;
    const shape = shapeOf(verdict);
    if (shape === WITHOUT_REF) return this.shared(this.withoutRef, verdict.status, verdict);
    if (shape !== WITH_REF || verdict.schemaRef === undefined) return verdict;
    let byRef = this.withRef.get(verdict.status);
    if (byRef === undefined) this.withRef.set(verdict.status, (byRef = new Map()));
    return this.shared(byRef, verdict.schemaRef, verdict);
  }

  private shared<K>(map: Map<K, Verdict>, key: K, verdict: Verdict): Verdict {
    const known = map.get(key);
    if (known !== undefined) return known;
    map.set(key, verdict);
    return verdict;
  }
}
