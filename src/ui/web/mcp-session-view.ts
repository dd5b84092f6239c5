import type { McpCallRow, McpSessionView, SessionView } from '../api-types.js';
import { fmtMs, h, plural } from './dom.js';
import { at, seqLinkIn, seqs, type SessionCtx } from './session-links.js';

/** Characters of arguments or a result shown in a calls-table cell; the message has the rest. */
const CELL_CHARS = 160;
/** Calls drawn at most; the rest are in the message list. */
const MAX_CALL_ROWS = 2000;

/** An MCP session's view, told by what it holds besides the pairs: the calls (and the server's answer to initialize, its tools). */
export function isMcpSession(view: SessionView): view is McpSessionView {
  return Array.isArray((view as Partial<McpSessionView>).calls);
}

/**
 * The parts of an MCP session of its own: the server (name, version, protocol version, capabilities,
 * instructions), the tools it listed (description, input schema folded), and the calls as a table:
 * method, tool/resource/prompt, duration, arguments, result or error.
 */
export function mcpSections(view: McpSessionView, ctx: SessionCtx): HTMLElement[] {
  return [h('h3', {}, 'Server'), serverBox(view.server), h('h3', {}, `Tools (${view.tools.length})`), toolTable(view.tools), h('h3', {}, `Calls (${view.calls.length})`), callTable(view.calls, ctx)];
}

function serverBox(server: McpSessionView['server']): HTMLElement {
  if (server === null) return h('div', { class: 'dim', id: 'mcp-server' }, 'no answer to initialize');
  const info = isObject(server.serverInfo) ? server.serverInfo : {};
  const name = [text(info.title ?? info.name), text(info.version)].filter((s) => s !== '').join(' ');
  const capabilities = isObject(server.capabilities) ? Object.entries(server.capabilities) : [];
  return h(
    'div',
    { id: 'mcp-server' },
    h('div', {}, h('span', { class: 'mono' }, name || '(no serverInfo)'), h('span', { class: 'dim' }, ` · protocol ${text(server.protocolVersion) || '?'}`)),
    h(
      'div',
      { id: 'mcp-capabilities' },
      'capabilities: ',
      capabilities.length === 0 ? h('span', { class: 'dim' }, '(none)') : '',
      ...capabilities.map(([key, value], i) => h('span', { class: 'mono', 'data-capability': key }, `${i > 0 ? ', ' : ''}${key}${flagsOf(value)}`)),
    ),
    server.instructions === undefined ? '' : h('pre', { class: 'mcp-instructions' }, text(server.instructions)),
  );
}

/** A capability's own flags, `(listChanged, subscribe)`, the ones set true. */
function flagsOf(value: unknown): string {
  if (!isObject(value)) return '';
  const set = Object.entries(value).filter(([, v]) => v === true).map(([k]) => k);
  return set.length === 0 ? '' : ` (${set.join(', ')})`;
}

function toolTable(tools: unknown[]): HTMLElement {
  if (tools.length === 0) return h('div', { class: 'dim', id: 'mcp-tools' }, '(none listed)');
  const table = h('table', { class: 'sess mcp-tools', id: 'mcp-tools' }, h('tr', {}, h('th', {}, 'tool'), h('th', {}, 'description'), h('th', {}, 'input schema')));
  for (const tool of tools) {
    const t = isObject(tool) ? tool : {};
    const schema = h('details', { class: 'schema', 'data-tool': text(t.name) }, h('summary', {}, schemaSummary(t.inputSchema)), h('pre', {}, JSON.stringify(t.inputSchema ?? null, null, 2)));
    table.appendChild(h('tr', { 'data-tool': text(t.name) }, h('td', { class: 'mono' }, text(t.name)), h('td', { class: 'wrap' }, text(t.title ?? t.description)), h('td', {}, schema)));
  }
  return table;
}

/** `message, count?`: the properties an input schema names, required ones plain, optional ones marked. */
function schemaSummary(schema: unknown): string {
  if (!isObject(schema) || !isObject(schema.properties)) return 'schema';
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(schema.properties).map((k) => (required.has(k) ? k : `${k}?`));
  return names.length === 0 ? 'no arguments' : names.join(', ');
}

