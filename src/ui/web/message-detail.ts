import type { MessageDetail, StateAt } from '../api-types.js';
import { copyButton } from './clipboard.js';
import { fmtBytes, fmtMs, h, verdictBadge } from './dom.js';
import { renderJson } from './json-view.js';

/** The selected message: facts, findings (each scrolls to its line), the JSON with the findings highlighted, and a copy button. */
export function messageSection(m: MessageDetail, startedMs: number): HTMLElement {
  const section = h('section', { id: 'message', 'data-seq': m.seq });
  section.appendChild(
    h(
      'h3',
      {},
      `#${m.seq} ${m.sender === 'client' ? '→' : '←'} ${m.label} `,
      verdictBadge(m.status, m.findingCount),
    ),
  );
  const facts = [
    `${m.sender} · ${m.carrier}${m.channel ? ' · ' + m.channel : ''}`,
    `+${fmtMs(m.tOffsetMs - startedMs)} since the exchange started`,
    fmtBytes(m.size) + (m.rawTruncatedFrom !== null ? ` (truncated from ${fmtBytes(m.rawTruncatedFrom)})` : ''),
    m.schemaRef ? `schema ${m.schemaRef}` : null,
    m.reason,
  ].filter(Boolean);
  section.appendChild(h('div', { class: 'dim' }, facts.join(' · ')));
  let json: HTMLElement | undefined;
  if (m.findings.length > 0) {
    const list = h('ul', { class: 'findings', id: 'findings' });
    for (const f of m.findings) {
      list.appendChild(
        h(
          'li',
          {
            class: f.severity,
            'data-pointer': f.pointer,
            onclick: () =>
              [...(json?.querySelectorAll('.hl-start') ?? [])].find((el) => (el.getAttribute('data-finding') ?? '').split(' ').includes(f.pointer))?.scrollIntoView({ block: 'center' }),
          },
          h('span', { class: 'rule' }, f.rule),
          h('span', { class: `badge ${f.severity === 'error' ? 'invalid' : 'warning'}` }, f.severity),
          ' ',
          h('span', { class: 'ptr' }, f.pointer || '/'),
          h('span', {}, f.message),
        ),
      );
    }
    section.appendChild(h('h3', {}, `Findings (${m.findings.length})`));
    section.appendChild(list);
  }
  const copyable = m.json !== undefined ? JSON.stringify(m.json, null, 2) : (m.text ?? '');
  section.appendChild(h('h3', {}, m.json !== undefined ? 'JSON ' : 'Raw ', copyButton(m.json !== undefined ? 'Copy JSON' : 'Copy text', () => copyable, { id: 'copy-json' })));
  json = m.json !== undefined ? renderJson(m.json, m.findings) : h('pre', { class: 'json' }, h('div', { class: 'jl' }, m.text ?? ''));
  section.appendChild(json);
  return section;
}

/** The AG-UI state right after event `seq`. */
export function stateSection(s: StateAt): HTMLElement {
  const section = h('section', { id: 'state-at', 'data-seq': s.seq });
  section.appendChild(h('h3', {}, `State at event #${s.seq}`));
  section.appendChild(
    h('div', { class: 'dim' }, s.applied === 0 ? 'no STATE_SNAPSHOT or STATE_DELTA yet: the request’s state' : `after ${s.applied} state event${s.applied === 1 ? '' : 's'}, the last at #${s.lastStateSeq}`),
  );
  section.appendChild(renderJson(s.state));
  const ids = Object.keys(s.activities);
  if (ids.length > 0) {
    section.appendChild(h('h3', {}, 'Activities'));
    section.appendChild(renderJson(s.activities));
  }
  return section;
}
