import type { CiCase, CiProblem, CiReport } from './ci-report.js';
import { fencedBlock, markdownText } from './markdown-text.js';
import { count } from '../core/plural.js';

/** Most failure rows listed, and most cases whose details are shown: a PR comment holds 65,536 characters. */
const MAX_ROWS = 100;
const MAX_DETAILED = 20;

/** The report as Markdown, for a pull-request comment or GitHub's job summary. */
export function renderReportMarkdown(report: CiReport): string {
  const t = report.totals;
  const verdict = report.ok ? `✅ ${count(t.cases, 'case')} passed` : `❌ ${t.failed} of ${count(t.cases, 'case')} failed`;
  const out = [`### agent-proxy ${report.command}: ${verdict}`, ''];
  out.push('| recording | cases | passed | failed | skipped |', '|---|---:|---:|---:|---:|');
  for (const suite of report.suites) {
    const failed = suite.cases.filter((c) => c.failures.length > 0).length;
    const skipped = suite.cases.filter((c) => c.failures.length === 0 && c.skipped !== undefined).length;
    out.push(`| ${markdownText(suite.name)} | ${suite.cases.length} | ${suite.cases.length - failed - skipped} | ${failed} | ${skipped} |`);
  }
  out.push('');
  const failed = report.suites.flatMap((s) => s.cases.filter((c) => c.failures.length > 0).map((c) => ({ suite: s.name, c })));
  if (failed.length > 0) {
    out.push('| recording | case | failure | message |', '|---|---|---|---|');
    const rows = failed.flatMap(({ suite, c }) => c.failures.map((p) => row(suite, c, p)));
    out.push(...rows.slice(0, MAX_ROWS));
    if (rows.length > MAX_ROWS) out.push('', `…and ${rows.length - MAX_ROWS} more failures (see the JUnit or JSON report).`);
    out.push('');
    for (const { c } of failed.slice(0, MAX_DETAILED)) out.push(...details(c));
  }
  const noted = report.suites.reduce((n, s) => n + s.cases.reduce((m, c) => m + c.notes.length, 0), 0);
  if (noted > 0) out.push(`${count(noted, 'note')} besides (found, not failing): see the JUnit or JSON report.`, '');
  return out.join('\n').trimEnd() + '\n';
}

function row(suite: string, c: CiCase, p: CiProblem): string {
  return `| ${markdownText(suite)} | ${markdownText(c.name)} | ${markdownText(p.title)} | ${markdownText(p.message)} |`;
}

function details(c: CiCase): string[] {
  const text = c.failures.flatMap((p) => [`${p.title}: ${p.message}`, ...p.details.map((d) => `  ${d}`)]).join('\n');
  return [`<details><summary>${markdownText(c.name)}</summary>`, '', ...fencedBlock(text), '', '</details>', ''];
}
