import type { DiffReport, ExchangeDiff, ValueChange } from './diff-report.js';
import { exchangeTitle, messageTitle, showPair } from './render-text.js';

/** Most exchanges listed in full; a PR comment has a size limit. */
const MAX_EXCHANGES = 50;

/** Markdown for a pull-request comment or $GITHUB_STEP_SUMMARY. */
export function renderMarkdown(report: DiffReport): string {
  const s = report.summary;
  const out: string[] = [];
  const title = report.equal ? '✅ recordings are equal after normalization' : s.regressions > 0 ? `❌ recordings differ: ${s.regressions} regression${s.regressions === 1 ? '' : 's'}` : '⚠️ recordings differ';
  out.push(`### agent-proxy diff: ${title}`, '');
  out.push(`\`${report.a.file}\` → \`${report.b.file}\`${report.options.semantic ? ' (semantic)' : ''}`, '');
  out.push('| | equal | changed | added | removed |', '|---|---:|---:|---:|---:|');
  out.push(`| exchanges | ${s.exchanges.equal} | ${s.exchanges.changed} | ${s.exchanges.added} | ${s.exchanges.removed} |`);
  out.push(`| messages | | ${s.messages.changed} | ${s.messages.added} | ${s.messages.removed} |`, '');
  if (s.regressions > 0 || s.fixes > 0) out.push(`**Regressions:** ${s.regressions} · **Fixed:** ${s.fixes}`, '');
  for (const e of report.exchanges.slice(0, MAX_EXCHANGES)) out.push(...exchangeSection(e), '');
  if (report.exchanges.length > MAX_EXCHANGES) out.push(`…and ${report.exchanges.length - MAX_EXCHANGES} more exchanges (see \`--format json\`).`, '');
  return out.join('\n').trimEnd() + '\n';
}

function exchangeSection(e: ExchangeDiff): string[] {
  const ref = e.a ?? e.b!;
  const sign = e.change === 'added' ? '➕ only in b' : e.change === 'removed' ? '➖ only in a' : '✏️ changed';
  const regressions = e.messages.filter((m) => m.verdict?.change === 'regression').length;
  const out = [`<details${regressions > 0 ? ' open' : ''}><summary><code>${escape(exchangeTitle(ref))}</code> ${sign}${regressions > 0 ? ` — ❌ ${regressions} regression${regressions === 1 ? '' : 's'}` : ''}</summary>`, ''];
  const rows: string[] = [];
  for (const f of e.fields) rows.push(row('exchange', f));
  for (const m of e.messages) {
    const where = m.change === 'added' ? `➕ ${messageTitle(m.b!)}` : m.change === 'removed' ? `➖ ${messageTitle(m.a!)}` : messageTitle(m.a!);
    if (m.differences.length === 0 && !m.verdict) rows.push(`| ${cell(where)} | | | |`);
    for (const d of m.differences) rows.push(row(where, d));
    if (m.verdict) {
      const v = m.verdict;
      const label = v.change === 'regression' ? '❌ **regression**' : v.change === 'fixed' ? '✅ fixed' : 'verdict';
      const detail = v.findings.map((f) => `${f.rule} at ${f.pointer || '/'}: ${f.message}`).join('; ');
      rows.push(`| ${cell(where)} | ${label} | ${v.a ?? '-'} | ${v.b ?? '-'}${detail ? ` — ${cell(detail)}` : ''} |`);
    }
  }
  if (rows.length > 0) out.push('| message | pointer | a | b |', '|---|---|---|---|', ...rows.slice(0, 100));
  if (rows.length > 100) out.push('', `…${rows.length - 100} more rows`);
  out.push('', '</details>');
  return out;
}

function row(where: string, d: ValueChange): string {
  const [a, b] = showPair(d.a, d.b);
  const place = d.name === undefined ? `\`${cell(d.pointer || '/')}\`` : cell(d.name);
  return `| ${cell(where)} | ${place} | ${'a' in d ? `\`${cell(a)}\`` : '*absent*'} | ${'b' in d ? `\`${cell(b)}\`` : '*absent*'} |`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
