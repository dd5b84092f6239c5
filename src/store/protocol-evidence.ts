import type { ExchangeRow } from './store-types.js';

/**
 * The evidence that chose an exchange's protocol, as `show` and the HTML view print it: `-` when no
 * protocol was chosen, `(not recorded)` from a recording before format 3, which does not say.
 */
export function protocolEvidenceText(e: Pick<ExchangeRow, 'protocol' | 'protocolEvidence'>): string {
  if (e.protocol === null) return '-';
  return e.protocolEvidence ?? '(not recorded)';
}
