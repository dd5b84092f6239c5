import type { AcpSessionView, AcpTurn, AcpUpdateRow, ProtocolViews, ViewContext, ViewMessage } from '../inspector-views.js';
import { errorText, objectOf, PairBook } from '../session-pairs.js';
import { isJsonObject } from '../../core/json.js';

/**
 * An ACP connection as the inspector shows it: JSON-RPC requests, from either side, paired with
 * their responses by id; `session/update` notifications grouped by turn, a turn running from a
 * `session/prompt` request to its response (by sessionId when several prompts are open).
 */
export function acpSession(exchangeId: number, messages: Iterable<ViewMessage>, context: Pick<ViewContext, 'label'>): AcpSessionView {
  const view: AcpSessionView = { kind: 'acp', exchangeId, pairs: [], unanswered: 0, turns: [], outsideTurns: [], other: [] };
  const book = new PairBook();
  const openTurns = new Map<string, AcpTurn>();

  for (const m of messages) {
    const msg = objectOf(m);
    if (msg === undefined) continue;
    const hasId = msg.id !== undefined && msg.id !== null;
    if (typeof msg.method === 'string' && hasId) {
      const key = `${m.sender}:${JSON.stringify(msg.id)}`;
      book.request(key, m, msg.method, msg.id);
      if (msg.method === 'session/prompt' && m.sender === 'client') {
        const params = isJsonObject(msg.params) ? msg.params : {};
        const turn: AcpTurn = {
          promptSeq: m.seq,
          responseSeq: null,
          sessionId: typeof params.sessionId === 'string' ? params.sessionId : null,
          stopReason: null,
          ok: null,
          startMs: m.tOffsetMs,
          durationMs: null,
          updates: [],
        };
        view.turns.push(turn);
        openTurns.set(key, turn);
      }
    } else if (typeof msg.method === 'string') {
      if (msg.method !== 'session/update') {
        view.other.push({ seq: m.seq, sender: m.sender, atMs: m.tOffsetMs, label: msg.method });
        continue;
      }
      const params = isJsonObject(msg.params) ? msg.params : {};
      const update = isJsonObject(params.update) && typeof params.update.sessionUpdate === 'string' ? params.update.sessionUpdate : '?';
      const row: AcpUpdateRow = { seq: m.seq, atMs: m.tOffsetMs, sessionId: typeof params.sessionId === 'string' ? params.sessionId : null, update };
      const open = [...openTurns.values()];
      const turn = open.filter((t) => row.sessionId === null || t.sessionId === null || t.sessionId === row.sessionId).pop();
      (turn?.updates ?? view.outsideTurns).push(row);
    } else if (hasId && ('result' in msg || 'error' in msg)) {
      const key = `${m.sender === 'client' ? 'server' : 'client'}:${JSON.stringify(msg.id)}`;
      const ok = !('error' in msg);
      const err = isJsonObject(msg.error) ? msg.error : undefined;
      const error = ok ? null : err !== undefined ? `${String(err.code ?? '')}${err.message === undefined ? '' : ` ${String(err.message)}`}`.trim() : errorText(msg.error);
      const turn = openTurns.get(key);
      book.answer(key, m, { ok, error, label: turn ? 'session/prompt' : 'response', id: msg.id });
      if (turn !== undefined) {
        openTurns.delete(key);
        const result = isJsonObject(msg.result) ? msg.result : {};
        turn.responseSeq = m.seq;
        turn.ok = ok;
        turn.stopReason = ok ? (typeof result.stopReason === 'string' ? result.stopReason : null) : (err !== undefined ? errorText(err.message) : error);
        turn.durationMs = Math.max(0, m.tOffsetMs - turn.startMs);
      }
    } else {
      view.other.push({ seq: m.seq, sender: m.sender, atMs: m.tOffsetMs, label: context.label(msg, m) });
    }
  }
  view.pairs = book.pairs();
  view.unanswered = book.unanswered;
  return view;
}

/** The inspector's ACP session tab. */
export const acpViews: ProtocolViews = { tab: { route: 'session', label: 'ACP session', build: acpSession } };
