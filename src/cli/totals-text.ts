import { count } from '../core/plural.js';
import type { StoreTotals } from '../store/store-types.js';

/** A recording's running totals as every command prints them: `2 exchanges, 1 message, 0 invalid, 1 finding`. */
export function totalsText(t: Pick<StoreTotals, 'exchanges' | 'messages' | 'invalid' | 'findings'>, separator = ', '): string {
  return [count(t.exchanges, 'exchange'), count(t.messages, 'message'), `${t.invalid} invalid`, count(t.findings, 'finding')].join(separator);
}
