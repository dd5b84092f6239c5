import type { PiSessionView, ProtocolViews, ViewContext, ViewMessage } from '../inspector-views.js';
import { errorText, objectOf, PairBook } from '../session-pairs.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';

/**
 * A Pi RPC session (framed `pi-daemon-rpc` or raw `pi-rpc`) as the inspector shows it: commands
 * paired with their responses, by id, and id-less ones by command type, oldest first (as Pi
 * correlates them); the event stream, with the gaps in the framed envelopes' `sequence` marked.
 */
export function piSession(exchangeId: number, mode: 'framed' | 'raw', messages: Iterable<ViewMessage>, context: Pick<ViewContext, 'label'>): PiSessionView {
  const view: PiSessionView = { kind: 'pi', exchangeId, mode, pairs: [], unanswered: 0, events: [], gaps: [], other: [] };
  const book = new PairBook();
  let lastSequence: number | null = null;
  const other = (m: ViewMessage) => view.other.push({ seq: m.seq, sender: m.sender, atMs: m.tOffsetMs, label: context.label(m.json, m) });
  const keyOf = (id: unknown, type: unknown) => (id === undefined || id === null ? `type:${String(type)}` : `id:${JSON.stringify(id)}`);

  for (const m of messages) {
    const msg = objectOf(m);
    if (msg === undefined) continue;
    let command: JsonObject | undefined;
    let response: JsonObject | undefined;
    let event: JsonObject | undefined;
    let sequence: number | null = null;
    if (mode === 'framed') {
      if (m.sender === 'client' && msg.kind === 'command' && isJsonObject(msg.command)) command = msg.command;
      else if (m.sender === 'client' && msg.kind === 'extension_ui_response' && isJsonObject(msg.response)) command = { ...msg.response, type: 'extension_ui_response' };
      else if (m.sender === 'server' && msg.kind === 'response' && isJsonObject(msg.response)) response = msg.response;
      else if (m.sender === 'server' && msg.kind === 'event' && isJsonObject(msg.event)) {
        event = msg.event;
        if (typeof msg.sequence === 'number') sequence = msg.sequence;
      }
    } else if (typeof msg.type === 'string') {
      // Stock Pi acknowledges no extension_ui_response: it is not a command waiting for an answer.
      if (m.sender === 'client' && msg.type !== 'extension_ui_response') command = msg;
      else if (m.sender === 'server' && msg.type === 'response') response = msg;
      else if (m.sender === 'server') event = msg;
    }

    if (command !== undefined) {
      book.request(keyOf(command.id, command.type), m, String(command.type ?? '?'), command.id);
    } else if (response !== undefined) {
      const ok = response.success === true;
      book.answer(keyOf(response.id, response.command), m, { ok, error: ok ? null : (errorText(response.error) ?? 'success: false'), label: String(response.command ?? '?'), id: response.id });
    } else if (event !== undefined) {
      if (sequence !== null && lastSequence !== null && sequence > lastSequence + 1) {
        view.gaps.push({ seq: m.seq, after: lastSequence, next: sequence, missing: sequence - lastSequence - 1 });
      }
      if (sequence !== null) lastSequence = sequence;
      view.events.push({ seq: m.seq, atMs: m.tOffsetMs, type: typeof event.type === 'string' ? event.type : '?', sequence });
    } else {
      other(m);
    }
  }
  view.pairs = book.pairs();
  view.unanswered = book.unanswered;
  return view;
}

/** The inspector's Pi session tab, for framed (pi-daemon-rpc) or raw (pi-rpc) RPC. */
export function piSessionViews(mode: 'framed' | 'raw'): ProtocolViews {
  return { tab: { route: 'session', label: 'Pi session', build: (exchangeId, messages, context) => piSession(exchangeId, mode, messages, context) } };
}