function callTable(calls: McpCallRow[], ctx: SessionCtx): HTMLElement {
  if (calls.length === 0) return h('div', { class: 'dim', id: 'mcp-calls' }, '(none)');
  // The long cells last: cut to the pane, they leave the short ones in view.
  const head = h('tr', {}, ...['request', '', 'method', 'name'].map((c) => h('th', {}, c)), h('th', { class: 'num' }, 'duration'), h('th', {}, 'arguments'), h('th', {}, 'response: result or error'));
  const table = h('table', { class: 'sess mcp-calls', id: 'mcp-calls' }, head);
  for (const c of calls.slice(0, MAX_CALL_ROWS)) {
    const outcome = outcomeOf(c);
    table.appendChild(
      h(
        'tr',
        { class: `pair ${outcome.state}`, 'data-seqs': c.exchangeId === undefined ? seqs(c.seq, c.responseExchangeId === undefined ? c.responseSeq : null) : '', 'data-method': c.method },
        h('td', {}, seqLinkIn(c.exchangeId, c.seq, ctx), ' ', h('span', { class: 'dim' }, at(c.atMs, ctx))),
        h('td', { class: `msg-dir ${c.from}`, title: c.from === 'client' ? 'sent by the client' : 'sent by the server' }, c.from === 'client' ? '→' : '←'),
        h('td', { class: 'mono' }, c.method),
        h('td', { class: 'mono' }, c.name ?? ''),
        h('td', { class: 'num' }, c.durationMs === null ? '' : fmtMs(c.durationMs)),
        cell(c.arguments === null || c.arguments === undefined ? '' : JSON.stringify(c.arguments), 'mono args'),
        cell(outcome.text, `result ${outcome.state === 'ok' ? '' : 'status-bad'}`, c.responseSeq === null ? undefined : seqLinkIn(c.responseExchangeId ?? c.exchangeId, c.responseSeq, ctx)),
      ),
    );
  }
  const more = calls.length - MAX_CALL_ROWS;
  if (more > 0) table.appendChild(h('tr', {}, h('td', { colspan: 7, class: 'dim' }, `… ${more} more calls in the message list`)));
  return table;
}

/** A cell of one line (the stylesheet cuts it to the column), the whole text in its title, after `link` if any. */
function cell(full: string, cls: string, link?: HTMLElement): HTMLElement {
  const cut = full.length > CELL_CHARS ? `${full.slice(0, CELL_CHARS)}…` : full;
  return h('td', { class: cls, title: full === '' ? null : full }, link ?? '', link ? ' ' : '', cut);
}

/**
 * What a call's answer says, in a line: a tool's content (text, or the kind of each other block),
 * a tool error (`isError`) as an error, a JSON-RPC error as its code and message, or the result.
 */
function outcomeOf(c: McpCallRow): { state: 'ok' | 'failed' | 'unpaired'; text: string } {
  if (c.responseSeq === null) return { state: 'unpaired', text: 'no response' };
  if (c.error !== undefined) {
    const e = isObject(c.error) ? c.error : {};
    return { state: 'failed', text: `error ${[text(e.code), text(e.message)].filter((s) => s !== '').join(' ') || JSON.stringify(c.error)}` };
  }
  const result = isObject(c.result) ? c.result : undefined;
  if (c.method === 'tools/call' && result !== undefined && Array.isArray(result.content)) {
    const content = result.content.map((block) => (isObject(block) ? (block.type === 'text' ? text(block.text) : `[${text(block.type)}${block.mimeType ? ` ${text(block.mimeType)}` : ''}]`) : '')).join(' ');
    const structured = result.structuredContent === undefined ? '' : ` structured ${JSON.stringify(result.structuredContent)}`;
    return result.isError === true ? { state: 'failed', text: `tool error: ${content}${structured}` } : { state: 'ok', text: `${content}${structured}`.trim() };
  }
  const listed = result && listOf(c.method, result);
  if (listed !== undefined) return { state: 'ok', text: listed };
  if (c.method === 'initialize' && result !== undefined) return { state: 'ok', text: `protocol ${text(result.protocolVersion)}` };
  return { state: 'ok', text: c.result === undefined ? '' : JSON.stringify(c.result) };
}

/** A listing's answer by what it lists: `2 tools: echo, add` (and `, more pages` when it has a cursor). */
function listOf(method: string, result: Record<string, unknown>): string | undefined {
  const listing = ({ 'tools/list': ['tools', 'tool'], 'prompts/list': ['prompts', 'prompt'], 'resources/list': ['resources', 'resource'], 'resources/templates/list': ['resourceTemplates', 'resource template'] } as Record<string, [string, string]>)[method];
  const list = listing === undefined ? undefined : result[listing[0]];
  if (listing === undefined || !Array.isArray(list)) return undefined;
  const names = list.map((item) => (isObject(item) ? text(item.name ?? item.uri ?? item.uriTemplate) : ''));
  return `${plural(list.length, listing[1])}${names.length > 0 ? `: ${names.join(', ')}` : ''}${result.nextCursor === undefined ? '' : ', more pages'}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A recorded scalar as text; objects as JSON (a peer may send anything where text belongs). */
function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}
