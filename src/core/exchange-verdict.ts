/** How many of an exchange's messages got each verdict (valid is what is left). */
export interface VerdictCounts {
  messages: number;
  invalid: number;
  unchecked: number;
}

/** What an exchange's messages add up to: the word that colours it, and the text every command prints. */
export interface ExchangeVerdict {
  kind: 'valid' | 'invalid' | 'unchecked' | 'empty';
  text: string;
}

/**
 * The one summary of an exchange's verdicts, shared by the live line, `show` and `show --exchange`,
 * so they never disagree. An exchange is `valid` only when something was checked and nothing failed:
 * `3 invalid`, `1 invalid, 2 unchecked`, `unchecked` (nothing could be judged), `valid, 2 unchecked`,
 * `valid`, or `no messages`.
 */
export function exchangeVerdict(c: VerdictCounts): ExchangeVerdict {
  if (c.messages === 0) return { kind: 'empty', text: 'no messages' };
  if (c.invalid > 0) return { kind: 'invalid', text: c.unchecked > 0 ? `${c.invalid} invalid, ${c.unchecked} unchecked` : `${c.invalid} invalid` };
  if (c.unchecked >= c.messages) return { kind: 'unchecked', text: 'unchecked' };
  return { kind: 'valid', text: c.unchecked > 0 ? `valid, ${c.unchecked} unchecked` : 'valid' };
}
