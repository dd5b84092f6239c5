import { once } from 'node:events';
import { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { stringifyJson } from '../core/json-text.js';
import { messageLabel } from '../core/message-label.js';
import type { RecordingReader } from '../store/recording-reader.js';
import type { ExchangeRow, MessageRow } from '../store/recording-reader.js';
import { messageValue } from '../store/message-value.js';
import { protocolEvidenceText } from '../store/protocol-evidence.js';
import type { CommandResult } from './command-result.js';
import { EXIT_OK } from './exit-codes.js';
import { styleFor, type Style } from '../core/style.js';
import { totalsText } from './totals-text.js';
import { exchangeVerdict, type ExchangeVerdict } from '../core/exchange-verdict.js';
import { endedBy, outcomeText, type EndedBy } from '../core/exchange-ending.js';
import { styledVerdict } from './verdict-text.js';
import { count } from '../core/plural.js';
import type { TlsFacts } from '../core/tls-facts.js';
import type { TunnelFacts } from '../core/tunnel-facts.js';
import { FORWARD_TARGET, forwardHostOf, groupOrder } from '../record/forward-target.js';
import type { Transport } from '../core/transport.js';
import { tlsText } from '../core/tls-text.js';
import { exchangeFindings } from '../core/exchange-findings.js';
import { cutText, messagePageOf, pageRange, type MessagePage } from './message-page.js';
import type { ViewMessage } from '../protocols/inspector-views.js';
import { viewMessage } from '../protocols/view-message.js';
import { findingPlace } from '../protocols/finding-place.js';
import { ANSWERING_PROTOCOLS } from '../protocols/catalog.js';

/** The stable `show --json` shape; scripts depend on these names. */
export interface ShowExchange {
  id: number;
  transport: Transport;
  protocol: string | null;
  /** What chose `protocol` (`route GET /v1/session/{sessionRef}`, `--protocol flag`); null when none did or the recording does not say. */
  protocolEvidence: string | null;
  method: string | null;
  path: string | null;
  status: number | null;
  messages: number;
  invalid: number;
  unchecked: number;
  /** The verdict summary every command prints (`valid`, `unchecked`, `2 invalid` …; see exchangeVerdict). */
  verdict: string;
  outcome: string | null;
  /** Who ended an exchange that did not complete: `client`, `shutdown` (the proxy stopping) or `upstream`. */
  endedBy: EndedBy | null;
  /** An https:// or wss:// upstream's TLS protocol, cipher and certificate (docs/recording-format.md#tls); null for a plain one. */
  tls: TlsFacts | null;
  /** A forward proxy's CONNECT tunnel: the bytes each side sent through it unread (absent for any other exchange). */
  tunnel?: TunnelFacts;
}

export function showCommand(result: CommandResult): Command {
  return new Command('show')
    .description('summarise a recording, or list the messages of one exchange with verdicts and findings')
    .argument('<recording>', 'a recording file (.db or .ndjson)')
    .option('--exchange <id>', 'show the messages of this exchange')
    .option('--offset <n>', 'with --exchange: skip this many messages first')
    .option('--limit <n>', 'with --exchange: list at most this many messages')
    .option('--json', 'print JSON')
    .action(async (file: string, options: { exchange?: string; offset?: string; limit?: string; json?: boolean }) => {
      const page = messagePageOf(options);
      // The store loads only when the command runs (fast CLI start).
      const [{ openRecordingAsync }, { judgedByCurrentRules }] = await Promise.all([import('../store/open-recording-async.js'), import('../core/rules-version.js')]);
      let reader = await openRecordingAsync(file);
      if (!judgedByCurrentRules(reader.recording())) {
        // Judged by older rules: judged again, in a scratch copy (validate/current-verdicts.ts); the judge loads only then.
        const [{ judgeAgainIfOlder }, { SchemaRegistry }] = await Promise.all([import('../validate/current-verdicts.js'), import('../schema/schema-registry.js')]);
        reader = judgeAgainIfOlder(reader, file, { registry: () => SchemaRegistry.load(), progress: process.stderr });
      }
      try {
        const style = styleFor(process.stdout);
        if (options.exchange !== undefined) {
          const id = Number(options.exchange);
          const exchange = Number.isInteger(id) ? reader.exchange(id) : undefined;
          if (!exchange) throw new UsageError(`${file} has no exchange '${options.exchange}'`);
          await writeExchange(reader, exchange, page, { json: options.json === true, style }, writeStdout);
        } else {
          const rows = reader.exchanges();
          // Tokens in and out by model, over the answers of the LLM exchanges ([] when there are none).
          const answers = await modelAnswers(rows);
          const tokens = answers?.recordingTokens(reader, rows) ?? [];
          if (options.json) process.stdout.write(JSON.stringify({ recording: reader.recording(), exchanges: rows.map(exchangeSummary), totals: reader.totals(), tokens }) + '\n');
          else printExchanges(file, reader, rows, style, answers?.tokenLines(tokens) ?? []);
        }
      } finally {
        reader.close();
      }
      result.code = EXIT_OK;
    });
}

/** The answer assembler, loaded with the protocol modules only when an exchange is of a protocol that assembles answers (an LLM API's). */
async function modelAnswers(rows: readonly ExchangeRow[]): Promise<typeof import('./model-answers.js') | undefined> {
  return rows.some((e) => e.protocol !== null && ANSWERING_PROTOCOLS.has(e.protocol)) ? await import('./model-answers.js') : undefined;
}

function exchangeSummary(e: ExchangeRow): ShowExchange {
  return {
    id: e.id,
    transport: e.transport,
    protocol: e.protocol,
    protocolEvidence: e.protocolEvidence,
    method: e.method,
    path: e.path,
    status: e.status,
    messages: e.messageCount,
    invalid: e.invalidCount,
    unchecked: e.uncheckedCount,
    verdict: verdictOf(e).text,
    outcome: e.outcome,
    endedBy: e.outcome === 'aborted' ? (endedBy(e.errorCode) ?? null) : null,
    tls: e.tls,
    ...(e.tunnel === null ? {} : { tunnel: e.tunnel }),
  };
}

function verdictOf(e: ExchangeRow): ExchangeVerdict {
  return exchangeVerdict({ messages: e.messageCount, invalid: e.invalidCount, unchecked: e.uncheckedCount });
}

/** A message in `show --exchange --json`: `tOffsetMs` from the recording's start, `sinceExchangeStartMs` from its exchange's. */
function messageJson(m: MessageRow, exchangeStartedMs: number) {
  return {
    seq: m.seq,
    sender: m.sender,
    carrier: m.carrier,
    channel: m.channel,
    tOffsetMs: m.tOffsetMs,
    sinceExchangeStartMs: m.tOffsetMs - exchangeStartedMs,
    bytes: m.raw.length,
    rawTruncatedFrom: m.rawTruncatedFrom,
    json: messageValue(m),
    status: m.verdict.status,
    schemaRef: m.verdict.schemaRef ?? null,
    reason: m.verdict.reason ?? null,
    findings: m.verdict.findings,
  };
}

function printExchanges(file: string, reader: RecordingReader, rows: ExchangeRow[], style: Style, tokenLines: string[]): void {
  const info = reader.recording();
  const totals = reader.totals();
  const lines = [
    `${style.bold(file)}  target ${info.target ?? '-'}  started ${info.startedAt}${info.endedAt ? `  ended ${info.endedAt}` : '  (not closed)'}`,
  ];
  const cells = rows.map((e) => [
    `#${e.id}`,
    e.transport + (e.protocol ? `/${e.protocol}` : ''),
    `${e.method ?? ''} ${e.path ?? ''}`.trim(),
    e.status === null ? '-' : String(e.status),
    String(e.messageCount),
    styledVerdict(verdictOf(e), style),
    outcomeText(e.outcome, e.errorCode),
    protocolEvidenceText(e),
  ]);
  const head = ['id', 'transport', 'request', 'status', 'msgs', 'verdict', 'outcome', 'protocol chosen by'];
  // A forward recording has a host per exchange: its rows go under their host, hosts in the order first seen.
  const hosts = info.target === FORWARD_TARGET ? rows.map(forwardHostOf) : undefined;
  const order = hosts ? groupOrder(hosts) : undefined;
  const tableLines = table([head, ...(order ? order.map((i) => cells[i]) : cells)]);
  // Row by row: a recording can hold more exchanges than push() or Math.max() take arguments.
  lines.push(tableLines[0]);
  for (let row = 1; row < tableLines.length; row++) {
    if (hosts && order) {
      const host = hosts[order[row - 1]];
      if (row === 1 || hosts[order[row - 2]] !== host) lines.push(style.bold(`${host}  (${count(hosts.filter((h) => h === host).length, 'exchange')})`));
    }
    lines.push(tableLines[row]);
  }
  lines.push(totalsText(totals), ...tokenLines);
  process.stdout.write(lines.join('\n') + '\n');
}

/** A tunnel's line in `show --exchange`: its bytes are not recorded, only counted. */
function tunnelText(tunnel: TunnelFacts, exchange: ExchangeRow): string {
  const open = exchange.endedMs === null ? 'still open' : `open ${(exchange.endedMs - exchange.startedMs).toFixed(1)} ms`;
  return `tunnel, passed through unread: ${count(tunnel.clientBytes, 'byte')} from the client, ${count(tunnel.serverBytes, 'byte')} from the host, ${open}`;
}

/** Lines of output at a time: a page of messages, then the next, so that no listing is held whole. */
const MESSAGES_PER_WRITE = 1000;

/**
 * `show --exchange`'s listing (text, or `--json`), written `MESSAGES_PER_WRITE` messages at a time as
 * they are read: an exchange of a million messages is never held whole, and memory stays flat. The
 * model's answer of an LLM exchange is assembled from all its messages (not only the page shown),
 * which keeps each one's JSON, not its row, until the end. `write` may return a promise to wait for
 * (stdout's drain).
 */
export async function writeExchange(reader: RecordingReader, exchange: ExchangeRow, page: MessagePage | undefined, options: { json: boolean; style: Style }, write: (text: string) => void | Promise<void>): Promise<void> {
  const { skip, count: shown, cut } = pageRange(exchange.messageCount, page, exchange.id);
  const answers = await modelAnswers([exchange]);
  const views: ViewMessage[] | undefined = answers?.assemblesAnswers(exchange) ? [] : undefined;
  const { style } = options;
  // stringifyJson: a message may nest deeper than JSON.stringify can go. The object is written in
  // parts, in the key order it always had: exchange, findings, page, messages, answer.
  let text = options.json
    ? `{"exchange":${JSON.stringify(exchangeSummary(exchange))},"findings":${JSON.stringify(exchangeFindings(exchange))}` +
      `${cut ? `,"page":${JSON.stringify({ offset: cut.from - 1, shown, total: cut.of })}` : ''},"messages":[`
    : exchangeHeadLines(exchange, style, cut).join('\n') + '\n';
  let listed = 0;
  let inPage = 0;
  // With an answer to assemble every message is read; else only those listed.
  for (const m of reader.messagesOf(exchange.id, views ? 0 : skip)) {
    if (views) views.push(viewMessage(m));
    const at = views ? inPage++ : skip + inPage++;
    if (at < skip || listed >= shown) {
      if (views) continue;
      break;
    }
    if (options.json) text += (listed > 0 ? ',' : '') + stringifyJson(messageJson(m, exchange.startedMs));
    else text += messageLines(m, exchange, style).join('\n') + '\n';
    if (++listed % MESSAGES_PER_WRITE === 0) {
      await write(text);
      text = '';
    }
  }
  const answer = views && answers ? answers.answerOfViews(exchange, views) : undefined;
  if (options.json) text += `]${answer === undefined ? '' : `,"answer":${stringifyJson(answer)}`}}\n`;
  else if (answers && answer !== undefined) text += answers.answerLines(answer, style).join('\n') + '\n';
  await write(text);
}

/** stdout's write, waiting for its drain when it is full (a slow pipe), so that a long listing does not pile up in memory. */
function writeStdout(text: string): void | Promise<void> {
  if (text === '' || process.stdout.write(text)) return;
  return once(process.stdout, 'drain').then(() => undefined);
}

/** The head of `show --exchange`: the request, its ending and protocol, and what the page cut. */
function exchangeHeadLines(exchange: ExchangeRow, style: Style, cut: Parameters<typeof cutText>[0] | undefined): string[] {
  const request = `${exchange.method ?? ''} ${exchange.path ?? ''} ${exchange.status ?? ''}`.replace(/\s+/g, ' ').trim();
  const ending = outcomeText(exchange.outcome, exchange.errorCode) + (exchange.outcome !== 'complete' && exchange.errorMessage ? ` (${exchange.errorMessage})` : '');
  return [
    `#${exchange.id} ${request ? request + ' ' : ''}${exchange.transport}${exchange.protocol ? `/${exchange.protocol}` : ''} ${ending}`,
    ...(exchange.tls === null ? [] : [`  ${tlsText(exchange.tls)}`]),
    // What failed before any message (the upstream's TLS): the exchange's own findings.
    ...exchangeFindings(exchange).map((f) => `  ${f.severity === 'error' ? style.red('error') : style.yellow('warning')} ${f.rule}: ${f.message}`),
    ...(exchange.tunnel === null
      ? [
          `  ${exchange.messageCount === 0 ? 'no messages' : `${count(exchange.messageCount, 'message')}: ${styledVerdict(verdictOf(exchange), style)}`}; starts ${ms(exchange.startedMs)} into the recording`,
          `  ${exchange.protocol ? `protocol ${exchange.protocol}, chosen by ${protocolEvidenceText(exchange)}` : 'no protocol recognised this exchange'}`,
        ]
      : [`  ${tunnelText(exchange.tunnel, exchange)}; starts ${ms(exchange.startedMs)} into the recording`]),
    ...(cut ? [`  ${cutText(cut)}`] : []),
    // One clock for a message's time, the inspector's: from the start of its exchange.
    ...(exchange.tunnel === null ? [style.dim(`   seq  since exchange start`)] : []),
  ];
}

/** A message's line in `show --exchange`, and one per finding. */
function messageLines(m: MessageRow, exchange: ExchangeRow, style: Style): string[] {
  const label = messageLabel(messageValue(m), { channel: m.channel, carrier: m.carrier, sender: m.sender, http: exchange });
  const status = m.verdict.status === 'invalid' ? style.red('invalid') : m.verdict.status === 'unchecked' ? style.yellow('unchecked') : style.green('valid');
  const lines = [`  ${String(m.seq).padStart(4)} ${ms(m.tOffsetMs - exchange.startedMs).padStart(11)}  ${m.sender === 'client' ? '→' : '←'} ${label} ${status}${m.verdict.reason ? style.dim(` (${m.verdict.reason})`) : ''}`];
  for (const f of m.verdict.findings) {
    lines.push(`         ${f.severity === 'error' ? style.red('error') : style.yellow('warning')} ${f.rule} ${findingPlace(f)}: ${f.message}`);
  }
  return lines;
}

/** Milliseconds as `+12.3 ms`. */
function ms(value: number): string {
  return `+${value.toFixed(1)} ms`;
}

function table(rows: string[][]): string[] {
  // eslint-disable-next-line no-control-regex
  const visible = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').length;
  const widths = rows[0].map((_, i) => rows.reduce((widest, r) => Math.max(widest, visible(r[i])), 0));
  return rows.map((r) => r.map((cell, i) => cell + ' '.repeat(widths[i] - visible(cell))).join('  ').trimEnd());
}
