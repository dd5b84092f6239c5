/**
 * The inspector page: a hash router over four views (timeline, exchange with its messages, AG-UI
 * run or Pi/ACP session, diff), fed by the JSON API of `proxy view` / `proxy record --ui`. With a
 * live recording it listens to /api/live (SSE) and refreshes what is on screen when it grows.
 */
import type { ExchangeSummary, InitialData, LivePush, RecordingSummary } from '../api-types.js';
import { getJson } from './api.js';
import { fmtMs, h, plural } from './dom.js';
import { diffView } from './diff-view.js';
import { ExchangeView, type ExchangeTab } from './exchange-view.js';
import { listenForListKeys } from './list-keys.js';
import { SIDE_A, SIDE_B } from './recording-side.js';
import { TimelineView } from './timeline.js';

interface Route {
  view: 'timeline' | 'exchange' | 'diff';
  /** Which recording an exchange route reads: A (this one) or B (the --diff one). */
  side?: 'a' | 'b';
  exchange?: number;
  tab?: ExchangeTab;
  seq?: number;
}

let recording: RecordingSummary;
let current: { route: Route; timeline?: TimelineView; exchange?: ExchangeView } | undefined;
let routeTicket = 0;

function parseRoute(hash: string): Route {
  let parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  if (parts[0] === 'diff') return { view: 'diff' };
  const side = parts[0] === 'b' ? 'b' : 'a';
  if (side === 'b') parts = parts.slice(1);
  if (parts[0] === 'exchange' && /^\d+$/.test(parts[1] ?? '')) {
    const route: Route = { view: 'exchange', side, exchange: Number(parts[1]), tab: 'messages' };
    let i = 2;
    if (parts[i] === 'run' || parts[i] === 'session' || parts[i] === 'answer') {
      route.tab = parts[i] as ExchangeTab;
      i++;
    }
    if (parts[i] === 'message' && /^\d+$/.test(parts[i + 1] ?? '')) route.seq = Number(parts[i + 1]);
    return route;
  }
  return { view: 'timeline' };
}

const main = () => document.getElementById('view')!;

function setNav(view: Route['view']): void {
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.getAttribute('data-nav') === view);
}

/**
 * Draws the view the hash names. `initialRows`, the exchanges the page came with, let the first
 * timeline draw before this function awaits anything.
 */
async function route(initialRows?: ExchangeSummary[]): Promise<void> {
  const ticket = ++routeTicket;
  const r = parseRoute(location.hash);
  setNav(r.view === 'exchange' && r.side === 'b' ? 'diff' : r.view);
  try {
    if (r.view === 'exchange') {
      const side = r.side === 'b' ? SIDE_B : SIDE_A;
      let view = current?.exchange;
      if (view === undefined || view.id !== r.exchange || view.side !== side) {
        view = await ExchangeView.create(r.exchange!, side, side === SIDE_B ? null : recording.target);
        if (ticket !== routeTicket) return;
        main().replaceChildren(view.element);
      }
      current = { route: r, exchange: view };
      await view.show(r.tab ?? 'messages', r.seq ?? null);
    } else if (r.view === 'diff') {
      const el = await diffView();
      if (ticket !== routeTicket) return;
      current = { route: r };
      main().replaceChildren(el);
    } else {
      const view = new TimelineView(recording);
      current = { route: r, timeline: view };
      main().replaceChildren(view.element);
      if (initialRows !== undefined) view.draw(initialRows);
      else await view.refresh();
    }
    document.body.setAttribute('data-ready', r.view);
  } catch (error) {
    if (ticket !== routeTicket) return;
    main().replaceChildren(h('div', { class: 'error-box' }, (error as Error).message), h('p', { class: 'pad' }, h('a', { href: '#/' }, '← timeline')));
  }
}

function drawInfo(): void {
  const t = recording.totals;
  const info = document.getElementById('recording-info')!;
  info.textContent = `${recording.file} · ${plural(t.exchanges, 'exchange')} · ${plural(t.messages, 'message')} · ${t.invalid} invalid · ${plural(t.findings, 'finding')} · started ${recording.startedAt}${recording.endedAt ? ` · ${fmtMs(Date.parse(recording.endedAt) - Date.parse(recording.startedAt))}` : ''}`;
  info.title = info.textContent;
}

/** Coalesces bursts of live pushes into one refresh of what is on screen. */
let liveTimer = 0;
function onLive(push: LivePush): void {
  // A hello refreshes too: the page's own data may predate the connection.
  if (liveTimer) return;
  liveTimer = window.setTimeout(async () => {
    liveTimer = 0;
    recording = await getJson<RecordingSummary>('/api/recording');
    drawInfo();
    await current?.timeline?.refresh();
    await current?.exchange?.refresh();
  }, 50);
}

/** The data the server put in the page, if it did (an older or cached page may not have it). */
function initialData(): InitialData | undefined {
  const text = document.getElementById('initial-data')?.textContent;
  if (!text) return undefined;
  try {
    return JSON.parse(text) as InitialData;
  } catch {
    return undefined;
  }
}

/** Runs without awaiting anything before the first view is drawn when the page carries its data. */
async function start(): Promise<void> {
  const initial = initialData();
  recording = initial?.recording ?? (await getJson<RecordingSummary>('/api/recording'));
  document.title = `inspector · ${recording.file.split('/').pop()}`;
  drawInfo();
  if (recording.diff) document.getElementById('nav')!.appendChild(h('a', { href: '#/diff', 'data-nav': 'diff' }, 'Diff'));
  if (recording.live) {
    document.getElementById('live-indicator')!.hidden = false;
    const source = new EventSource('/api/live');
    source.onmessage = (e) => onLive(JSON.parse(e.data as string) as LivePush);
    source.onopen = () => document.body.setAttribute('data-live', 'connected');
    source.onerror = () => document.body.setAttribute('data-live', 'reconnecting');
  }
  window.addEventListener('hashchange', () => void route());
  listenForListKeys(
    () => current?.exchange !== undefined && current.route.view === 'exchange' && current.exchange.listShown,
    (delta) => current?.exchange?.step(delta) ?? Promise.resolve(),
  );
  await route(initial?.exchanges);
}

void start().catch((error: Error) => {
  document.getElementById('view')!.replaceChildren(h('div', { class: 'error-box' }, `cannot load the recording: ${error.message}`));
});
