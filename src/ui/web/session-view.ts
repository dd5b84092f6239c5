import type { AcpSessionView, AcpUpdateRow, PiSessionView, SessionFrame, SessionPair, SessionView } from '../api-types.js';
import { fmtMs, h, plural } from './dom.js';
import { isMcpSession, mcpSections } from './mcp-session-view.js';
import { at, seqLink, seqs, type SessionCtx } from './session-links.js';

/** Events drawn at most; the rest are in the message list. */
const MAX_EVENT_ROWS = 2000;

/** A Pi RPC session's view (its `kind` is `pi`), not one of turns. */
function isPiSession(view: SessionView): view is PiSessionView {
  return view.kind === 'pi';
}

type Ctx = SessionCtx;

/**
 * The Pi, ACP or MCP session of one exchange: requests paired with their responses (unanswered ones
 * flagged), then the Pi event stream with its sequence gaps, or the ACP turns with their
 * session/update notifications (collapsible); for MCP, the server, its tools and the calls with
 * their arguments and results instead of the pairs. Every seq links to the message.
 */
export function renderSession(view: SessionView, ctx: Ctx): HTMLElement[] {
  const parts: HTMLElement[] = [];
  const answered = view.pairs.filter((p) => p.requestSeq !== null && p.responseSeq !== null).length;
  const failed = view.pairs.filter((p) => p.ok === false).length;
  const facts = [
    isPiSession(view) ? `${view.mode} RPC` : `${view.kind.toUpperCase()} (JSON-RPC)`,
    `${answered} of ${view.pairs.filter((p) => p.requestSeq !== null).length} requests answered`,
    failed ? `${failed} failed` : null,
    isPiSession(view) ? plural(view.events.length, 'event') : isMcpSession(view) ? plural(view.tools.length, 'tool') : plural(view.turns.length, 'turn'),
  ].filter(Boolean);
  parts.push(h('div', { class: 'dim' }, facts.join(' · ')));
  if (view.unanswered > 0) parts.push(h('div', { class: 'outcome error', id: 'session-unanswered' }, `${view.unanswered} request${view.unanswered === 1 ? '' : 's'} never answered`));
  if (isPiSession(view) && view.gaps.length > 0) {
    const missing = view.gaps.reduce((n, g) => n + g.missing, 0);
    parts.push(h('div', { class: 'outcome interrupted', id: 'session-gaps' }, `${view.gaps.length} sequence gap${view.gaps.length === 1 ? '' : 's'}: ${missing} event${missing === 1 ? '' : 's'} missing`));
  }
  // An MCP session's calls table is its pairs, with their arguments and results.
  if (isMcpSession(view)) parts.push(...mcpSections(view, ctx));
  else parts.push(h('h3', {}, isPiSession(view) ? 'Commands and responses' : 'Requests and responses'), pairTable(view.pairs, ctx));
  if (isPiSession(view)) parts.push(...piEvents(view, ctx));
  else if (!isMcpSession(view)) parts.push(...acpTurns(view, ctx));
  if (view.other.length > 0) parts.push(h('h3', {}, `Other frames (${view.other.length})`), frameTable(view.other, ctx));
  return parts;
}

function pairTable(pairs: SessionPair[], ctx: Ctx): HTMLElement {
  if (pairs.length === 0) return h('div', { class: 'dim' }, '(none)');
  const table = h('table', { class: 'sess', id: 'session-pairs' }, h('tr', {}, h('th', {}, 'request'), h('th', {}, ''), h('th', {}, 'label'), h('th', {}, 'id'), h('th', {}, 'response'), h('th', {}, 'result'), h('th', { class: 'num' }, 'latency')));
  for (const p of pairs) {
    const result =
      p.requestSeq === null
        ? h('span', { class: 'status-bad' }, 'response to no request')
        : p.responseSeq === null
          ? h('span', { class: 'status-bad' }, 'no response')
          : p.ok
            ? h('span', { class: 'status-ok' }, 'ok')
            : h('span', { class: 'status-bad' }, `error ${p.error ?? ''}`);
    const state = p.requestSeq === null || p.responseSeq === null ? 'unpaired' : p.ok ? 'ok' : 'failed';
    table.appendChild(
      h(
        'tr',
        { class: `pair ${state}`, 'data-seqs': seqs(p.requestSeq, p.responseSeq) },
        h('td', {}, seqLink(p.requestSeq, ctx), ' ', h('span', { class: 'dim' }, at(p.requestAtMs, ctx))),
        h('td', { class: `msg-dir ${p.from}`, title: p.from === 'client' ? 'sent by the client' : 'sent by the server' }, p.from === 'client' ? '→' : '←'),
        h('td', { class: 'mono' }, p.label),
        h('td', { class: 'mono dim' }, p.id ?? ''),
        h('td', {}, seqLink(p.responseSeq, ctx)),
        h('td', {}, result),
        h('td', { class: 'num' }, p.latencyMs === null ? '' : fmtMs(p.latencyMs)),
      ),
    );
  }
  return table;
}

