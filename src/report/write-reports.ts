import { appendFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CiReport } from './ci-report.js';
import type { ReportTarget } from './report-targets.js';
import { renderJunit } from './junit.js';
import { renderReportMarkdown } from './markdown.js';
import { renderReportHtml } from './html.js';
import { workflowCommands } from './github.js';
import { LINE_PREFIX } from '../core/program-name.js';
import { makeFolders } from '../core/make-folders.js';

/** Where reports go besides their files: the process's streams and environment, or a test's. */
export interface ReportIo {
  env: NodeJS.ProcessEnv;
  /** Where `-` and GitHub's workflow commands go (stdout, or stderr where stdout is a protocol's). */
  out: (text: string) => void;
  /** Where a notice goes (stderr). */
  notice: (line: string) => void;
}

/** The report as each format's text. */
export function renderReport(report: CiReport, format: Exclude<ReportTarget['format'], 'github'>): string {
  switch (format) {
    case 'junit':
      return renderJunit(report);
    case 'markdown':
      return renderReportMarkdown(report);
    case 'json':
      return JSON.stringify(report, null, 2) + '\n';
    case 'html':
      return renderReportHtml(report);
  }
}

/**
 * Writes each report where its target says. A file is replaced whole (written under a hidden name
 * beside it, then renamed), as a CI job makes it afresh each run, and its folder is made if missing. `github`: in GitHub Actions
 * (`GITHUB_ACTIONS=true`), or when given a file, the workflow commands go to that file (`-` or none:
 * `io.out`), and the Markdown summary is appended to `$GITHUB_STEP_SUMMARY` when that is set.
 * Outside GitHub Actions and without a file, it writes nothing, and says so.
 */
export function writeReports(report: CiReport, targets: readonly ReportTarget[], io: ReportIo): void {
  for (const target of targets) {
    if (target.format !== 'github') {
      put(target.file!, renderReport(report, target.format), io);
      continue;
    }
    const inActions = io.env.GITHUB_ACTIONS === 'true';
    if (!inActions && target.file === undefined) {
      io.notice(`${LINE_PREFIX}--report github: not running in GitHub Actions (GITHUB_ACTIONS is not true), so nothing is written; --report github=<file> writes the workflow commands anyway`);
      continue;
    }
    put(target.file ?? '-', workflowCommands(report), io);
    const summary = io.env.GITHUB_STEP_SUMMARY;
    if (summary) appendFileSync(summary, renderReportMarkdown(report) + '\n');
  }
}

function put(file: string, text: string, io: ReportIo): void {
  if (file === '-') return io.out(text);
  const partial = join(dirname(file), `.${basename(file)}.partial-${process.pid}`);
  try {
    makeFolders(dirname(file));
  } catch (error) {
    throw new Error(`--report ${file}: cannot make its folder ${dirname(file)}: ${codeOf(error)}`, { cause: error });
  }
  try {
    writeFileSync(partial, text);
    renameSync(partial, file);
  } catch (error) {
    removeIfThere(partial);
    throw new Error(`--report ${file}: cannot write: ${codeOf(error)}`, { cause: error });
  }
}

/** Removes what a failed write left; a path that cannot even be looked at (under a file) left nothing. */
function removeIfThere(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Nothing was made there.
  }
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
