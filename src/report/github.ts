import type { CiProblem, CiReport } from './ci-report.js';

/** Most annotations of each kind written; GitHub shows only the first few of a step anyway. */
const MAX_ANNOTATIONS = 100;

/**
 * The report as GitHub Actions workflow commands: `::error title=…,file=…::…` for each failure and
 * `::warning …` for each note, pointing at the recording; GitHub turns them into annotations.
 */
export function workflowCommands(report: CiReport): string {
  const out: string[] = [];
  let errors = 0;
  let warnings = 0;
  let left = 0;
  for (const suite of report.suites) {
    for (const c of suite.cases) {
      for (const p of c.failures) {
        if (errors++ < MAX_ANNOTATIONS) out.push(command('error', `${c.name}: ${p.title}`, suite.file, p));
        else left++;
      }
      for (const p of c.notes) {
        if (warnings++ < MAX_ANNOTATIONS) out.push(command('warning', `${c.name}: ${p.title}`, suite.file, p));
        else left++;
      }
    }
  }
  if (left > 0) out.push(`::notice title=agent-proxy ${report.command}::${escapeData(`${left} more not annotated: see the JUnit or JSON report`)}`);
  return out.length === 0 ? '' : out.join('\n') + '\n';
}

function command(kind: 'error' | 'warning', title: string, file: string, p: CiProblem): string {
  const message = [p.message, ...p.details].join('\n');
  return `::${kind} title=${escapeProperty(title)},file=${escapeProperty(file)}::${escapeData(message)}`;
}

/** A command's message, as GitHub's toolkit escapes it: `%`, CR and LF. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A command's property value: as its message, and `:` and `,`, which end a property. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
