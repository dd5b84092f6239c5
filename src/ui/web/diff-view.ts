/// <reference lib="dom" />
import type { DiffReport, ExchangeRef, MessageRef, ValueChange } from '../../diff/diff-report.js';
import { getJson } from './api.js';
import { h } from './dom.js';

/** Longest rendering of one side of a value change before it is cut. */
const MAX_VALUE = 200;

/**
 * `proxy diff <this recording> <--diff recording>` side by side: the summary, then each exchange
 * that differs with its field changes and its message differences. Messages of A (this recording)
 * link to their detail; B's are shown as the report has them.
 */
export async function diffView(): Promise<HTMLElement> {
  const report = await getJson<DiffReport>('/api/diff');
  const s = report.summary;
  const root = h('div', { class: 'diff', id: 'diff-view' });
  root.appendChild(
    h('div', { class: 'dim' }, h('b', {}, 'A '), report.a.file, ` (${report.a.exchanges} exchanges, ${report.a.messages} messages)`, h('br'), h('b', {}, 'B '), report.b.file, ` (${report.b.exchanges} exchanges, ${report.b.messages} messages)`),
  );
  root.appendChild(
    h(
      'div',
      { class: 'summary-cards', id: 'diff-summary' },
      card(report.equal ? 'equal' : 'differ', report.equal ? '✓' : '≠'),
      card('exchanges changed', s.exchanges.changed),
      card('added', s.exchanges.added),
      card('removed', s.exchanges.removed),
      card('messages changed', s.messages.changed),
      card('messages added', s.messages.added),
      card('messages removed', s.messages.removed),
      card('regressions', s.regressions),
      card('fixes', s.fixes),
    ),
  );
  if (report.exchanges.length === 0) root.appendChild(h('p', { class: 'dim' }, 'The recordings are equal after normalization.'));
  for (const ex of report.exchanges) {
    const box = h('div', { class: 'diff-ex', 'data-change': ex.change });
    box.appendChild(h('div', { class: 'head' }, h('span', {}, h('span', { class: `badge change-${ex.change}` }, ex.change)), h('span', {}, 'A ', exchangeLink(ex.a, true)), h('span', {}, 'B ', exchangeLink(ex.b, false))));
    if (ex.fields.length > 0) {
      const table = h('table', { class: 'diff-msgs' }, h('tr', {}, h('th', {}, 'field'), h('th', {}, 'A'), h('th', {}, 'B')));
      for (const f of ex.fields) table.appendChild(h('tr', {}, h('td', { class: 'mono' }, f.pointer), h('td', { class: 'chg' }, side(f, 'a')), h('td', { class: 'chg' }, side(f, 'b'))));
      box.appendChild(table);
    }
    if (ex.messages.length > 0) {
      const table = h('table', { class: 'diff-msgs' }, h('tr', {}, h('th', {}, ''), h('th', {}, 'A'), h('th', {}, 'B'), h('th', {}, 'verdict'), h('th', {}, 'differences')));
      for (const m of ex.messages) {
        const changes = h('div', { class: 'chg' });
        for (const d of m.differences) changes.appendChild(h('div', {}, h('span', { class: 'dim' }, `${d.pointer || '/'}: `), h('span', { class: 'a' }, side(d, 'a')), ' → ', h('span', { class: 'b' }, side(d, 'b'))));
        const verdict = m.verdict
          ? h('span', { class: `badge ${m.verdict.change === 'regression' ? 'invalid' : m.verdict.change === 'fixed' ? 'valid' : 'unchecked'}`, title: m.verdict.findings.map((f) => `${f.rule} at ${f.pointer}: ${f.message}`).join('\n') }, `${m.verdict.change}: ${m.verdict.a ?? '–'} → ${m.verdict.b ?? '–'}`)
          : '';
        table.appendChild(
          h('tr', { class: 'diff-msg', 'data-change': m.change }, h('td', {}, h('span', { class: `badge change-${m.change}` }, m.change)), h('td', {}, messageLink(ex.a, m.a)), h('td', {}, messageText(m.b)), h('td', {}, verdict), h('td', {}, changes)),
        );
      }
      box.appendChild(table);
    }
    root.appendChild(box);
  }
  return root;
}

function card(label: string, value: number | string): HTMLElement {
  return h('div', { class: 'card' }, h('b', {}, String(value)), h('span', { class: 'dim' }, label));
}

function describe(e: ExchangeRef): string {
  return `#${e.id} ${e.method ?? ''} ${e.path ?? ''}${e.status === null ? '' : ' → ' + e.status} (${e.protocol ?? '?'} · ${e.transport})`.replace(/\s+/g, ' ');
}

function exchangeLink(e: ExchangeRef | null, linked: boolean): Node {
  if (e === null) return h('span', { class: 'dim' }, '—');
  return linked ? h('a', { href: `#/exchange/${e.id}` }, describe(e)) : h('span', { class: 'mono' }, describe(e));
}

function messageLink(ex: ExchangeRef | null, m: MessageRef | null): Node {
  if (m === null || ex === null) return h('span', { class: 'dim' }, '—');
  return h('a', { href: `#/exchange/${ex.id}/message/${m.seq}`, class: 'mono diff-link' }, `#${m.seq} ${m.sender === 'client' ? '→' : '←'} ${m.label}`);
}

function messageText(m: MessageRef | null): Node {
  if (m === null) return h('span', { class: 'dim' }, '—');
  return h('span', { class: 'mono' }, `#${m.seq} ${m.sender === 'client' ? '→' : '←'} ${m.label}`);
}

function side(change: ValueChange, which: 'a' | 'b'): string {
  if (!(which in change)) return '(absent)';
  const text = JSON.stringify(change[which]) ?? 'undefined';
  return text.length > MAX_VALUE ? text.slice(0, MAX_VALUE) + '…' : text;
}
