import { basename } from 'node:path';
import { count } from '../core/plural.js';
import { exchangeFindings } from '../core/exchange-findings.js';
import { exchangeVerdict, type ExchangeVerdict } from '../core/exchange-verdict.js';
import { outcomeText } from '../core/exchange-ending.js';
import type { Finding } from '../core/finding.js';
import { messageLabel } from '../core/message-label.js';
import { tlsText } from '../core/tls-text.js';
import { findingPlace } from '../protocols/finding-place.js';
import type { ViewContext, ViewMessage } from '../protocols/inspector-views.js';
import { viewMessage } from '../protocols/view-message.js';
import { viewsOf } from '../protocols/modules.js';
import type { ExchangeRow, MessageRow, RecordingReader } from '../store/recording-reader.js';
import { messageValue } from '../store/message-value.js';
import { protocolEvidenceText } from '../store/protocol-evidence.js';
import { answerHtml } from './html-answer.js';
import { isMcpSession, mcpSessionHtml } from './html-mcp-session.js';
import { HTML_VIEW_STYLE } from './html-style.js';
import { cutText, element, htmlText, textIn } from './html-text.js';

export interface HtmlViewOptions {
  /** What the page calls the recording (the file as given). */
  name: string;
  /** Messages listed per exchange; the rest are counted on a `N more messages` line. Default 200. */
  messagesPerExchange?: number;
  /** Characters of a message body shown; the rest are counted. Default 4000. */
  bodyChars?: number;
  /** Called once per message read (a progress line). */
  onMessage?: (n: number) => void;
}

/**
 * A recording as one self-contained HTML page, for a reviewer who opens it from a CI artifact: the
 * exchanges as `show` lists them, then each with its messages, their verdicts and findings (the
 * stored ones, as `show`, `findings` and `validate` read them, by the same functions), its model
 * answer and its MCP session where its protocol builds them (ProtocolModule.views, as the inspector
 * draws them). It loads nothing and runs no script (its Content-Security-Policy allows neither), all
 * recorded text is escaped, and each exchange is written as it is read, a bounded number of messages
 * each, so a large recording is never one string. What it shows is what was stored: redacted secrets
 * stay `<redacted>`.
 */
export function writeHtmlView(reader: RecordingReader, write: (html: string) => void, options: HtmlViewOptions): void {
  const limits = { messages: options.messagesPerExchange ?? 200, body: options.bodyChars ?? 4000 };
  const info = reader.recording();
  const totals = reader.totals();
  const rows = reader.exchanges();
  const sessions = sessionsOf(rows);
  const title = `agent-proxy: ${basename(options.name)}`;
  write(
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"/>' +
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'"/>` +
      '<meta name="viewport" content="width=device-width, initial-scale=1"/>' +
      textIn('title', {}, title) +
      element('style', {}, HTML_VIEW_STYLE) +
      '</head>\n<body>\n',
  );
  write(
    element(
      'header',
      {},
      textIn('h1', {}, options.name) +
        textIn('p', { class: 'meta' }, `target ${info.target ?? '-'} · started ${info.startedAt}${info.endedAt ? ` · ended ${info.endedAt}` : ' · not closed'} · agent-proxy ${info.toolVersion}`) +
        textIn('p', {}, [count(totals.exchanges, 'exchange'), count(totals.messages, 'message'), `${totals.invalid} invalid`, count(totals.findings, 'finding')].join(', ')),
    ) + '\n',
  );
  write(summaryTable(rows) + '\n');
  for (const exchange of rows) {
    const messages = reader.messages(exchange.id);
    options.onMessage?.(messages.length);
    write(exchangeSection(exchange, messages, reader, sessions, limits) + '\n');
  }
  write(textIn('footer', { class: 'dim' }, 'Written by agent-proxy export --format html. This page loads nothing and runs no script.') + '\n</body></html>\n');
}

