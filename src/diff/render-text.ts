import type { Style } from '../core/style.js';
import type { DiffReport, ExchangeDiff, ExchangeRef, MessageDiff, MessageRef, ValueChange } from './diff-report.js';
import { count } from '../core/plural.js';

const MAX_VALUE = 100;

/** The human diff: grouped by exchange, changed messages with their pointers, one equal message of context each side. */
export function renderText(report: DiffReport, style: Style): string {
  const out: string[] = [style.dim(`--- a ${report.a.file}`), style.dim(`+++ b ${report.b.file}`)];
  // Line by line: an exchange can have hundreds of thousands of lines, too many to spread into push().
  for (const e of report.exchanges) for (const line of exchangeLines(e, style)) out.push(line);
  out.push(summaryLine(report, style));
  return out.join('\n') + '\n';
}

export function summaryLine(report: DiffReport, style: Style): string {
  const s = report.summary;
  const how = report.options.semantic ? ' (semantic)' : '';
  if (report.equal) return style.green(`equal after normalization${how}: ${count(s.exchanges.equal, 'exchange')}, ${report.a.messages}/${report.b.messages} messages`);
  const parts = [`${s.exchanges.changed} changed`, `${s.exchanges.added} added`, `${s.exchanges.removed} removed`, `${s.exchanges.equal} equal`];
  const msgs = `messages: ${s.messages.changed} changed, ${s.messages.added} added, ${s.messages.removed} removed`;
  const regress = s.regressions > 0 ? style.red(`${s.regressions} regression${s.regressions === 1 ? '' : 's'}`) : '0 regressions';
  return `${style.bold('differ')}${how}: exchanges ${parts.join(', ')}; ${msgs}; ${regress}${s.fixes > 0 ? `, ${style.green(`${s.fixes} fixed`)}` : ''}`;
}

export function exchangeTitle(ref: ExchangeRef): string {
  const what = `${ref.method ?? ''} ${ref.path ?? ''}`.trim() || ref.transport;
  return `#${ref.id} ${what} ${ref.status ?? '-'} ${ref.transport}${ref.protocol ? `/${ref.protocol}` : ''}`;
}

export function messageTitle(ref: MessageRef): string {
  return `${ref.seq} ${ref.sender === 'client' ? '→' : '←'} ${ref.label}`;
}

function exchangeLines(e: ExchangeDiff, style: Style): string[] {
  const lines: string[] = [];
  if (e.change === 'added') lines.push(style.green(`+ exchange ${exchangeTitle(e.b!)} (only in b)`));
  else if (e.change === 'removed') lines.push(style.red(`- exchange ${exchangeTitle(e.a!)} (only in a)`));
  else lines.push(style.yellow(`~ exchange ${exchangeTitle(e.a!)}`) + (e.a!.id !== e.b!.id ? style.dim(` (b #${e.b!.id})`) : ''));
  for (const f of e.fields) lines.push(`    ${f.pointer}: ${change(f, style)}`);
  const onlyVerdicts = e.change !== 'changed';
  // Changes with no equal message between them share their context: it is shown once, before the
  // first of them and after the last, so context lines stay in order.
  const shown = new Set<MessageRef>();
  const context = (ref: MessageRef | null) => {
    if (ref === null || shown.has(ref)) return;
    shown.add(ref);
    lines.push(style.dim(`      ${messageTitle(ref)}`));
  };
  e.messages.forEach((m, i) => {
    if (onlyVerdicts && !m.verdict) return;
    if (!onlyVerdicts) context(m.before);
    for (const line of messageLines(m, style)) lines.push(line);
    const next = e.messages[i + 1];
    if (!onlyVerdicts && (next === undefined || next.after !== m.after || next.before !== m.before)) context(m.after);
  });
  if (onlyVerdicts && e.messages.length > 0) lines.push(style.dim(`    ${e.messages.length} message${e.messages.length === 1 ? '' : 's'}`));
  return lines;
}

function messageLines(m: MessageDiff, style: Style): string[] {
  const lines: string[] = [];
  if (m.change === 'added') lines.push(style.green(`    + ${messageTitle(m.b!)} (only in b)`));
  else if (m.change === 'removed') lines.push(style.red(`    - ${messageTitle(m.a!)} (only in a)`));
  else lines.push(style.yellow(`    ~ ${messageTitle(m.a!)}`) + (m.a!.seq !== m.b!.seq ? style.dim(` (b ${m.b!.seq})`) : ''));
  // A message only one side has lists what it says; a changed one, what changed.
  for (const d of m.differences) lines.push(`        ${d.name ?? (d.pointer || '/')}: ${m.change === 'changed' ? change(d, style) : show(m.change === 'added' ? d.b : d.a)}`);
  if (m.verdict) {
    const v = m.verdict;
    const head = v.change === 'regression' ? style.red('REGRESSION') : v.change === 'fixed' ? style.green('fixed') : 'verdict';
    lines.push(`        ${head}: ${v.a ?? '-'} → ${v.b ?? '-'}`);
    for (const f of v.findings) lines.push(`          ${f.rule} at ${f.pointer || '/'}: ${f.message}`);
  }
  return lines;
}

function change(d: ValueChange, style: Style): string {
  const [sa, sb] = showPair(d.a, d.b);
  const a = 'a' in d ? sa : '(absent)';
  const b = 'b' in d ? sb : '(absent)';
  return `${style.red(a)} → ${style.green(b)}`;
}

export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

/**
 * Both sides of a change, shortened the same way: two long texts that share a beginning are shown
 * from a little before the first character that differs, so the difference stays visible.
 */
export function showPair(a: unknown, b: unknown): [string, string] {
  const ta = JSON.stringify(a) ?? String(a);
  const tb = JSON.stringify(b) ?? String(b);
  if (ta.length <= MAX_VALUE && tb.length <= MAX_VALUE) return [ta, tb];
  let first = 0;
  while (first < ta.length && first < tb.length && ta[first] === tb[first]) first++;
  const from = first > MAX_VALUE / 2 ? first - 20 : 0;
  const cut = (text: string) => {
    const head = from > 0 ? `…${text.slice(from)}` : text;
    return head.length > MAX_VALUE ? `${head.slice(0, MAX_VALUE - 1)}…` : head;
  };
  return [cut(ta), cut(tb)];
}
