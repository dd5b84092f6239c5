import type { RunItem, RunView } from '../api-types.js';
import { h } from './dom.js';

const OUTCOME = { finished: 'Run finished', error: 'Run error', interrupted: 'Run interrupted', cancelled: 'Run cancelled', open: 'Run did not finish' } as const;

/**
 * The AG-UI run as the client materialises it: the outcome, the request's messages, then each
 * message, reasoning, tool call and meta event. An item that an invalid event went into is
 * flagged (`invalid` class, ✗ marker) with that event's findings. `link(seq)` selects an event.
 */
export function renderRun(run: RunView, link: (seq: number) => string): HTMLElement[] {
  const parts: HTMLElement[] = [];
  const outcome = OUTCOME[run.outcome.status];
  parts.push(h('div', { class: `outcome ${run.outcome.status}`, id: 'run-outcome' }, run.outcome.detail ? `${outcome}: ${run.outcome.detail}` : outcome));
  if (run.invalidEvents > 0) {
    parts.push(h('div', { class: 'outcome error', id: 'run-invalid' }, `✗ ${run.invalidEvents} invalid event${run.invalidEvents === 1 ? '' : 's'}, flagged below`));
  }
  parts.push(h('div', { class: 'dim' }, `thread ${run.input.threadId ?? '?'} · run ${run.input.runId ?? '?'} · ${run.events} event${run.events === 1 ? '' : 's'}`));
  for (const m of run.input.messages) {
    parts.push(h('div', { class: `run-item message ${m.role} input` }, h('div', { class: 'who' }, h('span', { class: 'role' }, `${m.role} (input)`), h('span', { class: 'item-id' }, m.id)), h('pre', {}, m.text)));
  }
  for (const item of run.items) parts.push(runItem(item, link));
  return parts;
}

function runItem(item: RunItem, link: (seq: number) => string): HTMLElement {
  const seqLink = (seq: number) => h('a', { href: link(seq), class: 'dim' }, `#${seq}`);
  const flag = item.invalid?.length ? h('span', { class: 'invalid-mark', title: 'an invalid event went into this item' }, '✗ invalid ') : '';
  const who = (text: string) => h('div', { class: 'who' }, h('span', { class: 'role' }, flag, text), seqLink(item.seq));
  const el = (cls: string, ...children: Array<Node | string>) => {
    const div = h('div', { class: `run-item ${cls}${item.invalid?.length ? ' invalid' : ''}`, 'data-seq': item.seq, onclick: () => (location.hash = link(item.seq)) }, ...children);
    if (item.invalid?.length) div.appendChild(issues(item, seqLink));
    return div;
  };
  switch (item.kind) {
    case 'message':
      return el(`message ${item.role}`, who(item.role), h('pre', {}, item.text || '(empty)'));
    case 'reasoning':
      return el('reasoning', who('reasoning'), h('pre', {}, item.text));
    case 'tool-call':
      return el(
        'tool-call',
        who(`tool call ${item.name} (${item.id})`),
        h('pre', {}, `args: ${prettyMaybe(item.args)}`),
        item.result === null ? h('div', { class: 'status-bad' }, 'no result') : h('pre', {}, `result (#${item.result.seq}): ${prettyMaybe(item.result.content)}`),
      );
    case 'state':
      return el('meta state', flag, `${item.type} `, seqLink(item.seq));
    case 'step':
      return el('meta', flag, `${item.type} ${item.name} `, seqLink(item.seq));
    case 'run':
      return el('meta', flag, `${item.type}${item.detail ? ` ${item.detail}` : ''} `, seqLink(item.seq));
    case 'custom':
      return el('meta', flag, `${item.type} ${item.name} `, seqLink(item.seq));
    case 'event':
      return el('meta', flag, `${item.type} `, seqLink(item.seq));
  }
}

/** The findings of the invalid events in an item, each with the event it is about. */
function issues(item: RunItem, seqLink: (seq: number) => HTMLElement): HTMLElement {
  const list = h('ul', { class: 'findings run-findings' });
  for (const issue of item.invalid ?? []) {
    if (issue.findings.length === 0) list.appendChild(h('li', {}, seqLink(issue.seq), ' invalid'));
    for (const f of issue.findings) {
      list.appendChild(h('li', { class: f.severity, 'data-pointer': f.pointer }, seqLink(issue.seq), ' ', h('span', { class: 'rule' }, f.rule), h('span', {}, f.message)));
    }
  }
  return list;
}

function prettyMaybe(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
