import type { ExchangeSummary, RecordingSummary } from '../api-types.js';
import { getJson, query } from './api.js';
import { clear, fmtMs, h, plural } from './dom.js';

/** Most rows drawn at once; narrower filters show the rest. */
const MAX_ROWS = 2000;

export interface TimelineFilters {
  protocol: string;
  transport: string;
  /** A forward recording's host ('' for all). */
  host: string;
  invalid: boolean;
  q: string;
}

/** Filters survive switching views (module state), so Back returns to the same list. */
export const filters: TimelineFilters = { protocol: '', transport: '', host: '', invalid: false, q: '' };

/**
 * All exchanges on one clock: one row each with a bar from its start to its end offset, its
 * status, duration, message count and invalid-count badge. Filters: protocol, transport, only
 * invalid, text search, and a forward recording's host. A forward recording's rows come grouped by
 * host (as `show` lists them), each group under a line naming the host and its exchanges.
 */
export class TimelineView {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private readonly count: HTMLElement;
  private searchTimer = 0;
  private loading = 0;

  constructor(recording: RecordingSummary) {
    const protocol = h('select', { id: 'filter-protocol', 'aria-label': 'protocol' }, h('option', { value: '' }, 'all protocols'), ...recording.protocols.map((p) => h('option', { value: p }, p)));
    const transport = h('select', { id: 'filter-transport', 'aria-label': 'transport' }, h('option', { value: '' }, 'all transports'), ...recording.transports.map((t) => h('option', { value: t }, t)));
    const hosts = recording.hosts ?? [];
    const host = h('select', { id: 'filter-host', 'aria-label': 'host' }, h('option', { value: '' }, 'all hosts'), ...hosts.map((x) => h('option', { value: x.host }, x.host)));
    const invalid = h('input', { type: 'checkbox', id: 'filter-invalid' });
    const search = h('input', { type: 'search', id: 'filter-q', placeholder: 'search method, path, JSON…', 'aria-label': 'search' });
    protocol.value = filters.protocol;
    transport.value = filters.transport;
    host.value = filters.host;
    invalid.checked = filters.invalid;
    search.value = filters.q;
    protocol.addEventListener('change', () => ((filters.protocol = protocol.value), void this.refresh()));
    transport.addEventListener('change', () => ((filters.transport = transport.value), void this.refresh()));
    host.addEventListener('change', () => ((filters.host = host.value), void this.refresh()));
    invalid.addEventListener('change', () => ((filters.invalid = invalid.checked), void this.refresh()));
    search.addEventListener('input', () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = window.setTimeout(() => ((filters.q = search.value), void this.refresh()), 200);
    });
    this.count = h('span', { class: 'dim', id: 'timeline-count' });
    this.body = h('div', { class: 'timeline', id: 'timeline' });
    this.element = h(
      'div',
      { id: 'timeline-view', class: 'view-col' },
      h('div', { class: 'toolbar' }, protocol, transport, ...(recording.hosts ? [host] : []), h('label', {}, invalid, 'only invalid'), search, this.count),
      this.body,
    );
  }

  /** Fetches the exchanges for the current filters and redraws. */
  async refresh(): Promise<void> {
    const ticket = ++this.loading;
    const rows = await getJson<ExchangeSummary[]>(
      '/api/exchanges' + query({ protocol: filters.protocol, transport: filters.transport, host: filters.host, invalid: filters.invalid, q: filters.q.trim() }),
    );
    if (ticket !== this.loading) return;
    this.draw(rows);
  }

  /** Draws the rows the current filters selected (the page's own data, or a fetch's). */
  draw(rows: ExchangeSummary[]): void {
    const start = rows.reduce((min, r) => Math.min(min, r.startedMs), rows.length ? Infinity : 0);
    const end = rows.reduce((max, r) => Math.max(max, r.endMs ?? r.startedMs), start);
    const span = Math.max(1, end - start);
    const invalidTotal = rows.reduce((n, r) => n + r.invalidCount, 0);
    this.count.textContent = `${plural(rows.length, 'exchange')}${invalidTotal ? ` · ${plural(invalidTotal, 'invalid message')}` : ''}`;
    clear(this.body);
    const axis = h('div', { class: 'tl-axis dim' });
    for (const f of [0, 0.25, 0.5, 0.75, 1]) {
      const tick = h('span', {}, `+${fmtMs(f * span)}`);
      tick.style.left = `${f * 100}%`;
      axis.appendChild(tick);
    }
    this.body.appendChild(
      h('div', { class: 'tl-head' }, h('span', {}, 'id'), h('span', {}, 'exchange'), h('span', {}, 'protocol'), h('span', { class: 'num' }, 'status'), h('span', { class: 'num' }, 'duration'), h('span', { class: 'num' }, 'messages'), h('span', {}, 'invalid'), axis),
    );
    if (rows.length === 0) {
      this.body.appendChild(h('p', { class: 'dim pad' }, 'No exchanges match.'));
      return;
    }
    const shown = rows.slice(0, MAX_ROWS);
    shown.forEach((r, i) => {
      // A forward recording's rows come grouped by host: each group starts under its host's line.
      if (r.host !== undefined && (i === 0 || shown[i - 1].host !== r.host)) this.body.appendChild(hostLine(r.host, rows));
      this.body.appendChild(row(r, start, span));
    });
    if (rows.length > MAX_ROWS) this.body.appendChild(h('p', { class: 'dim pad' }, `Showing the first ${MAX_ROWS} of ${rows.length}; narrow the filters to see the rest.`));
  }
}

