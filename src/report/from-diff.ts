import type { DiffReport, ExchangeDiff, MessageDiff, ValueChange } from '../diff/diff-report.js';
import { messageTitle, showPair } from '../diff/render-text.js';
import { count } from '../core/plural.js';
import { caseClass, caseName, type CaseExchange } from './case-name.js';
import { cappedDetails, ciReport, type CiCase, type CiProblem, type CiReport } from './ci-report.js';

/**
 * What fails a diff: any difference (`diff`'s exit code), or only regressions (messages valid in the
 * baseline and invalid now; `redrive --fail-on regression`), the other differences being noted.
 */
export type DiffFailOn = 'difference' | 'regression';

export interface DiffReportInput {
  report: DiffReport;
  /** Every exchange of the compared recording (b), in order: each is a case, passed when it is equal. */
  exchanges: CaseExchange[];
  failOn?: DiffFailOn;
  command?: 'diff' | 'redrive';
}

/** The CI report of a diff: one suite, the compared recording; a case per exchange of it, and one per exchange only the baseline has. */
export function diffCiReport(input: DiffReportInput): CiReport {
  const { report } = input;
  const failOn = input.failOn ?? 'difference';
  const byB = new Map<number, ExchangeDiff>();
  const removed: ExchangeDiff[] = [];
  for (const e of report.exchanges) {
    if (e.b) byB.set(e.b.id, e);
    else removed.push(e);
  }
  const cases: CiCase[] = input.exchanges.map((exchange) => {
    const diff = byB.get(exchange.id);
    return diff ? diffCase(diff, exchange, caseName(exchange), failOn) : { name: caseName(exchange), classname: caseClass(exchange), exchange: exchange.id, failures: [], notes: [] };
  });
  for (const e of removed) {
    const a = e.a!;
    const c = diffCase(e, a, caseName(a, 'the baseline'), failOn);
    delete c.exchange;
    cases.push(c);
  }
  const properties: Record<string, string> = { baseline: report.a.file, semantic: String(report.options.semantic), failOn };
  if (report.options.ignore.length > 0) properties.ignore = report.options.ignore.join(' ');
  return ciReport(input.command ?? 'diff', [{ name: report.b.file, file: report.b.file, properties, cases }]);
}

function diffCase(e: ExchangeDiff, exchange: CaseExchange, name: string, failOn: DiffFailOn): CiCase {
  const difference = differenceOf(e);
  const regressions = e.messages.filter((m) => m.verdict?.change === 'regression').map(regressionOf);
  const failures = failOn === 'regression' ? regressions : [difference, ...regressions];
  const notes = failOn === 'regression' ? [difference] : [];
  return { name, classname: caseClass(exchange), exchange: exchange.id, failures, notes };
}

function differenceOf(e: ExchangeDiff): CiProblem {
  if (e.change === 'added') return { kind: 'difference', title: 'added', message: 'this exchange is not in the baseline', details: [] };
  if (e.change === 'removed') return { kind: 'difference', title: 'removed', message: 'this exchange of the baseline is not in the recording compared with it', details: [] };
  const changed = e.messages.filter((m) => m.change === 'changed').length;
  const added = e.messages.filter((m) => m.change === 'added').length;
  const removed = e.messages.filter((m) => m.change === 'removed').length;
  const parts = [...(e.fields.length > 0 ? [count(e.fields.length, 'exchange field')] : []), `${count(changed, 'message')} changed`, `${added} added`, `${removed} removed`];
  const details: string[] = [];
  for (const f of e.fields) details.push(`${f.pointer}: ${change(f)}`);
  for (const m of e.messages) details.push(...messageLines(m));
  return { kind: 'difference', title: 'changed', message: `differs from the baseline: ${parts.join(', ')}`, details: cappedDetails(details) };
}

function messageLines(m: MessageDiff): string[] {
  if (m.change === 'added') return [`+ ${messageTitle(m.b!)} (not in the baseline)`];
  if (m.change === 'removed') return [`- ${messageTitle(m.a!)} (only in the baseline)`];
  const head = `~ ${messageTitle(m.a!)}${m.a!.seq !== m.b!.seq ? ` (here ${m.b!.seq})` : ''}`;
  return [head, ...m.differences.map((d) => `    ${d.name ?? (d.pointer || '/')}: ${change(d)}`)];
}

function regressionOf(m: MessageDiff): CiProblem {
  const v = m.verdict!;
  const ref = m.b ?? m.a!;
  const first = v.findings[0];
  return {
    kind: 'regression',
    title: 'regression',
    message: `${messageTitle(ref)}: ${v.a ?? 'absent'} in the baseline, ${v.b ?? 'absent'} now${first ? `: ${first.rule} at ${first.pointer || '/'}: ${first.message}` : ''}`,
    details: cappedDetails(v.findings.map((f) => `${f.severity} ${f.rule} at ${f.pointer || '/'}: ${f.message}`)),
  };
}

function change(d: ValueChange): string {
  const [a, b] = showPair(d.a, d.b);
  return `${'a' in d ? a : '(absent)'} → ${'b' in d ? b : '(absent)'}`;
}