/** The exchanges as `show` lists them, each linking to its section. */
function summaryTable(rows: readonly ExchangeRow[]): string {
  const head = element('tr', {}, ['id', 'transport', 'request', 'status', 'msgs', 'verdict', 'outcome', 'protocol chosen by'].map((c) => textIn('th', {}, c)).join(''));
  const body = rows.map((e) => {
    const verdict = verdictOf(e);
    return element(
      'tr',
      {},
      element('td', {}, textIn('a', { href: `#exchange-${e.id}` }, `#${e.id}`)) +
        textIn('td', {}, e.transport + (e.protocol ? `/${e.protocol}` : '')) +
        textIn('td', { class: 'mono' }, `${e.method ?? ''} ${e.path ?? ''}`.trim()) +
        textIn('td', {}, e.status === null ? '-' : String(e.status)) +
        textIn('td', {}, String(e.messageCount)) +
        textIn('td', { class: verdict.kind }, verdict.text) +
        textIn('td', {}, outcomeText(e.outcome, e.errorCode)) +
        textIn('td', {}, protocolEvidenceText(e)),
    );
  });
  return element('h2', {}, 'Exchanges') + element('table', { class: 'exchanges' }, head + body.join(''));
}

interface Limits {
  messages: number;
  body: number;
}

/** One exchange, as `show --exchange` prints it, folded open when it failed; then its answer and session. */
function exchangeSection(exchange: ExchangeRow, messages: readonly MessageRow[], reader: RecordingReader, sessions: Sessions, limits: Limits): string {
  const verdict = verdictOf(exchange);
  const own = exchangeFindings(exchange);
  const request = `${exchange.method ?? ''} ${exchange.path ?? ''} ${exchange.status ?? ''}`.replace(/\s+/g, ' ').trim();
  const ending = outcomeText(exchange.outcome, exchange.errorCode) + (exchange.outcome !== 'complete' && exchange.errorMessage ? ` (${exchange.errorMessage})` : '');
  const summary = element('summary', {}, textIn('span', {}, `#${exchange.id} ${request ? request + ' ' : ''}${exchange.transport}${exchange.protocol ? `/${exchange.protocol}` : ''} ${ending} · `) + textIn('span', { class: verdict.kind }, verdict.text));
  const parts = [
    ...(exchange.tls === null ? [] : [textIn('p', { class: 'mono' }, tlsText(exchange.tls))]),
    ...(own.length === 0 ? [] : [element('ul', { class: 'findings' }, own.map((f) => findingItem(f, '')).join(''))]),
    textIn('p', { class: 'dim' }, exchange.protocol ? `protocol ${exchange.protocol}, chosen by ${protocolEvidenceText(exchange)}` : 'no protocol recognised this exchange'),
    messageTable(exchange, messages, limits),
  ];
  const views = viewsOf(exchange.protocol);
  if (views?.answer !== undefined) parts.push(answerHtml(views.answer(messages.map(viewMessage))));
  const session = sessionHtml(exchange, messages, reader, sessions);
  if (session !== '') parts.push(session);
  const failed = verdict.kind === 'invalid' || own.length > 0;
  return element('section', { id: `exchange-${exchange.id}` }, element('details', { class: 'exchange', open: failed }, summary + parts.join('')));
}

/** The messages, at most `limits.messages` of them, each with its verdict, findings and body; a line counts the rest and names the invalid ones among them. */
function messageTable(exchange: ExchangeRow, messages: readonly MessageRow[], limits: Limits): string {
  if (messages.length === 0) return textIn('p', { class: 'dim' }, 'no messages');
  const head = element('tr', {}, ['seq', 'since exchange start', '', 'message', 'verdict'].map((c) => textIn('th', {}, c)).join(''));
  const rows = messages.slice(0, limits.messages).map((m) => {
    const label = messageLabel(messageValue(m), { channel: m.channel, carrier: m.carrier, sender: m.sender, http: exchange });
    const findings = m.verdict.findings.length === 0 ? '' : element('ul', { class: 'findings' }, m.verdict.findings.map((f) => findingItem(f, findingPlace(f))).join(''));
    const body = element('details', {}, textIn('summary', { class: 'mono' }, label) + textIn('pre', {}, cutText(bodyText(m), limits.body)));
    const verdict = textIn('span', { class: m.verdict.status }, m.verdict.status) + (m.verdict.reason ? textIn('span', { class: 'dim' }, ` (${m.verdict.reason})`) : '');
    return element(
      'tr',
      { id: `exchange-${exchange.id}-${m.seq}` },
      textIn('td', {}, String(m.seq)) + textIn('td', {}, `+${(m.tOffsetMs - exchange.startedMs).toFixed(1)} ms`) + textIn('td', {}, m.sender === 'client' ? '→' : '←') + element('td', {}, body + findings) + element('td', {}, verdict),
    );
  });
  const rest = messages.slice(limits.messages);
  if (rest.length > 0) {
    const invalid = rest.filter((m) => m.verdict.status === 'invalid').map((m) => m.seq);
    const named = invalid.length === 0 ? '' : `, ${invalid.length} of them invalid (seq ${invalid.slice(0, 20).join(', ')}${invalid.length > 20 ? ', …' : ''})`;
    rows.push(element('tr', {}, textIn('td', { class: 'more', colspan: 5 }, `${count(rest.length, 'more message')}${named}: agent-proxy show <recording> --exchange ${exchange.id} --offset ${limits.messages} lists them`)));
  }
  return element('table', { class: 'messages' }, head + rows.join(''));
}

