import type { Severity } from '../core/finding.js';
import type { FindingListRow } from '../store/recording-reader.js';
import { findingPlace } from '../protocols/finding-place.js';
import { caseClass, caseName, type CaseExchange } from './case-name.js';
import { ciReport, type CiCase, type CiProblem, type CiReport } from './ci-report.js';

export interface FindingsReportInput {
  /** The recording, as given. */
  file: string;
  /** Every exchange of it, in order: each is a case. */
  exchanges: CaseExchange[];
  /** The findings `findings` listed (its filters applied). */
  findings: Iterable<FindingListRow>;
  /** A finding of this severity or worse fails its case (`--fail-on`); the others are notes. Absent: none fails. */
  failOn?: Severity;
  /** The filters given, said in the suite's properties. */
  properties?: Record<string, string>;
}

/** The CI report of `findings`: one suite, the recording; a case per exchange; its findings at or above `--fail-on` fail it. */
export function findingsCiReport(input: FindingsReportInput): CiReport {
  const cases = new Map<number, CiCase>();
  for (const e of input.exchanges) cases.set(e.id, { name: caseName(e), classname: caseClass(e), exchange: e.id, failures: [], notes: [] });
  for (const row of input.findings) {
    let c = cases.get(row.exchange);
    if (!c) {
      // Not in the list given (it cannot happen with one reader): the finding still gets its case.
      const e: CaseExchange = { id: row.exchange, transport: row.transport as CaseExchange['transport'], protocol: row.protocol, method: row.method, path: row.path };
      c = { name: caseName(e), classname: caseClass(e), exchange: e.id, failures: [], notes: [] };
      cases.set(row.exchange, c);
    }
    (fails(row.severity, input.failOn) ? c.failures : c.notes).push(problemOf(row));
  }
  const properties = { ...(input.failOn ? { failOn: input.failOn } : {}), ...input.properties };
  return ciReport('findings', [{ name: input.file, file: input.file, properties, cases: [...cases.values()] }]);
}

function fails(severity: Severity, failOn: Severity | undefined): boolean {
  return failOn === 'warning' || (failOn === 'error' && severity === 'error');
}

function problemOf(row: FindingListRow): CiProblem {
  const where = row.seq === 0 ? 'the exchange' : `${row.seq} ${row.sender === 'client' ? '→' : '←'} ${row.label} ${findingPlace(row)}`;
  return { kind: 'finding', title: `${row.severity} ${row.rule}`, message: row.message, details: [where] };
}
