import { UsageError } from '../core/errors.js';

export const REPORT_FORMATS = ['junit', 'github', 'markdown', 'json', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** One `--report <format>=<file>`: `file` is `-` for stdout; absent only for `github` (GitHub Actions' own places). */
export interface ReportTarget {
  format: ReportFormat;
  file?: string;
}

/**
 * The `--report` values, checked before the command does anything: a known format, a file for every
 * format but `github`, no file named twice and stdout at most once. A wrong one is a usage error.
 * `stdoutTaken`: stdout belongs to something else (`replay --stdio`'s protocol), so `-` is refused.
 */
export function parseReportTargets(values: readonly string[], stdoutTaken?: string): ReportTarget[] {
  const targets = values.map(parseReportTarget);
  const seen = new Set<string>();
  for (const t of targets) {
    if (t.file === undefined) continue;
    if (t.file === '-' && stdoutTaken !== undefined) throw new UsageError(`--report ${t.format}=-: stdout is ${stdoutTaken}; write the report to a file`);
    if (seen.has(t.file)) throw new UsageError(`--report: ${t.file === '-' ? 'stdout (-)' : t.file} is named by two reports; give each its own file`);
    seen.add(t.file);
  }
  return targets;
}

function parseReportTarget(value: string): ReportTarget {
  const at = value.indexOf('=');
  const format = at < 0 ? value : value.slice(0, at);
  if (!(REPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--report '${value}': unknown format '${format}' (expected ${REPORT_FORMATS.join(', ')}, as <format>=<file>, e.g. junit=report.xml)`);
  }
  if (at < 0) {
    if (format === 'github') return { format: 'github' };
    throw new UsageError(`--report '${value}' names no file: expected ${format}=<file> (or ${format}=- for stdout)`);
  }
  const file = value.slice(at + 1);
  if (file === '') throw new UsageError(`--report '${value}' names no file: expected ${format}=<file> (or ${format}=- for stdout)`);
  return { format: format as ReportFormat, file };
}