/** The line over a host's group: the host, and how many of the rows listed went to it. */
function hostLine(host: string, rows: readonly ExchangeSummary[]): HTMLElement {
  const count = rows.reduce((n, r) => n + (r.host === host ? 1 : 0), 0);
  return h('div', { class: 'tl-host', 'data-host': host }, h('strong', {}, host), h('span', { class: 'dim' }, plural(count, 'exchange')));
}

function row(r: ExchangeSummary, origin: number, span: number): HTMLElement {
  const what = r.method || r.path ? `${r.method ?? ''} ${r.path ?? ''}`.trim() : r.transport;
  const bar = h('div', { class: `tl-bar${r.invalidCount ? ' invalid' : ''}${r.open ? ' open' : ''}${r.outcome && r.outcome !== 'complete' ? ' failed' : ''}` });
  bar.style.left = `${((r.startedMs - origin) / span) * 100}%`;
  bar.style.width = `${Math.max(0.3, (((r.endMs ?? r.startedMs) - r.startedMs) / span) * 100)}%`;
  const status = r.status === null ? (r.outcome ?? (r.open ? 'open' : '–')) : String(r.status);
  const bad = (r.status !== null && r.status >= 400) || (r.outcome !== null && r.outcome !== 'complete');
  return h(
    'a',
    {
      class: `tl-row${r.invalidCount ? ' has-invalid' : ''}`,
      href: `#/exchange/${r.id}`,
      'data-exchange-id': r.id,
      title: `#${r.id} ${what} · ${r.transport}${r.protocol ? ` · ${r.protocol}, chosen by ${r.protocolEvidence ?? '(not recorded)'}` : ''} · starts at +${fmtMs(r.startedMs)} · ${r.open ? 'still open' : (r.outcome ?? '')}`,
    },
    h('span', { class: 'dim' }, `#${r.id}`),
    h('span', { class: 'tl-what' }, what),
    h('span', { class: 'dim tl-proto' }, `${r.protocol ?? '?'} · ${r.transport}`),
    h('span', { class: `num ${bad ? 'status-bad' : 'status-ok'}` }, status),
    h('span', { class: 'num' }, r.open ? `${fmtMs(r.durationMs)}…` : fmtMs(r.durationMs)),
    h('span', { class: 'num' }, r.messageCount),
    h('span', {}, r.invalidCount ? h('span', { class: 'badge invalid invalid-count', title: plural(r.invalidCount, 'invalid message') }, `✗ ${r.invalidCount}`) : ''),
    h('div', { class: 'tl-track' }, bar),
  );
}
