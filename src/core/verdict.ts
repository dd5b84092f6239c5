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
