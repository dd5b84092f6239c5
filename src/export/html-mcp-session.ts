import type { McpSessionView, SessionView } from '../protocols/inspector-views.js';
import { isJsonObject } from '../core/json.js';
import { cutText, element, textIn } from './html-text.js';

/** Characters of a call's arguments or result shown in its cell; the messages have the rest. */
const CELL_CHARS = 400;
/** Calls listed at most; the rest are in the messages. */
const MAX_CALLS = 500;

/** An MCP session's view, told by what it holds besides the pairs (the inspector's test too). */
export function isMcpSession(view: SessionView): view is McpSessionView {
  return Array.isArray((view as Partial<McpSessionView>).calls);
}

/**
 * An MCP session in the HTML view, from the view the inspector's MCP session tab draws
 * (ProtocolViews.tab of the mcp module): the server and its protocol version, the tools it listed,
 * and each call with its duration, arguments and result or error.
 */
export function mcpSessionHtml(view: McpSessionView, members: readonly number[]): string {
  const parts: string[] = [];
  if (members.length > 1) parts.push(textIn('p', { class: 'dim' }, `one session over exchanges ${members.map((id) => `#${id}`).join(', ')}`));
  const info = view.server !== null && isJsonObject(view.server.serverInfo) ? view.server.serverInfo : {};
  const server = view.server === null ? 'no answer to initialize' : `${[text(info.title ?? info.name), text(info.version)].filter((s) => s !== '').join(' ') || '(no serverInfo)'} · protocol ${text(view.server.protocolVersion) || '?'}`;
  parts.push(element('h3', {}, textIn('span', {}, 'MCP server: ') + textIn('span', { class: 'mono' }, server)));
  if (view.tools.length > 0) {
    const rows = view.tools.map((tool) => {
      const t = isJsonObject(tool) ? tool : {};
      return element('tr', {}, textIn('td', { class: 'mono' }, text(t.name)) + textIn('td', {}, cutText(text(t.title ?? t.description), CELL_CHARS)));
    });
    parts.push(textIn('h3', {}, `Tools (${view.tools.length})`), element('table', { class: 'mcp-tools' }, element('tr', {}, textIn('th', {}, 'tool') + textIn('th', {}, 'description')) + rows.join('')));
  }
  const head = ['request', 'method', 'name', 'duration', 'arguments', 'result or error'].map((c) => textIn('th', {}, c)).join('');
  const rows = view.calls.slice(0, MAX_CALLS).map((c) => {
    const where = (exchange: number | undefined, seq: number | null) => (seq === null ? '-' : exchange === undefined ? `${seq}` : `#${exchange} ${seq}`);
    const outcome = c.error !== undefined ? textIn('td', { class: 'error' }, cutText(json(c.error), CELL_CHARS)) : c.responseSeq === null ? textIn('td', { class: 'warning' }, 'no answer') : textIn('td', { class: 'mono' }, cutText(json(c.result), CELL_CHARS));
    return element(
      'tr',
      {},
      textIn('td', {}, `${where(c.exchangeId, c.seq)} → ${where(c.responseExchangeId ?? c.exchangeId, c.responseSeq)}`) +
        textIn('td', { class: 'mono' }, c.method) +
        textIn('td', { class: 'mono' }, c.name ?? '') +
        textIn('td', {}, c.durationMs === null ? '-' : `${c.durationMs.toFixed(1)} ms`) +
        textIn('td', { class: 'mono' }, cutText(json(c.arguments), CELL_CHARS)) +
        outcome,
    );
  });
  if (view.calls.length > MAX_CALLS) rows.push(element('tr', {}, textIn('td', { class: 'more', colspan: 6 }, `${view.calls.length - MAX_CALLS} more calls: see the messages`)));
  parts.push(textIn('h3', {}, `Calls (${view.calls.length})`), element('table', { class: 'mcp-calls' }, element('tr', {}, head) + rows.join('')));
  return element('div', { class: 'mcp-session' }, parts.join(''));
}

function text(value: unknown): string {
  return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}

function json(value: unknown): string {
  return JSON.stringify(value ?? null) ?? '';
}
