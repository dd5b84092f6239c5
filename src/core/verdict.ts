import type { Finding } from './finding.js';

/**
 * valid: checked, no error findings. invalid: at least one error finding.
 * unchecked: nothing could judge it (unknown protocol, schema not loaded); never a guessed `valid`.
 */
export type VerdictStatus = 'valid' | 'invalid' | 'unchecked';

export interface Verdict {
  status: VerdictStatus;
  /** The schema reference the message was validated against, e.g. `https://ag-ui.com/spec/draft/schema.json#/$defs/RunStartedEvent`. */
  schemaRef?: string;
  findings: Finding[];
  /** Why the message is unchecked; names the missing `$id` and the flag that supplies it. */
  reason?: string;
}

/** Derives the status from the findings: any error makes the message invalid. */
export function verdictFrom(findings: Finding[], schemaRef?: string): Verdict {
  const status = findings.some((f) => f.severity === 'error') ? 'invalid' : 'valid';
  return schemaRef === undefined ? { status, findings } : { status, schemaRef, findings };
}

export function unchecked(reason: string, findings: Finding[] = [], schemaRef?: string): Verdict {
  // An unchecked message can still carry behavioural errors (e.g. a JSON-RPC id mismatch);
  // those make it invalid, because the rule was checked even though the schema was not.
  // Each verdict written out (verdictFrom's keys, then `reason`): a spread that adds a key is V8's slow path on Node 20.
  const status = findings.some((f) => f.severity === 'error') ? 'invalid' : 'unchecked';
  return schemaRef === undefined ? { status, findings, reason } : { status, schemaRef, findings, reason };
}

/** Adds findings to a verdict (for stream-level findings that attach to the last message) and re-derives the status. */
export function withFindings(verdict: Verdict, extra: Finding[]): Verdict {
  if (extra.length === 0) return verdict;
  const findings = [...verdict.findings, ...extra];
  if (verdict.status === 'unchecked' && !extra.some((f) => f.severity === 'error')) return { ...verdict, findings };
  const status = findings.some((f) => f.severity === 'error') ? 'invalid' : 'valid';
  return { ...verdict, status, findings };
}

/** The verdict without the findings of these rules, its status derived again. */
export function withoutRules(verdict: Verdict, rules: ReadonlySet<string>): Verdict {
  if (!verdict.findings.some((f) => rules.has(f.rule))) return verdict;
  const findings = verdict.findings.filter((f) => !rules.has(f.rule));
  // No error left: unchecked when something said why it could not be checked, else valid.
  const status = verdict.status !== 'invalid' || findings.some((f) => f.severity === 'error') ? verdict.status : verdict.reason !== undefined ? 'unchecked' : 'valid';
  // Keys in verdictFrom's and unchecked()'s order, so the JSON written is the same as for a verdict made there.
  const { schemaRef, reason } = verdict;
  const kept: Verdict = schemaRef === undefined ? { status, findings } : { status, schemaRef, findings };
  if (reason !== undefined) kept.reason = reason;
  return kept;
}
