/// <reference lib="dom" />
import type { ExchangeDetail, MessageDetail, MessagePage, MessageSummary, RunItem, RunView, SessionView, StateAt } from '../api-types.js';
import { getJson, query } from './api.js';
import { fmtBytes, fmtMs, h, headersTable, verdictBadge } from './dom.js';
import { renderJson } from './json-view.js';
import { renderSession, sessionTabLabel } from './session-view.js';
import { VirtualList } from './virtual-list.js';

const ROW_HEIGHT = 24;
const PAGE_SIZE = 200;

export type ExchangeTab = 'messages' | 'run' | 'session';

/**
 * One exchange: request and response headers, then either the message list (virtualised, paged
 * from the server) or, for AG-UI, the run as the client materialises it, or, for Pi RPC and ACP,
 * the session (requests paired with responses, events with gaps, turns). The pane on the right
 * shows the selected message: pretty JSON with findings highlighted at their pointers, and for
 * AG-UI the state at that event.
 */
export class ExchangeView {
  readonly element: HTMLElement;
  private exchange: ExchangeDetail;
  private tab: ExchangeTab = 'messages';
  private selected: number | null = null;
  private invalidOnly = false;
  private readonly list: VirtualList<MessageSummary>;
  private readonly head: HTMLElement;
  private readonly tabs: HTMLElement;
  private readonly left: HTMLElement;
  private readonly listPane: HTMLElement;
  private readonly runPane: HTMLElement;
  private readonly sessionPane: HTMLElement;
  private readonly detail: HTMLElement;
  private readonly count: HTMLElement;
  private detailTicket = 0;
  private run: RunView | undefined;

  static async create(id: number): Promise<ExchangeView> {
    return new ExchangeView(await getJson<ExchangeDetail>(`/api/exchanges/${id}`));
  }

  private constructor(exchange: ExchangeDetail) {
    this.exchange = exchange;
    this.head = h('div', { class: 'ex-head' });
    this.tabs = h('div', { class: 'tabs' });
    this.count = h('span', { class: 'dim', id: 'message-count' });
    this.list = new VirtualList<MessageSummary>({
      rowHeight: ROW_HEIGHT,
      pageSize: PAGE_SIZE,
      fetchPage: (offset, limit) => getJson<MessagePage>(`/api/exchanges/${this.exchange.id}/messages` + query({ offset, limit, invalid: this.invalidOnly })),
      renderRow: (m) => this.messageRow(m),
      onTotal: (n) => (this.count.textContent = `${n} message${n === 1 ? '' : 's'}${this.invalidOnly ? ' (invalid only)' : ''}`),
    });
    const invalid = h('input', { type: 'checkbox', id: 'msg-invalid' });
    invalid.addEventListener('change', () => {
      this.invalidOnly = invalid.checked;
      void this.list.reset().then(() => this.count.textContent === '' && (this.count.textContent = '0 messages'));
    });
    this.listPane = h('div', { class: 'list-pane', id: 'message-list' }, h('div', { class: 'toolbar' }, h('label', {}, invalid, 'only invalid'), this.count), this.list.element);
    this.runPane = h('div', { class: 'conv', id: 'run-conversation' });
    this.sessionPane = h('div', { class: 'conv', id: 'session-view' });
    this.left = h('div', { class: 'left-slot' });
    this.left.style.display = 'contents';
    this.detail = h('div', { class: 'detail-pane', id: 'message-detail' }, h('p', { class: 'dim' }, 'Select a message.'));
    this.element = h('div', { class: 'view-col', id: 'exchange-view', 'data-exchange-id': exchange.id }, this.head, this.tabs, h('div', { class: 'split' }, this.left, this.detail));
    this.drawHead();
    void this.list.reset();
  }

  get id(): number {
    return this.exchange.id;
  }

  private get agui(): boolean {
    return this.exchange.protocol === 'agui';
  }

  /** The session tab's name, for Pi RPC and ACP exchanges. */
  private get sessionTab(): string | undefined {
    return sessionTabLabel(this.exchange.protocol);
  }

  /** Applies a route: which tab, which message. */
  async show(tab: ExchangeTab, seq: number | null): Promise<void> {
    const effective: ExchangeTab = tab === 'run' && this.agui ? 'run' : tab === 'session' && this.sessionTab !== undefined ? 'session' : 'messages';
    if (effective !== this.tab || this.left.childElementCount === 0) {
      this.tab = effective;
      this.drawTabs();
      this.left.replaceChildren(effective === 'run' ? this.runPane : effective === 'session' ? this.sessionPane : this.listPane);
      if (effective === 'run') await this.loadRun();
      if (effective === 'session') await this.loadSession();
    }
    const changed = seq !== this.selected;
    this.selected = seq;
    if (effective === 'messages') {
      if (seq !== null && !this.invalidOnly) this.list.scrollToIndex(seq - 1);
      this.list.render();
    } else if (effective === 'session') {
      this.markSessionSelection();
    } else {
      this.markRunSelection();
    }
    if (changed || seq === null) await this.showDetail();
  }

