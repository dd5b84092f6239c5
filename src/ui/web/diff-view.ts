import type { DiffReport, ExchangeRef, Finding, MessageRef, ValueChange } from '../api-types.js';
import { getJson } from './api.js';
import { h, plural } from './dom.js';
import { messageCompare } from './message-compare.js';
import { SIDE_A, SIDE_B, type RecordingSide } from './recording-side.js';

/** Longest rendering of one side of a value change before it is cut. */
const MAX_VALUE = 200;

/**
 * `proxy diff <this recording> <--diff recording>` side by side: the summary, then each exchange
 * that differs with its field changes and its message differences. Exchanges and messages of both
 * sides link to their detail; a verdict change lists its findings; a changed message opens onto
 * both sides' JSON side by side.
 */
export async function diffView(): Promise<HTMLElement> {
  const report = await getJson<DiffReport>('/api/diff');
  const s = report.summary;
  const root = h('div', { class: 'diff', id: 'diff-view' });
  root.appendChild(
    h('div', { class: 'dim' }, h('b', {}, 'A '), report.a.file, ` (${plural(report.a.exchanges, 'exchange')}, ${plural(report.a.messages, 'message')})`, h('br'), h('b', {}, 'B '), report.b.file, ` (${plural(report.b.exchanges, 'exchange')}, ${plural(report.b.messages, 'message')})`),
  );
  root.appendChild(
    h(
      'div',
      { class: 'summary-cards', id: 'diff-summary' },
      card(report.equal ? 'equal' : 'differ', report.equal ? '✓' : '≠'),
      card(s.exchanges.changed === 1 ? 'exchange changed' : 'exchanges changed', s.exchanges.changed),
      card('added', s.exchanges.added),
      card('removed', s.exchanges.removed),
      card(s.messages.changed === 1 ? 'message changed' : 'messages changed', s.messages.changed),
      card(s.messages.added === 1 ? 'message added' : 'messages added', s.messages.added),
      card(s.messages.removed === 1 ? 'message removed' : 'messages removed', s.messages.removed),
      card(s.regressions === 1 ? 'regression' : 'regressions', s.regressions),
      card(s.fixes === 1 ? 'fix' : 'fixes', s.fixes),
    ),
  );
  if (report.exchanges.length === 0) root.appendChild(h('p', { class: 'dim' }, 'The recordings are equal after normalization.'));
  for (const ex of report.exchanges) {
    const box = h('div', { class: 'diff-ex', 'data-change': ex.change });
    box.appendChild(h('div', { class: 'head' }, h('span', {}, h('span', { class: `badge change-${ex.change}` }, ex.change)), h('span', {}, 'A ', exchangeLink(ex.a, SIDE_A)), h('span', {}, 'B ', exchangeLink(ex.b, SIDE_B))));
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
          ? h(
              'div',
              { class: `verdict-change ${m.verdict.change}` },
              h('span', { class: `badge ${m.verdict.change === 'regression' ? 'invalid' : m.verdict.change === 'fixed' ? 'valid' : 'unchecked'}` }, `${m.verdict.change}: ${m.verdict.a ?? '–'} → ${m.verdict.b ?? '–'}`),
              findingList(m.verdict.findings),
            )
          : '';
        if (m.change === 'changed' && ex.a !== null && ex.b !== null && m.a !== null && m.b !== null) {
          changes.appendChild(messageCompare({ exchange: ex.a.id, seq: m.a.seq }, { exchange: ex.b.id, seq: m.b.seq }, m.differences.map((d) => d.pointer)));
        }
        table.appendChild(
          h(
            'tr',
            { class: 'diff-msg', 'data-change': m.change },
            h('td', {}, h('span', { class: `badge change-${m.change}` }, m.change)),
            h('td', {}, messageLink(ex.a, m.a, SIDE_A)),
            h('td', {}, messageLink(ex.b, m.b, SIDE_B)),
            h('td', {}, verdict),
            h('td', {}, changes),
          ),
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

function exchangeLink(e: ExchangeRef | null, side: RecordingSide): Node {
  if (e === null) return h('span', { class: 'dim' }, '—');
  return h('a', { href: `${side.exchangeHash}/${e.id}`, class: `diff-exchange-link side-${side.key}` }, describe(e));
}

function messageLink(ex: ExchangeRef | null, m: MessageRef | null, side: RecordingSide): Node {
  if (m === null || ex === null) return h('span', { class: 'dim' }, '—');
  return h('a', { href: `${side.exchangeHash}/${ex.id}/message/${m.seq}`, class: `mono diff-link side-${side.key}` }, `#${m.seq} ${m.sender === 'client' ? '→' : '←'} ${m.label}`);
}

/** The findings behind a verdict change, as text: rule, pointer, message. */
function findingList(findings: Finding[]): Node | string {
  if (findings.length === 0) return '';
  const list = h('ul', { class: 'findings verdict-findings' });
  for (const f of findings) list.appendChild(h('li', { class: f.severity }, h('span', { class: 'rule' }, f.rule), h('span', { class: 'ptr' }, f.pointer || '/'), h('span', {}, f.message)));
  return list;
}

function side(change: ValueChange, which: 'a' | 'b'): string {
  if (!(which in change)) return '(absent)';
  const text = JSON.stringify(change[which]) ?? 'undefined';
  return text.length > MAX_VALUE ? text.slice(0, MAX_VALUE) + '…' : text;
}
