import { tooDeepToWalk } from '../../core/json-depth.js';
import { tryParseJson } from '../../core/json.js';
import { displayLabel, type LabelContext } from './display-label.js';
import { exchangeViews } from './exchange-views.js';
import type { ViewMessage } from '../../protocols/inspector-views.js';
import { openWithCurrentVerdicts } from '../../validate/current-verdicts.js';
import { SchemaRegistry } from '../../schema/schema-registry.js';
import { exchangeFindings } from '../../core/exchange-findings.js';
import { InspectorQueries, type ExchangeFilter, type MessageSummaryRecord, type TimelineExchange } from '../../store/queries/inspector-queries.js';
import { RecordingReader } from '../../store/recording-reader.js';
import { readerConnection } from '../../store/reader-connection.js';
import { FORWARD_TARGET, forwardHostOf, groupOrder } from '../../record/forward-target.js';
import type { ExchangeDetail, ExchangeSummary, HostCount, MessageDetail, MessagePage, MessageSummary, RecordingSummary } from '../api-types.js';

/** Which exchanges the timeline lists: the store's filters, and in a forward recording the host. */
export type TimelineFilter = ExchangeFilter & { host?: string };

/** Largest page of message rows the API hands out at once. */
export const MAX_PAGE = 500;

/** A message row as the protocols' views walk them (ProtocolModule.views): seq, sender and parsed JSON only. */
export type WalkedMessage = ViewMessage;

/**
 * The inspector's read side: paged, filtered queries over a recording, on its reader's read-only
 * connection (safe while a recorder is still writing the file, in WAL mode). NDJSON recordings
 * are imported into a temporary .db first, by openRecording.
 */
export class InspectorData {
  readonly file: string;
  private readonly reader: RecordingReader;
  private readonly queries: InspectorQueries;
  /** A `record --forward` recording: each exchange has its own host, and the timeline groups by it. */
  private readonly forward: boolean;

  private constructor(file: string, reader: RecordingReader) {
    this.file = file;
    this.reader = reader;
    // Not a connection of its own: opening and closing a second one was a tenth of the CPU of opening a small recording and reading its views.
    this.queries = new InspectorQueries(readerConnection(reader));
    this.forward = reader.recording().target === FORWARD_TARGET;
  }

  /** Opens a .db or .ndjson recording. */
  static open(file: string): InspectorData {
    // A recording judged by older rules is judged again, in a scratch copy; a live one is judged by these.
    const reader = openWithCurrentVerdicts(file, { registry: () => SchemaRegistry.load(), progress: process.stderr });
    try {
      return new InspectorData(file, reader);
    } catch (error) {
      reader.close();
      throw error;
    }
  }

  recording(flags: { live: boolean; diff: boolean }): RecordingSummary {
    const info = this.reader.recording();
    const protocols = new Set<string>();
    const transports = new Set<string>();
    for (const row of this.queries.values()) {
      if (row.protocol !== null) protocols.add(row.protocol);
      transports.add(row.transport);
    }
    return {
      file: this.file,
      toolVersion: info.toolVersion,
      target: info.target ?? null,
      mode: info.mode,
      startedAt: info.startedAt,
      endedAt: info.endedAt ?? null,
      totals: this.reader.totals(),
      live: flags.live,
      diff: flags.diff,
      protocols: [...protocols].sort(),
      transports: [...transports].sort(),
      ...(this.forward ? { hosts: this.hosts() } : {}),
    };
  }

  /** A forward recording's hosts, in the order each was first called, with their exchange counts (as `show` heads its groups). */
  private hosts(): HostCount[] {
    const counts = new Map<string, number>();
    for (const row of this.queries.timeline()) {
      const host = forwardHostOf(row);
      counts.set(host, (counts.get(host) ?? 0) + 1);
    }
    return [...counts].map(([host, exchanges]) => ({ host, exchanges }));
  }

  /** A cheap fingerprint of what has been written so far (for live polling). */
  marks(): string {
    return this.queries.marks();
  }

  /**
   * The timeline's rows. A forward recording's come grouped by host, as `show` lists them: hosts in the
   * order each was first called, each host's exchanges in the order they started, each row with its host.
   */
  exchanges(filter: TimelineFilter = {}): ExchangeSummary[] {
    const rows = this.queries.timeline(filter);
    if (!this.forward) return rows.map((r) => summary(r));
    const hosts = rows.map(forwardHostOf);
    const order = groupOrder(hosts).filter((i) => filter.host === undefined || hosts[i] === filter.host);
    return order.map((i) => summary(rows[i], hosts[i]));
  }

  exchange(id: number): ExchangeDetail | undefined {
    const r = this.queries.exchange(id);
    if (r === undefined) return undefined;
    return {
      ...summary(r, this.forward ? forwardHostOf(r) : undefined),
      query: r.query,
      url: r.url,
      subprotocol: r.subprotocol,
      requestHeaders: r.requestHeaders,
      responseHeaders: r.responseHeaders,
      errorCode: r.errorCode,
      errorMessage: r.errorMessage,
      closeCode: r.closeCode,
      closeReason: r.closeReason,
      exitCode: r.exitCode,
      signal: r.signal,
      tls: r.tls,
      tunnel: r.tunnel,
      findings: exchangeFindings(r),
      views: exchangeViews(r.protocol),
    };
  }