function findingItem(f: Finding, place: string): string {
  return element('li', {}, textIn('span', { class: f.severity }, f.severity) + textIn('span', {}, ` ${f.rule}${place ? ` ${place}` : ''}: ${f.message}`));
}

/** The exchanges of each multi-exchange session (ProtocolViews.sessionKey: MCP over Streamable HTTP), by protocol and key, in recording order. */
type Sessions = Map<string, number[]>;

function sessionsOf(rows: readonly ExchangeRow[]): Sessions {
  const sessions: Sessions = new Map();
  for (const e of rows) {
    const key = sessionKeyOf(e);
    if (key === undefined) continue;
    const members = sessions.get(key);
    if (members === undefined) sessions.set(key, [e.id]);
    else members.push(e.id);
  }
  return sessions;
}

function sessionKeyOf(e: ExchangeRow): string | undefined {
  const key = viewsOf(e.protocol)?.sessionKey?.(e);
  return key === undefined ? undefined : `${e.protocol}\n${key}`;
}

/**
 * An exchange's MCP session, as the inspector's session tab builds it: drawn once, at the first
 * exchange of a session that spans several (from all their messages), which the others link to.
 */
function sessionHtml(exchange: ExchangeRow, messages: readonly MessageRow[], reader: RecordingReader, sessions: Sessions): string {
  const tab = viewsOf(exchange.protocol)?.tab;
  if (tab?.route !== 'session') return '';
  const key = sessionKeyOf(exchange);
  const members = key === undefined ? [exchange.id] : sessions.get(key)!;
  if (members[0] !== exchange.id) return element('p', { class: 'dim' }, `${htmlText('its MCP session is shown at ')}${textIn('a', { href: `#exchange-${members[0]}` }, `#${members[0]}`)}`);
  const walked =
    members.length === 1
      ? messages.map(viewMessage)
      : members
          .flatMap((id) => (id === exchange.id ? messages : reader.messages(id)).map((m) => ofExchange(viewMessage(m), id)))
          // A stable sort: messages at the same offset keep their exchange's order.
          .sort((x, y) => x.tOffsetMs - y.tOffsetMs);
  const findings = new Map(messages.map((m) => [m.seq, m.verdict.findings]));
  const context: ViewContext = { findingsOf: (seq) => findings.get(seq) ?? [], label: (value, m) => messageLabel(value, m) };
  const view = tab.build(exchange.id, walked, context);
  return isMcpSession(view) ? mcpSessionHtml(view, members) : '';
}

/**
 * The view message with the exchange that carried it, set on it rather than spread into a copy: a
 * copy that adds a key takes Node 20's slow path (microseconds), for every message of the session.
 */
function ofExchange(message: ViewMessage, exchangeId: number): ViewMessage {
  message.exchangeId = exchangeId;
  return message;
}

function verdictOf(e: ExchangeRow): ExchangeVerdict {
  return exchangeVerdict({ messages: e.messageCount, invalid: e.invalidCount, unchecked: e.uncheckedCount });
}

/** The body as a reader wants it: JSON indented, a message nested too deep as stored, anything else as its text. */
function bodyText(m: MessageRow): string {
  if (m.deepJson !== undefined) return m.deepJson;
  if (m.json !== undefined) return JSON.stringify(m.json, null, 2);
  return m.raw.toString('utf8') + (m.rawTruncatedFrom === null ? '' : `\n(stored cut from ${m.rawTruncatedFrom} bytes)`);
}