  /** The recording grew (live): re-read the exchange and what is on screen. */
  async refresh(): Promise<void> {
    this.exchange = await getJson<ExchangeDetail>(`/api/exchanges/${this.exchange.id}`);
    this.drawHead();
    await this.list.refresh();
    if (this.tab === 'run') await this.loadRun();
    if (this.tab === 'session') await this.loadSession();
  }

  private link(tab: ExchangeTab, seq: number | null): string {
    return `#/exchange/${this.exchange.id}${tab === 'messages' ? '' : `/${tab}`}${seq === null ? '' : `/message/${seq}`}`;
  }

  private drawHead(): void {
    const e = this.exchange;
    const what = `${e.method ?? ''} ${e.path ?? ''}${e.query ? '?' + e.query : ''}`.trim() || e.url || e.transport;
    const status = e.status === null ? '' : ` → ${e.status}`;
    const facts = [
      e.transport,
      e.protocol ?? 'unknown protocol',
      e.subprotocol ? `subprotocol ${e.subprotocol}` : null,
      `starts +${fmtMs(e.startedMs)}`,
      e.open ? `open for ${fmtMs(e.durationMs)}` : `took ${fmtMs(e.durationMs)}`,
      e.outcome ?? (e.open ? 'still open' : null),
      `${e.messageCount} messages`,
      e.invalidCount ? `${e.invalidCount} invalid` : null,
      e.errorCode ? `error ${e.errorCode}: ${e.errorMessage ?? ''}` : null,
      e.closeCode !== null ? `close ${e.closeCode}${e.closeReason ? ' ' + e.closeReason : ''}` : null,
      e.exitCode !== null ? `exit ${e.exitCode}` : null,
      e.signal ? `signal ${e.signal}` : null,
    ].filter(Boolean);
    const wasOpen = (this.head.querySelector('details') as HTMLDetailsElement | null)?.open ?? false;
    const details = h(
      'details',
      { id: 'exchange-headers' },
      h('summary', {}, 'Request and response headers'),
      h('div', { class: 'headers' }, h('div', {}, h('h3', {}, 'Request'), headersTable(e.requestHeaders)), h('div', {}, h('h3', {}, 'Response'), headersTable(e.responseHeaders))),
    );
    details.open = wasOpen;
    this.head.replaceChildren(
      h('div', { class: 'ex-title' }, h('a', { href: '#/' }, '← timeline'), '  ', h('b', {}, `#${e.id}`), ` ${what}${status}`),
      h('div', { class: 'dim' }, facts.join(' · ')),
      details,
    );
  }

  private drawTabs(): void {
    const tab = (name: ExchangeTab, label: string) => h('a', { href: this.link(name, this.selected), class: this.tab === name ? 'active' : '', 'data-tab': name }, label);
    const session = this.sessionTab;
    this.tabs.replaceChildren(tab('messages', 'Messages'), this.agui ? tab('run', 'AG-UI run') : '', session !== undefined ? tab('session', session) : '');
  }

  private messageRow(m: MessageSummary): HTMLElement {
    const row = h(
      'a',
      {
        class: `msg-row ${m.status}${m.seq === this.selected ? ' selected' : ''}`,
        href: this.link('messages', m.seq),
        'data-seq': m.seq,
        title: `${m.carrier}${m.channel ? ' · ' + m.channel : ''} · ${fmtBytes(m.size)}`,
      },
      h('span', { class: 'dim' }, `#${m.seq}`),
      h('span', { class: `msg-dir ${m.sender}`, title: m.sender === 'client' ? 'client → server' : 'server → client' }, m.sender === 'client' ? '→' : '←'),
      h('span', { class: 'msg-label' }, m.label),
      h('span', { class: 'dim num', title: 'since the exchange started' }, `+${fmtMs(m.tOffsetMs - this.exchange.startedMs)}`),
      h('span', {}, verdictBadge(m.status, m.findingCount)),
    );
    return row;
  }

  private async loadRun(): Promise<void> {
    this.run = await getJson<RunView>(`/api/exchanges/${this.exchange.id}/run`);
    const run = this.run;
    const items: HTMLElement[] = [];
    const outcomeText = { finished: 'Run finished', error: 'Run error', interrupted: 'Run interrupted', open: 'Run did not finish' }[run.outcome.status];
    items.push(h('div', { class: `outcome ${run.outcome.status}`, id: 'run-outcome' }, `${outcomeText}: ${run.outcome.detail}`));
    items.push(h('div', { class: 'dim' }, `thread ${run.input.threadId ?? '?'} · run ${run.input.runId ?? '?'} · ${run.events} events`));
    for (const m of run.input.messages) {
      items.push(h('div', { class: `run-item message ${m.role} input` }, h('div', { class: 'who' }, h('span', {}, `${m.role} (input)`), h('span', {}, m.id)), h('pre', {}, m.text)));
    }
    for (const item of run.items) items.push(this.runItem(item));
    this.runPane.replaceChildren(...items);
    this.markRunSelection();
  }

