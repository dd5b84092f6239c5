import type { AnswerView, ExchangeDetail, MessageDetail, MessagePage, MessageSummary, RunView, SessionView, StateAt } from '../api-types.js';
import { renderAnswer } from './answer-view.js';
import { getJson, query } from './api.js';
import { copyButton } from './clipboard.js';
import { curlCommand } from './curl-command.js';
import { fmtBytes, fmtMs, h, headersTable, plural, verdictBadge } from './dom.js';
import { messageSection, stateSection } from './message-detail.js';
import type { RecordingSide } from './recording-side.js';
import { renderRun } from './run-view.js';
import { renderSession } from './session-view.js';
import { VirtualList } from './virtual-list.js';
import { tlsLine } from './tls-line.js';

const ROW_HEIGHT = 24;
const PAGE_SIZE = 200;

export type ExchangeTab = 'messages' | 'run' | 'session' | 'answer';

/**
 * One exchange: request and response headers, then either the message list (virtualised, paged
 * from the server) or, for AG-UI, the run as the client materialises it, or, for Pi RPC and ACP,
 * the session (requests paired with responses, events with gaps, turns), or, for an LLM API, its
 * answer assembled from the stream (text, tool calls, stop reason, usage). The pane on the right
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
  private readonly answerPane: HTMLElement;
  private readonly detail: HTMLElement;
  private readonly count: HTMLElement;
  private detailTicket = 0;
  private run: RunView | undefined;

  /** `target`: the recording's target, for the request as curl. */
  static async create(id: number, side: RecordingSide, target: string | null): Promise<ExchangeView> {
    return new ExchangeView(await getJson<ExchangeDetail>(`${side.api}/exchanges/${id}`), side, target);
  }

  private constructor(
    exchange: ExchangeDetail,
    readonly side: RecordingSide,
    private readonly target: string | null,
  ) {
    this.exchange = exchange;
    this.head = h('div', { class: 'ex-head' });
    this.tabs = h('div', { class: 'tabs' });
    this.count = h('span', { class: 'dim', id: 'message-count' });
    this.list = new VirtualList<MessageSummary>({
      rowHeight: ROW_HEIGHT,
      pageSize: PAGE_SIZE,
      fetchPage: (offset, limit) => getJson<MessagePage>(`${this.side.api}/exchanges/${this.exchange.id}/messages` + query({ offset, limit, invalid: this.invalidOnly })),
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
    this.answerPane = h('div', { class: 'conv', id: 'answer-view' });
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

  /** The name of the tab its protocol's view is drawn in (`run`, `session` or `answer`, ProtocolModule.views), if it has one. */
  private tabLabel(route: 'run' | 'session' | 'answer'): string | undefined {
    if (route === 'answer') return this.exchange.views?.answer === true ? 'Answer' : undefined;
    const tab = this.exchange.views?.tab;
    return tab?.route === route ? tab.label : undefined;
  }

  /** Its protocol shows the state at each message (AG-UI's shared state). */
  private get hasState(): boolean {
    return this.exchange.views?.state === true;
  }

  /** Applies a route: which tab, which message. */
  async show(tab: ExchangeTab, seq: number | null): Promise<void> {
    const effective: ExchangeTab = tab !== 'messages' && this.tabLabel(tab) !== undefined ? tab : 'messages';
    if (effective !== this.tab || this.left.childElementCount === 0) {
      this.tab = effective;
      this.drawTabs();
      this.left.replaceChildren(effective === 'run' ? this.runPane : effective === 'session' ? this.sessionPane : effective === 'answer' ? this.answerPane : this.listPane);
      if (effective === 'run') await this.loadRun();
      if (effective === 'session') await this.loadSession();
      if (effective === 'answer') await this.loadAnswer();
    }
    const changed = seq !== this.selected;
    this.selected = seq;
    if (effective === 'messages') {
      const index = seq === null ? -1 : this.invalidOnly ? this.list.indexWhere((m) => m.seq === seq) : seq - 1;
      if (index !== -1) this.list.scrollToIndex(index);
      this.list.render();
    } else if (effective === 'session') {
      this.markSessionSelection();
    } else if (effective === 'run') {
      this.markRunSelection();
    }
    if (changed || seq === null) await this.showDetail();
  }

  /** The recording grew (live): re-read the exchange and what is on screen. */
  async refresh(): Promise<void> {
    this.exchange = await getJson<ExchangeDetail>(`${this.side.api}/exchanges/${this.exchange.id}`);
    this.drawHead();
    await this.list.refresh();
    if (this.tab === 'run') await this.loadRun();
    if (this.tab === 'session') await this.loadSession();
    if (this.tab === 'answer') await this.loadAnswer();
  }

  private link(tab: ExchangeTab, seq: number | null): string {
    return `${this.side.exchangeHash}/${this.exchange.id}${tab === 'messages' ? '' : `/${tab}`}${seq === null ? '' : `/message/${seq}`}`;
  }

  private drawHead(): void {
    const e = this.exchange;
    const what = `${e.method ?? ''} ${e.path ?? ''}${e.query ? '?' + e.query : ''}`.trim() || e.url || e.transport;
    const status = e.status === null ? '' : ` → ${e.status}`;
    const facts = [
      e.transport,
      // What chose the protocol, as `show` says it: a route, a WebSocket subprotocol, the first lines, --protocol.
      e.protocol ? `${e.protocol}, chosen by ${e.protocolEvidence ?? '(not recorded)'}` : 'unknown protocol',
      e.subprotocol ? `subprotocol ${e.subprotocol}` : null,
      `starts +${fmtMs(e.startedMs)}`,
      e.open ? `open for ${fmtMs(e.durationMs)}` : `took ${fmtMs(e.durationMs)}`,
      e.outcome ?? (e.open ? 'still open' : null),
      plural(e.messageCount, 'message'),
      e.invalidCount ? `${e.invalidCount} invalid` : null,
      e.errorCode ? `error ${e.errorCode}: ${e.errorMessage ?? ''}` : null,
      e.closeCode !== null ? `close ${e.closeCode}${e.closeReason ? ' ' + e.closeReason : ''}` : null,
      e.exitCode !== null ? `exit ${e.exitCode}` : null,
      e.signal ? `signal ${e.signal}` : null,
    ].filter(Boolean);
    const wasOpen = (this.head.querySelector('details') as HTMLDetailsElement | null)?.open ?? false;
    // stdio and NDJSON exchanges carry no headers: no toggle that opens onto two "(none)".
    const hasHeaders = [e.requestHeaders, e.responseHeaders].some((headers) => headers !== null && Object.keys(headers).length > 0);
    const details = hasHeaders
      ? h(
          'details',
          { id: 'exchange-headers' },
          h('summary', {}, 'Request and response headers'),
          h('div', { class: 'headers' }, h('div', {}, h('h3', {}, 'Request'), headersTable(e.requestHeaders)), h('div', {}, h('h3', {}, 'Response'), headersTable(e.responseHeaders))),
        )
      : '';
    if (details) details.open = wasOpen;
    const back = this.side.key === 'b' ? h('a', { href: '#/diff' }, '← diff') : h('a', { href: '#/' }, '← timeline');
    const sideMark = this.side.key === 'b' ? h('span', { class: 'badge change-changed side-mark', title: 'the --diff recording' }, 'B') : '';
    const curl = (e.transport === 'http' || e.transport === 'sse') && e.method !== null ? copyButton('Copy as curl', () => this.curl(), { id: 'copy-curl' }) : '';
    this.head.replaceChildren(
      h('div', { class: 'ex-title' }, back, '  ', sideMark, h('b', {}, `#${e.id}`), ` ${what}${status} `, curl),
      h('div', { class: 'dim', id: 'exchange-facts' }, facts.join(' · ')),
      e.tls ? h('div', { class: 'dim', id: 'exchange-tls' }, tlsLine(e.tls)) : '',
      details,
    );
  }

  /** The request as curl: its body is the first message when the client sent one. */
  private async curl(): Promise<string> {
    const page = await getJson<MessagePage>(`${this.side.api}/exchanges/${this.exchange.id}/messages?limit=1`);
    const first = page.items[0];
    let body: string | undefined;
    if (first !== undefined && first.sender === 'client' && first.carrier === 'body') {
      const m = await getJson<MessageDetail>(`${this.side.api}/messages/${this.exchange.id}/${first.seq}`);
      body = m.json !== undefined ? JSON.stringify(m.json) : m.text;
    }
    return curlCommand(this.exchange, this.target, body);
  }

  /** True while the message list is on screen (the other tabs have no list to step through). */
  get listShown(): boolean {
    return this.tab === 'messages';
  }

  /** Keyboard navigation: selects the next (+1) or previous (-1) message of the list as it is filtered. */
  async step(delta: 1 | -1): Promise<void> {
    if (this.tab !== 'messages') return;
    const at = this.selected === null ? -1 : this.list.indexWhere((m) => m.seq === this.selected, this.invalidOnly ? undefined : this.selected - 1);
    const next = at === -1 ? (delta === 1 ? 0 : this.list.total - 1) : at + delta;
    if (next < 0 || next >= this.list.total) return;
    const item = await this.list.itemAt(next);
    if (item !== undefined) location.hash = this.link('messages', item.seq);
  }

  private drawTabs(): void {
    const tab = (name: ExchangeTab, label: string) => h('a', { href: this.link(name, this.selected), class: this.tab === name ? 'active' : '', 'data-tab': name }, label);
    const run = this.tabLabel('run');
    const session = this.tabLabel('session');
    const answer = this.tabLabel('answer');
    this.tabs.replaceChildren(tab('messages', 'Messages'), run !== undefined ? tab('run', run) : '', session !== undefined ? tab('session', session) : '', answer !== undefined ? tab('answer', answer) : '');
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
    this.run = await getJson<RunView>(`${this.side.api}/exchanges/${this.exchange.id}/run`);
    this.runPane.replaceChildren(...renderRun(this.run, (seq) => this.link('run', seq)));
    this.markRunSelection();
  }

  private async loadAnswer(): Promise<void> {
    const view = await getJson<AnswerView>(`${this.side.api}/exchanges/${this.exchange.id}/answer`);
    this.answerPane.replaceChildren(...renderAnswer(view.answer));
  }

  private async loadSession(): Promise<void> {
    const view = await getJson<SessionView>(`${this.side.api}/exchanges/${this.exchange.id}/session`);
    // Keep the turns (and MCP tool schemas) the user opened or closed as they were across live refreshes.
    const folds = 'details[data-turn], details[data-tool]';
    const keyOf = (d: Element) => `${d.getAttribute('data-turn') ?? ''}/${d.getAttribute('data-tool') ?? ''}`;
    const opened = new Map([...this.sessionPane.querySelectorAll(folds)].map((d) => [keyOf(d), (d as HTMLDetailsElement).open]));
    this.sessionPane.replaceChildren(...renderSession(view, { startedMs: this.exchange.startedMs, link: (seq) => this.link('session', seq), linkIn: (exchangeId, seq) => `${this.side.exchangeHash}/${exchangeId}/message/${seq}` }));
    for (const d of this.sessionPane.querySelectorAll(folds)) {
      const was = opened.get(keyOf(d));
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
      this.detail.replaceChildren(h('p', { class: 'dim' }, this.tab === 'run' ? 'Select an event to see the state at that point.' : this.tab === 'session' ? 'Select a request, response or event to see the message.' : this.tab === 'answer' ? 'Select a message in the Messages tab to see its JSON.' : 'Select a message.'));
      return;
    }
    const [message, state] = await Promise.all([
      getJson<MessageDetail>(`${this.side.api}/messages/${this.exchange.id}/${seq}`).catch((e: Error) => e),
      this.hasState ? getJson<StateAt>(`${this.side.api}/exchanges/${this.exchange.id}/state?seq=${seq}`).catch((e: Error) => e) : Promise.resolve(undefined),
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