  /** One page of an exchange's messages, in seq order; `invalidOnly` pages over the invalid ones. */
  messages(exchangeId: number, offset: number, limit: number, invalidOnly = false): MessagePage {
    const n = Math.max(0, Math.min(MAX_PAGE, Math.floor(limit)));
    const from = Math.max(0, Math.floor(offset));
    const total = this.queries.messageCount(exchangeId, invalidOnly);
    const rows = this.queries.page(exchangeId, n, from, invalidOnly);
    const jsonOf = (seq: number) => this.queries.json(exchangeId, seq);
    const { method, path, status } = this.requestLine(exchangeId);
    return { total, offset: from, items: rows.map((r) => messageSummary(r, jsonOf, { method, path, status, sender: r.sender, schemaRef: r.schemaRef })) };
  }

  /** The label a message row shows, or undefined when there is no such message. */
  label(exchangeId: number, seq: number): string | undefined {
    const r = this.queries.summaryAt(exchangeId, seq);
    if (r === undefined) return undefined;
    const jsonOf = (s: number) => this.queries.json(exchangeId, s);
    return messageSummary(r, jsonOf, { ...this.requestLine(exchangeId), sender: r.sender, schemaRef: r.schemaRef }).label;
  }

  message(exchangeId: number, seq: number): MessageDetail | undefined {
    const r = this.queries.message(exchangeId, seq);
    if (r === undefined) return undefined;
    const json = parseJson(r.json);
    const findings = r.findingCount === 0 ? [] : this.queries.findings(r.id);
    return {
      exchangeId: r.exchangeId,
      seq: r.seq,
      sender: r.sender,
      carrier: r.carrier,
      channel: r.channel,
      tOffsetMs: r.tOffsetMs,
      label: displayLabel(json ?? labelJson(r.json), r, { ...this.requestLine(exchangeId), sender: r.sender, schemaRef: r.schemaRef }),
      status: r.status,
      findingCount: r.findingCount,
      size: r.raw.length,
      ...(json === undefined ? { text: r.raw.toString('utf8') } : { json }),
      rawTruncatedFrom: r.rawTruncatedFrom,
      schemaRef: r.schemaRef,
      reason: r.reason,
      findings,
    };
  }

  /** The exchange's method, path and status, which name the JSON bodies that have no type of their own. */
  private requestLine(exchangeId: number): Pick<LabelContext, 'method' | 'path' | 'status'> {
    const r = this.queries.requestLine(exchangeId);
    return { method: r?.method ?? null, path: r?.path ?? null, status: r?.status ?? null };
  }

  /** The messages of an exchange up to and including `upToSeq`, one at a time (never all in memory). */
  *walk(exchangeId: number, upToSeq = Number.MAX_SAFE_INTEGER): Generator<WalkedMessage> {
    for (const r of this.queries.walk(exchangeId, upToSeq)) {
      yield { seq: r.seq, sender: r.sender, carrier: r.carrier, channel: r.channel, tOffsetMs: r.tOffsetMs, status: r.status, json: parseJson(r.json) };
    }
  }

  close(): void {
    this.reader.close();
  }
}

/**
 * The stored JSON text, parsed; undefined when there is none, or it does not parse, or it nests
 * deeper than MAX_JSON_DEPTH (the views walk it recursively): the message is shown as raw text then.
 */
function parseJson(text: string | null): unknown {
  if (text === null || tooDeepToWalk(text)) return undefined;
  return labelJson(text);
}

/** The stored JSON text parsed at any depth, for a label, which reads only the top of it. */
function labelJson(text: string | null): unknown {
  return text === null ? undefined : tryParseJson(text);
}

/** `host`: the host a forward recording's exchange went to. */
function summary(r: Omit<TimelineExchange, 'requestHeaders' | 'responseHeaders' | 'tls' | 'tunnel'>, host?: string): ExchangeSummary {
  const endMs = r.endedMs ?? r.lastMs;
  return {
    id: r.id,
    transport: r.transport,
    protocol: r.protocol,
    // What chose the protocol (`route GET /v1/session/{sessionRef}`, `--protocol flag`), as `show` says it; null when not recorded.
    protocolEvidence: r.protocolEvidence,
    method: r.method,
    path: r.path,
    status: r.status,
    outcome: r.outcome,
    startedMs: r.startedMs,
    endMs,
    durationMs: endMs === null ? null : Math.max(0, endMs - r.startedMs),
    open: r.endedMs === null,
    messageCount: r.messageCount,
    invalidCount: r.invalidCount,
    ...(host === undefined ? {} : { host }),
  };
}

/** `jsonOf(seq)`: the stored JSON of a message whose label SQLite could not read. */
function messageSummary(r: MessageSummaryRecord, jsonOf: (seq: number) => string | null, context: LabelContext): MessageSummary {
  let label: string;
  if (r.bigLabel === '') label = displayLabel(labelJson(jsonOf(r.seq)), r, context);
  // A big body with no type of its own: named from its context, as a small one is ({} stands in for it).
  else if (r.bigLabel === 'object') label = displayLabel({}, r, context);
  else if (r.bigLabel !== null) label = r.bigLabel;
  else label = displayLabel(labelJson(r.json), r, context);
  return {
    seq: r.seq,
    sender: r.sender,
    carrier: r.carrier,
    channel: r.channel,
    tOffsetMs: r.tOffsetMs,
    label,
    status: r.status,
    findingCount: r.findingCount,
    size: r.size,
  };
}