  private runItem(item: RunItem): HTMLElement {
    const select = (seq: number) => h('a', { href: this.link('run', seq), class: 'dim' }, `#${seq}`);
    const attrs = (cls: string) => ({ class: `run-item ${cls}`, 'data-seq': item.seq, onclick: () => (location.hash = this.link('run', item.seq)) });
    switch (item.kind) {
      case 'message':
        return h('div', attrs(`message ${item.role}`), h('div', { class: 'who' }, h('span', {}, item.role), select(item.seq)), h('pre', {}, item.text || '(empty)'));
      case 'reasoning':
        return h('div', attrs('reasoning'), h('div', { class: 'who' }, h('span', {}, 'reasoning'), select(item.seq)), h('pre', {}, item.text));
      case 'tool-call':
        return h(
          'div',
          attrs('tool-call'),
          h('div', { class: 'who' }, h('span', {}, `tool call ${item.name} (${item.id})`), select(item.seq)),
          h('pre', {}, `args: ${prettyMaybe(item.args)}`),
          item.result === null ? h('div', { class: 'status-bad' }, 'no result') : h('pre', {}, `result (#${item.result.seq}): ${prettyMaybe(item.result.content)}`),
        );
      case 'state':
        return h('div', attrs('meta state'), `${item.type} `, select(item.seq));
      case 'step':
        return h('div', attrs('meta'), `${item.type} ${item.name} `, select(item.seq));
      case 'run':
        return h('div', attrs('meta'), `${item.type} ${item.detail} `, select(item.seq));
      case 'custom':
        return h('div', attrs('meta'), `${item.type} ${item.name} `, select(item.seq));
    }
  }

  private async loadSession(): Promise<void> {
    const view = await getJson<SessionView>(`/api/exchanges/${this.exchange.id}/session`);
    // Keep the turns the user opened or closed as they were across live refreshes.
    const opened = new Map([...this.sessionPane.querySelectorAll('details[data-turn]')].map((d) => [d.getAttribute('data-turn'), (d as HTMLDetailsElement).open]));
    this.sessionPane.replaceChildren(...renderSession(view, { startedMs: this.exchange.startedMs, link: (seq) => this.link('session', seq) }));
    for (const d of this.sessionPane.querySelectorAll('details[data-turn]')) {
      const was = opened.get(d.getAttribute('data-turn'));
      if (was !== undefined) (d as HTMLDetailsElement).open = was;
    }
    this.markSessionSelection();
  }

  private markSessionSelection(): void {
    for (const el of this.sessionPane.querySelectorAll('.selected')) el.classList.remove('selected');
    if (this.selected === null) return;
    const seq = String(this.selected);
    for (const el of this.sessionPane.querySelectorAll('[data-seqs]')) if ((el.getAttribute('data-seqs') ?? '').split(' ').includes(seq)) el.classList.add('selected');
  }

  private markRunSelection(): void {
    for (const el of this.runPane.querySelectorAll('.run-item.selected')) el.classList.remove('selected');
    if (this.selected === null) return;
    // The item that covers the selected event: the last one starting at or before it.
    let best: Element | null = null;
    let bestSeq = -1;
    for (const el of this.runPane.querySelectorAll('.run-item[data-seq]')) {
      const seq = Number(el.getAttribute('data-seq'));
      if (seq <= this.selected && seq > bestSeq) {
        best = el;
        bestSeq = seq;
      }
    }
    best?.classList.add('selected');
  }

  private async showDetail(): Promise<void> {
    const ticket = ++this.detailTicket;
    const seq = this.selected;
    if (seq === null) {
      this.detail.replaceChildren(h('p', { class: 'dim' }, this.tab === 'run' ? 'Select an event to see the state at that point.' : this.tab === 'session' ? 'Select a request, response or event to see the message.' : 'Select a message.'));
      return;
    }
    const [message, state] = await Promise.all([
      getJson<MessageDetail>(`/api/messages/${this.exchange.id}/${seq}`).catch((e: Error) => e),
      this.agui ? getJson<StateAt>(`/api/exchanges/${this.exchange.id}/state?seq=${seq}`).catch((e: Error) => e) : Promise.resolve(undefined),
    ]);
    if (ticket !== this.detailTicket) return;
    const parts: HTMLElement[] = [];
    const stateEl = state === undefined ? undefined : state instanceof Error ? h('div', { class: 'error-box' }, state.message) : stateSection(state);
    if (this.tab === 'run' && stateEl) parts.push(stateEl);
    parts.push(message instanceof Error ? h('div', { class: 'error-box' }, message.message) : messageSection(message, this.exchange.startedMs));
    if (this.tab === 'messages' && stateEl) parts.push(stateEl);
    this.detail.replaceChildren(...parts);
  }
}

function prettyMaybe(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function messageSection(m: MessageDetail, startedMs: number): HTMLElement {
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
  section.appendChild(h('h3', {}, m.json !== undefined ? 'JSON' : 'Raw'));
  json = m.json !== undefined ? renderJson(m.json, m.findings) : h('pre', { class: 'json' }, h('div', { class: 'jl' }, m.text ?? ''));
  section.appendChild(json);
  return section;
}

function stateSection(s: StateAt): HTMLElement {
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
