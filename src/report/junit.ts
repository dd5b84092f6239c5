import type { CiCase, CiProblem, CiReport, CiSuite } from './ci-report.js';
import { xmlAttribute, xmlCdata } from './xml-text.js';

/**
 * The report as JUnit XML, the form every CI system reads (Jenkins, GitLab, GitHub's test
 * reporters, Azure …): `<testsuites>` of one `<testsuite>` per recording, a `<testcase>` per case.
 * A failed case has one `<failure>` (several CI systems read only the first): its type and message
 * are the first problem's, and its text lists every problem with its details. Notes go to the case's
 * `<system-out>`. Valid against the Jenkins xunit plugin's junit-10.xsd (test/fixtures/junit/).
 */
export function renderJunit(report: CiReport): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const t = report.totals;
  out.push(`<testsuites ${attributes({ name: `agent-proxy ${report.command}`, tests: t.cases, failures: t.failed, errors: 0 })}>`);
  for (const suite of report.suites) out.push(...suiteLines(suite));
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}

function suiteLines(suite: CiSuite): string[] {
  const failed = suite.cases.filter((c) => c.failures.length > 0).length;
  const skipped = suite.cases.filter((c) => c.failures.length === 0 && c.skipped !== undefined).length;
  const out = [`  <testsuite ${attributes({ name: suite.name, tests: suite.cases.length, failures: failed, errors: 0, skipped, file: suite.file })}>`];
  const properties = Object.entries(suite.properties);
  if (properties.length > 0) {
    out.push('    <properties>');
    for (const [name, value] of properties) out.push(`      <property ${attributes({ name, value })}/>`);
    out.push('    </properties>');
  }
  for (const c of suite.cases) out.push(...caseLines(c));
  out.push('  </testsuite>');
  return out;
}

function caseLines(c: CiCase): string[] {
  const open = `    <testcase ${attributes({ name: c.name, classname: c.classname })}`;
  const inner: string[] = [];
  if (c.failures.length > 0) {
    const first = c.failures[0]!;
    const message = c.failures.length === 1 ? first.message : `${first.message} (and ${c.failures.length - 1} more)`;
    inner.push(`      <failure ${attributes({ type: first.title, message })}>${xmlCdata(c.failures.map(problemText).join('\n'))}</failure>`);
  } else if (c.skipped !== undefined) {
    inner.push(`      <skipped ${attributes({ message: c.skipped })}/>`);
  }
  if (c.notes.length > 0) inner.push(`      <system-out>${xmlCdata(c.notes.map(problemText).join('\n'))}</system-out>`);
  return inner.length === 0 ? [`${open}/>`] : [`${open}>`, ...inner, '    </testcase>'];
}

function problemText(p: CiProblem): string {
  return [`${p.title}: ${p.message}`, ...p.details.map((d) => `  ${d}`)].join('\n');
}

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => `${name}="${xmlAttribute(String(value))}"`)
    .join(' ');
}
