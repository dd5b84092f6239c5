import type { CiCase, CiProblem, CiReport, CiSuite } from './ci-report.js';
import { count } from '../core/plural.js';
import { HTML_VIEW_STYLE } from '../export/html-style.js';
import { element, textIn } from '../export/html-text.js';

/**
 * The report as one self-contained HTML page, for a CI artifact: what `diff`, `findings`, a strict
 * replay or `redrive` found, recording by recording, each case with its failures and their details
 * (a diff's changed values, a finding's place) and its notes. The page of `export --format html`'s
 * kind: inline style, no script, nothing loaded (its Content-Security-Policy allows neither), every
 * recorded text escaped by the same functions.
 */
export function renderReportHtml(report: CiReport): string {
  const t = report.totals;
  const verdict = report.ok ? `✅ ${count(t.cases, 'case')} passed` : `❌ ${t.failed} of ${count(t.cases, 'case')} failed`;
  const heading = `agent-proxy ${report.command}: ${verdict}`;
  const out = [
    '<!DOCTYPE html>',
    `<html lang="en"><head><meta charset="utf-8"/><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'"/>` +
      textIn('title', {}, heading) +
      element('style', {}, HTML_VIEW_STYLE) +
      '</head>',
    '<body>',
    element('header', {}, textIn('h1', {}, heading) + textIn('p', { class: 'meta' }, `${count(t.suites, 'recording')}, ${count(t.cases, 'case')}, ${t.failed} failed, ${t.skipped} skipped, ${count(t.failures, 'failure')}`)),
    ...report.suites.map((suite, i) => suiteHtml(suite, i + 1)),
    textIn('footer', { class: 'dim' }, 'Written by agent-proxy --report html. This page loads nothing and runs no script.'),
    '</body></html>',
  ];
  return out.join('\n') + '\n';
}

function suiteHtml(suite: CiSuite, n: number): string {
  const failed = suite.cases.filter((c) => c.failures.length > 0).length;
  const skipped = suite.cases.filter((c) => c.failures.length === 0 && c.skipped !== undefined).length;
  const parts = [textIn('h2', {}, suite.name), textIn('p', { class: 'meta' }, `${count(suite.cases.length, 'case')}: ${suite.cases.length - failed - skipped} passed, ${failed} failed, ${skipped} skipped`)];
  const properties = Object.entries(suite.properties);
  if (properties.length > 0) parts.push(element('table', { class: 'properties' }, properties.map(([name, value]) => element('tr', {}, textIn('th', {}, name) + textIn('td', { class: 'mono' }, value))).join('')));
  if (suite.cases.length > 0) {
    const head = element('tr', {}, ['case', 'class', 'result'].map((c) => textIn('th', {}, c)).join(''));
    parts.push(element('table', { class: 'cases' }, head + suite.cases.map((c, i) => caseHtml(c, `suite-${n}-case-${i + 1}`)).join('')));
  }
  return element('section', { id: `suite-${n}` }, parts.join(''));
}

/** A case's row: its result, then each failure and note with its details, folded open when it failed. */
function caseHtml(c: CiCase, id: string): string {
  const result = c.failures.length > 0 ? textIn('span', { class: 'invalid' }, `failed: ${c.failures.map((p) => p.title).join(', ')}`) : c.skipped !== undefined ? textIn('span', { class: 'unchecked' }, `skipped: ${c.skipped}`) : textIn('span', { class: 'valid' }, 'passed');
  const problems = [...c.failures.map((p) => problemHtml(p, 'error')), ...c.notes.map((p) => problemHtml(p, 'warning'))];
  const detail = problems.length === 0 ? '' : element('ul', { class: 'findings' }, problems.join(''));
  return element('tr', { id }, textIn('td', { class: 'mono' }, c.name) + textIn('td', {}, c.classname) + element('td', {}, result + detail));
}

function problemHtml(p: CiProblem, severity: 'error' | 'warning'): string {
  const head = textIn('span', { class: severity }, p.title) + textIn('span', {}, `: ${p.message}`);
  return element('li', {}, p.details.length === 0 ? head : element('details', { open: severity === 'error' }, element('summary', {}, head) + textIn('pre', {}, p.details.join('\n'))));
}
