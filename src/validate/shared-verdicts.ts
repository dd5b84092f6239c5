import type { Verdict, VerdictStatus } from '../core/verdict.js';

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
    const keys = Object.keys(verdict);
    if (keys.length === 2 && keys[0] === 'status' && keys[1] === 'findings') return this.shared(this.withoutRef, verdict.status, verdict);
    if (keys.length !== 3 || keys[0] !== 'status' || keys[1] !== 'schemaRef' || keys[2] !== 'findings' || verdict.schemaRef === undefined) return verdict;
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
