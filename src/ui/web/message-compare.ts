import type { MessageDetail } from '../api-types.js';
import { getJson } from './api.js';
import { h } from './dom.js';
import { renderJson } from './json-view.js';
import { SIDE_A, SIDE_B } from './recording-side.js';

export interface ComparedMessage {
  exchange: number;
  seq: number;
}

/**
 * A changed message's two sides, A's JSON beside B's, each with its findings highlighted and the
 * pointers that differ marked. Fetched when the reader opens it, so a long diff costs no requests.
 */
export function messageCompare(a: ComparedMessage, b: ComparedMessage, pointers: string[]): HTMLElement {
  const body = h('div', { class: 'side-by-side' });
  const details = h('details', { class: 'compare' }, h('summary', {}, 'JSON side by side'), body);
  let loaded = false;
  details.addEventListener('toggle', async () => {
    if (!details.open || loaded) return;
    loaded = true;
    const [left, right] = await Promise.all([fetchSide(SIDE_A.api, a), fetchSide(SIDE_B.api, b)]);
    body.replaceChildren(column('A', left, pointers), column('B', right, pointers));
    details.setAttribute('data-loaded', '');
  });
  return details;
}

function fetchSide(api: string, m: ComparedMessage): Promise<MessageDetail | Error> {
  return getJson<MessageDetail>(`${api}/messages/${m.exchange}/${m.seq}`).catch((error: Error) => error);
}

function column(side: 'A' | 'B', m: MessageDetail | Error, pointers: string[]): HTMLElement {
  const head = h('div', { class: 'dim' }, h('b', {}, side), m instanceof Error ? '' : ` #${m.seq} ${m.label}`);
  if (m instanceof Error) return h('div', { class: `compare-side side-${side.toLowerCase()}` }, head, h('div', { class: 'error-box' }, m.message));
  const json = m.json !== undefined ? renderJson(m.json, m.findings, pointers) : h('pre', { class: 'json' }, h('div', { class: 'jl' }, m.text ?? ''));
  return h('div', { class: `compare-side side-${side.toLowerCase()}` }, head, json);
}
