import { displayLabel } from './display-label.js';
import { protocolsWithAnswer, protocolsWithTab } from './exchange-views.js';
import { viewsOf } from '../../protocols/modules.js';
import { HttpError } from './http-error.js';
import { type InspectorData, MAX_PAGE } from './inspector-data.js';
import type { ExchangeDetail } from '../api-types.js';
import type { ProtocolViews, ViewMessage } from '../../protocols/inspector-views.js';

/**
 * The read routes over one recording, below `/api/` (the recording shown) or `/api/b/` (the
 * `--diff` recording, so the diff view can link to its side B): the exchanges, one exchange, its
 * messages page by page, one message, and the views its protocol declares (ProtocolModule.views):
 * the state at a message, and the conversation's tab (`run` or `session`).
 * Returns undefined for a path that is none of them.
 */
export function recordingRoute(data: InspectorData, parts: string[], params: URLSearchParams, flags: { live: boolean; diff: boolean }): unknown {
  const num = (text: string | null | undefined, what: string, fallback?: number): number => {
    if ((text === null || text === undefined || text === '') && fallback !== undefined) return fallback;
    // Digits only, and exact: 1e30 is an integer to JavaScript, but SQLite refuses it as a row offset.
    const n = /^\d+$/.test(text ?? '') ? Number(text) : NaN;
    if (!Number.isSafeInteger(n)) throw new HttpError(400, `${what} must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`);
    return n;
  };
  const flag = (text: string | null, what: string): boolean => {
    if (text === null || text === '' || text === '0' || text === 'false') return false;
    if (text === '1' || text === 'true') return true;
    throw new HttpError(400, `${what} must be 1, true, 0 or false`);
  };
  const exchangeOf = (text: string) => {
    const id = num(text, 'exchange id');
    const exchange = data.exchange(id);
    if (exchange === undefined) throw new HttpError(404, `no exchange ${id}`);
    return exchange;
  };
  const [first, second, third] = parts;
  if (first === 'recording' && parts.length === 1) return data.recording(flags);
  if (first === 'exchanges' && parts.length === 1) {
    return data.exchanges({
      protocol: params.get('protocol') || undefined,
      transport: params.get('transport') || undefined,
      invalidOnly: flag(params.get('invalid'), 'invalid'),
      q: params.get('q') || undefined,
      host: params.get('host') || undefined,
    });
  }
  if (first === 'exchanges' && second !== undefined && parts.length === 2) return exchangeOf(second);
  if (first === 'exchanges' && second !== undefined && parts.length === 3) {
    const exchange = exchangeOf(second);
    if (third === 'messages') {
      return data.messages(exchange.id, num(params.get('offset'), 'offset', 0), Math.min(MAX_PAGE, num(params.get('limit'), 'limit', 100)), flag(params.get('invalid'), 'invalid'));
    }
    const views = viewsOf(exchange.protocol);
    if (third === 'state') {
      if (views?.stateAt === undefined) throw new HttpError(404, `exchange ${exchange.id} is ${exchange.protocol ?? 'of no known protocol'}: it has no state view`);
      const seq = num(params.get('seq'), 'seq', Number.MAX_SAFE_INTEGER);
      return views.stateAt(data.walk(exchange.id, seq), seq);
    }
    if (third === 'answer') {
      if (views?.answer === undefined) throw new HttpError(404, `exchange ${exchange.id} is ${exchange.protocol ?? 'of no known protocol'}: it has no answer view (${protocolsWithAnswer()})`);
      // null: an exchange of an LLM API that holds no model answer (embeddings, the model list).
      return { exchangeId: exchange.id, answer: views.answer(data.walk(exchange.id)) };
    }
    if (third === 'run' || third === 'session') {
      const tab = views?.tab;
      if (tab?.route !== third) throw new HttpError(404, `exchange ${exchange.id} is ${exchange.protocol ?? 'of no known protocol'}: it has no ${third} view (${protocolsWithTab(third)})`);
      const messages = views?.sessionKey === undefined ? data.walk(exchange.id) : sessionMessages(data, exchange, views.sessionKey);
      return tab.build(exchange.id, messages, { findingsOf: (seq) => data.message(exchange.id, seq)?.findings ?? [], label: (value, m) => displayLabel(value, m) });
    }
  }
  if (first === 'messages' && second !== undefined && third !== undefined && parts.length === 3) {
    const message = data.message(num(second, 'exchange id'), num(third, 'seq'));
    if (message === undefined) throw new HttpError(404, `no message ${third} in exchange ${second}`);
    return message;
  }
  return undefined;
}

/**
 * The messages of every exchange of `exchange`'s session (ProtocolViews.sessionKey), in the order
 * they were recorded, each with its exchange; just its own when it names no session.
 */
function sessionMessages(data: InspectorData, exchange: ExchangeDetail, sessionKey: NonNullable<ProtocolViews['sessionKey']>): ViewMessage[] {
  const key = sessionKey(exchange);
  if (key === undefined) return [...data.walk(exchange.id)];
  const members = data
    .exchanges({ protocol: exchange.protocol ?? undefined })
    .map((e) => (e.id === exchange.id ? exchange : data.exchange(e.id)))
    .filter((e): e is ExchangeDetail => e !== undefined && sessionKey(e) === key);
  const messages = members.flatMap((e) => [...data.walk(e.id)].map((m) => ({ ...m, exchangeId: e.id })));
  // A stable sort: messages at the same offset keep their exchange's order.
  return messages.sort((x, y) => x.tOffsetMs - y.tOffsetMs);
}
