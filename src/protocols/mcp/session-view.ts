import type { McpCallRow, McpSessionView, ProtocolViews, SessionFacts, ViewContext, ViewMessage } from '../inspector-views.js';
import { errorText, idText, objectOf, PairBook } from '../session-pairs.js';
import { isJsonObject } from '../../core/json.js';
import { sessionIdOf } from './http-sessions.js';

/** Notifications too many to list one by one; the message list has them. */
const QUIET: ReadonlySet<unknown> = new Set(['notifications/progress', 'notifications/message']);

/**
 * An MCP session's tab. Over Streamable HTTP a session spans many exchanges (sessionKey), and
 * `messages` holds all of theirs: the server, its tools and the calls come from the whole session
 * (each call naming the exchange that carried it, when not this one), the pairs and the other
 * messages from this exchange, whose message list they link into.
 */
export function mcpSession(exchangeId: number, messages: Iterable<ViewMessage>, context: Pick<ViewContext, 'label'>): McpSessionView {
  const view: McpSessionView = { kind: 'mcp', exchangeId, pairs: [], unanswered: 0, turns: [], outsideTurns: [], other: [], server: null, tools: [], calls: [] };
  const book = new PairBook();
  const open = new Map<string, McpCallRow>();
  const tools = new Map<string, unknown>();
  for (const m of messages) {
    const elsewhere = m.exchangeId !== undefined && m.exchangeId !== exchangeId ? { exchangeId: m.exchangeId } : undefined;
    const msg = objectOf(m);
    if (msg === undefined) {
      if (m.channel !== 'close' && !elsewhere) view.other.push({ seq: m.seq, sender: m.sender, atMs: m.tOffsetMs, label: context.label(m.json, m) });
      continue;
    }
    const hasId = msg.id !== undefined && msg.id !== null;
    if (typeof msg.method === 'string' && hasId) {
      const key = `${m.sender}:${JSON.stringify(msg.id)}`;
      const params = isJsonObject(msg.params) ? msg.params : {};
      const named = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : null;
      if (!elsewhere) book.request(key, m, named === null ? msg.method : `${msg.method} ${named}`, msg.id);
      const { _meta: _ignored, ...rest } = params;
      const call: McpCallRow = { seq: m.seq, atMs: m.tOffsetMs, responseSeq: null, from: m.sender, method: msg.method, id: idText(msg.id), name: named, arguments: params.arguments ?? (Object.keys(rest).length > 0 ? rest : null), durationMs: null, ...elsewhere };
      view.calls.push(call);
      open.set(key, call);
    } else if (typeof msg.method === 'string') {
      if (!QUIET.has(msg.method) && !elsewhere) view.other.push({ seq: m.seq, sender: m.sender, atMs: m.tOffsetMs, label: msg.method });
    } else if (hasId && ('result' in msg || 'error' in msg)) {
      const key = `${m.sender === 'client' ? 'server' : 'client'}:${JSON.stringify(msg.id)}`;
      const ok = !('error' in msg);
      const err = isJsonObject(msg.error) ? msg.error : undefined;
      const error = ok ? null : err !== undefined ? `${String(err.code ?? '')}${err.message === undefined ? '' : ` ${String(err.message)}`}`.trim() : errorText(msg.error);
      if (!elsewhere) book.answer(key, m, { ok, error, label: 'response', id: msg.id });
      const call = open.get(key);
      if (call === undefined) continue;
      open.delete(key);
      call.responseSeq = m.seq;
      if (m.exchangeId !== undefined && m.exchangeId !== (call.exchangeId ?? exchangeId)) call.responseExchangeId = m.exchangeId;
      call.durationMs = Math.max(0, m.tOffsetMs - call.atMs);
      if (ok) call.result = msg.result;
      else call.error = msg.error;
      const result = isJsonObject(msg.result) ? msg.result : undefined;
      if (result && call.method === 'initialize') {
        view.server = { protocolVersion: result.protocolVersion, capabilities: result.capabilities, serverInfo: result.serverInfo, ...(result.instructions === undefined ? {} : { instructions: result.instructions }) };
      }
      if (result && call.method === 'tools/list' && Array.isArray(result.tools)) {
        for (const tool of result.tools) if (isJsonObject(tool)) tools.set(String(tool.name), tool);
      }
    } else if (!elsewhere) {
      view.other.push({ seq: m.seq, sender: m.sender, atMs: m.tOffsetMs, label: context.label(msg, m) });
    }
  }
  view.pairs = book.pairs();
  view.unanswered = book.unanswered;
  view.tools = [...tools.values()];
  return view;
}

/**
 * A Streamable HTTP session's exchanges share its `Mcp-Session-Id`: every request after initialize
 * sends it, and the answer to initialize issues it. The older HTTP+SSE transport, whose GET stream
 * names its session only in an event, and stdio (one exchange a session) have none.
 */
export function mcpSessionKey(exchange: SessionFacts): string | undefined {
  if (exchange.transport !== 'http' && exchange.transport !== 'sse') return undefined;
  return sessionIdOf(exchange.requestHeaders ?? undefined) ?? sessionIdOf(exchange.responseHeaders ?? undefined);
}

/** The inspector's MCP session tab, drawn by the session renderer. */
export const mcpViews: ProtocolViews = { tab: { route: 'session', label: 'MCP session', build: mcpSession }, sessionKey: mcpSessionKey };