function frameTable(frames: SessionFrame[], ctx: Ctx): HTMLElement {
  const table = h('table', { class: 'sess' });
  for (const f of frames) {
    table.appendChild(h('tr', { 'data-seqs': f.seq }, h('td', {}, seqLink(f.seq, ctx)), h('td', { class: `msg-dir ${f.sender}` }, f.sender === 'client' ? '→' : '←'), h('td', { class: 'mono' }, f.label), h('td', { class: 'dim' }, at(f.atMs, ctx))));
  }
  return table;
}

function piEvents(view: PiSessionView, ctx: Ctx): HTMLElement[] {
  const gapAt = new Map(view.gaps.map((g) => [g.seq, g]));
  const table = h('table', { class: 'sess', id: 'session-events' });
  for (const e of view.events.slice(0, MAX_EVENT_ROWS)) {
    const gap = gapAt.get(e.seq);
    if (gap !== undefined) {
      table.appendChild(h('tr', { class: 'gap' }, h('td', { colspan: 4 }, `gap: sequence ${gap.after + 1}${gap.missing > 1 ? `–${gap.next - 1}` : ''} missing (${gap.missing} event${gap.missing === 1 ? '' : 's'})`)));
    }
    table.appendChild(
      h('tr', { 'data-seqs': e.seq }, h('td', {}, seqLink(e.seq, ctx)), h('td', { class: 'num dim' }, e.sequence === null ? '' : `seq ${e.sequence}`), h('td', { class: 'mono' }, e.type), h('td', { class: 'dim' }, at(e.atMs, ctx))),
    );
  }
  const more = view.events.length - MAX_EVENT_ROWS;
  const parts = [h('h3', {}, `Events (${view.events.length})`), view.events.length === 0 ? h('div', { class: 'dim' }, '(none)') : table];
  if (more > 0) parts.push(h('div', { class: 'dim' }, `… ${more} more events in the message list`));
  return parts;
}

function updateGroup(title: Node | string, rows: AcpUpdateRow[], ctx: Ctx, attrs: Record<string, string | number>, open: boolean): HTMLElement {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.update, (counts.get(r.update) ?? 0) + 1);
  const table = h('table', { class: 'sess' });
  for (const r of rows.slice(0, MAX_EVENT_ROWS)) {
    table.appendChild(h('tr', { 'data-seqs': r.seq }, h('td', {}, seqLink(r.seq, ctx)), h('td', { class: 'mono' }, r.update), h('td', { class: 'dim' }, at(r.atMs, ctx))));
  }
  const details = h(
    'details',
    { class: 'turn', ...attrs },
    h('summary', {}, title, h('span', { class: 'dim' }, ` · ${rows.length} update${rows.length === 1 ? '' : 's'}${counts.size ? ` (${[...counts].map(([k, n]) => `${k} ${n}`).join(', ')})` : ''}`)),
    table,
  );
  details.open = open;
  return details;
}

function acpTurns(view: AcpSessionView, ctx: Ctx): HTMLElement[] {
  const parts: HTMLElement[] = [h('h3', {}, `Turns (${view.turns.length})`)];
  view.turns.forEach((t, i) => {
    const end = t.responseSeq === null ? 'no response' : t.ok ? (t.stopReason ?? 'answered') : `error ${t.stopReason ?? ''}`;
    const title = h(
      'span',
      {},
      `Turn ${i + 1} `,
      seqLink(t.promptSeq, ctx),
      ` session/prompt${t.sessionId ? ` (${t.sessionId})` : ''} → `,
      h('span', { class: t.responseSeq !== null && t.ok ? 'status-ok' : 'status-bad' }, end),
      t.responseSeq === null ? '' : h('span', {}, ' ', seqLink(t.responseSeq, ctx), ` in ${fmtMs(t.durationMs)}`),
    );
    parts.push(updateGroup(title, t.updates, ctx, { 'data-turn': i + 1 }, view.turns.length <= 3));
  });
  if (view.outsideTurns.length > 0) parts.push(updateGroup('Outside any turn', view.outsideTurns, ctx, { 'data-turn': 'outside' }, false));
  return parts;
}
