import type { ExchangeRecord as StoredExchangeRecord } from '../../store/exchange-record.js';
import type Database from 'better-sqlite3';
import { tooDeepToWalk } from '../../core/json-depth.js';
import { tryParseJson } from '../../core/json.js';
import { displayLabel, type LabelContext } from './display-label.js';
import { openRecording } from '../../store/open-recording.js';
import { openDatabase } from '../../store/open-database.js';
import type { RecordingReader } from '../../store/recording-reader.js';
import type {
  ExchangeDetail,
  ExchangeSummary,
  FindingInfo,
  MessageDetail,
  MessagePage,
  MessageSummary,
  RecordingSummary,
} from '../api-types.js';

/** Largest page of message rows the API hands out at once. */
export const MAX_PAGE = 500;
/**
 * Messages longer than this are labelled with json_extract instead of being parsed, unless SQLite
 * cannot read them (it refuses JSON nested deeper than 1000 levels): those few are parsed after all.
 */
const PARSE_LIMIT = 64 * 1024;

export interface ExchangeFilter {
  protocol?: string;
  transport?: string;
  invalidOnly?: boolean;
  /** Case-insensitive text: method, path, url, protocol, transport, status, or any message's JSON. */
  q?: string;
}

/** An exchanges row with the counts and the last message's offset the inspector's query adds. */
interface ExchangeRecord extends StoredExchangeRecord {
  message_count: number;
  invalid_count: number;
  last_ms: number | null;
}

interface MessageSummaryRecord {
  seq: number;
  sender: 'client' | 'server';
  carrier: string;
  channel: string | null;
  t_offset_ms: number;
  status: 'valid' | 'invalid' | 'unchecked';
  finding_count: number;
  size: number;
  schema_ref: string | null;
  json: string | null;
  big_label: string | null;
}

interface MessageRecord {
  id: number;
  exchange_id: number;
  seq: number;
  sender: 'client' | 'server';
  carrier: string;
  channel: string | null;
  t_offset_ms: number;
  raw: Buffer;
  raw_truncated_from: number | null;
  json: string | null;
  status: 'valid' | 'invalid' | 'unchecked';
  schema_ref: string | null;
  reason: string | null;
  finding_count: number;
}

/** A message row as the state and run views walk them: seq, sender and parsed JSON only. */
export interface WalkedMessage {
  seq: number;
  sender: 'client' | 'server';
  carrier: string;
  channel: string | null;
  /** Offset on the recording's clock, ms. */
  tOffsetMs: number;
  status: 'valid' | 'invalid' | 'unchecked';
  json: unknown;
}

const EXCHANGE_COLUMNS = `e.*,
  (SELECT count(*) FROM messages m WHERE m.exchange_id = e.id) AS message_count,
  (SELECT count(*) FROM messages m WHERE m.exchange_id = e.id AND m.status = 'invalid') AS invalid_count,
  (SELECT max(t_offset_ms) FROM messages m WHERE m.exchange_id = e.id) AS last_ms`;

const SUMMARY_COLUMNS = `seq, sender, carrier, channel, t_offset_ms, status, finding_count, length(raw) AS size, schema_ref,
  CASE WHEN length(json) <= ${PARSE_LIMIT} THEN json END AS json,
  CASE WHEN length(json) > ${PARSE_LIMIT} THEN
    CASE WHEN json_valid(json) THEN coalesce(json_extract(json, '$.type'), json_extract(json, '$.method'), json_extract(json, '$.kind'), 'object') ELSE '' END
  END AS big_label`;

/**
 * The inspector's read side: paged, filtered queries over a recording, on a read-only connection
 * of its own (safe while a recorder is still writing the file, in WAL mode). NDJSON recordings
 * are imported into a temporary .db first, by openRecording.
 */
export class InspectorData {
  readonly file: string;
  private readonly reader: RecordingReader;
  private readonly db: Database.Database;
  private readonly stmts;

  private constructor(file: string, reader: RecordingReader) {
    this.file = file;
    this.reader = reader;
    this.db = openDatabase(reader.file, { readonly: true });
    const db = this.db;
    this.stmts = {
      exchange: db.prepare(`SELECT ${EXCHANGE_COLUMNS} FROM exchanges e WHERE e.id = ?`),
      requestLine: db.prepare('SELECT method, path, status FROM exchanges WHERE id = ?'),
      count: db.prepare('SELECT count(*) AS n FROM messages WHERE exchange_id = ?'),
      countInvalid: db.prepare("SELECT count(*) AS n FROM messages WHERE exchange_id = ? AND status = 'invalid'"),
      page: db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE exchange_id = ? ORDER BY seq LIMIT ? OFFSET ?`),
      pageInvalid: db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE exchange_id = ? AND status = 'invalid' ORDER BY seq LIMIT ? OFFSET ?`),
      message: db.prepare('SELECT * FROM messages WHERE exchange_id = ? AND seq = ?'),
      summaryAt: db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE exchange_id = ? AND seq = ?`),
      json: db.prepare('SELECT json FROM messages WHERE exchange_id = ? AND seq = ?').pluck(),
      findings: db.prepare('SELECT rule, severity, pointer, message FROM findings WHERE message_id = ? ORDER BY id'),
      walk: db.prepare('SELECT seq, sender, carrier, channel, t_offset_ms, status, json FROM messages WHERE exchange_id = ? AND seq <= ? ORDER BY seq'),
      values: db.prepare('SELECT DISTINCT protocol AS p, transport AS t FROM exchanges'),
      marks: db.prepare('SELECT (SELECT max(id) FROM exchanges) AS e, (SELECT max(id) FROM messages) AS m, (SELECT count(*) FROM exchanges WHERE ended_ms IS NOT NULL) AS ended'),
    };
  }

  /** Opens a .db or .ndjson recording. */
  static open(file: string): InspectorData {
    const reader = openRecording(file);
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
    for (const row of this.stmts.values.all() as Array<{ p: string | null; t: string }>) {
      if (row.p !== null) protocols.add(row.p);
      transports.add(row.t);
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
    };
  }

  /** A cheap fingerprint of what has been written so far (for live polling). */
  marks(): string {
    const r = this.stmts.marks.get() as { e: number | null; m: number | null; ended: number };
    return `${r.e ?? 0}/${r.m ?? 0}/${r.ended}`;
  }

  exchanges(filter: ExchangeFilter = {}): ExchangeSummary[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.protocol) {
      where.push('e.protocol = ?');
      params.push(filter.protocol);
    }
    if (filter.transport) {
      where.push('e.transport = ?');
      params.push(filter.transport);
    }
    if (filter.invalidOnly) where.push("EXISTS (SELECT 1 FROM messages m WHERE m.exchange_id = e.id AND m.status = 'invalid')");
    const q = filter.q?.trim().toLowerCase();
    if (q) {
      where.push(`(instr(lower(coalesce(e.method,'') || ' ' || coalesce(e.path,'') || ' ' || coalesce(e.url,'') || ' ' || coalesce(e.protocol,'') || ' '
        || e.transport || ' ' || coalesce(e.status,'') || ' #' || e.id), ?) > 0
        OR EXISTS (SELECT 1 FROM messages m WHERE m.exchange_id = e.id AND instr(lower(m.json), ?) > 0))`);
      params.push(q, q);
    }
    const sql = `SELECT ${EXCHANGE_COLUMNS} FROM exchanges e ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY e.started_ms, e.id`;
    return (this.db.prepare(sql).all(...params) as ExchangeRecord[]).map(summary);
  }

  exchange(id: number): ExchangeDetail | undefined {
    const r = this.stmts.exchange.get(id) as ExchangeRecord | undefined;
    if (r === undefined) return undefined;
    return {
      ...summary(r),
      query: r.query,
      url: r.url,
      subprotocol: r.subprotocol,
      requestHeaders: r.request_headers === null ? null : JSON.parse(r.request_headers),
      responseHeaders: r.response_headers === null ? null : JSON.parse(r.response_headers),
      errorCode: r.error_code,
      errorMessage: r.error_message,
      closeCode: r.close_code,
      closeReason: r.close_reason,
      exitCode: r.exit_code,
      signal: r.signal,
    };
  }

  /** One page of an exchange's messages, in seq order; `invalidOnly` pages over the invalid ones. */
  messages(exchangeId: number, offset: number, limit: number, invalidOnly = false): MessagePage {
    const n = Math.max(0, Math.min(MAX_PAGE, Math.floor(limit)));
    const from = Math.max(0, Math.floor(offset));
    const total = ((invalidOnly ? this.stmts.countInvalid : this.stmts.count).get(exchangeId) as { n: number }).n;
    const rows = (invalidOnly ? this.stmts.pageInvalid : this.stmts.page).all(exchangeId, n, from) as MessageSummaryRecord[];
    const jsonOf = (seq: number) => this.stmts.json.get(exchangeId, seq) as string | null;
    const line = this.requestLine(exchangeId);
    return { total, offset: from, items: rows.map((r) => messageSummary(r, jsonOf, { ...line, sender: r.sender, schemaRef: r.schema_ref })) };
  }

  /** The label a message row shows, or undefined when there is no such message. */
  label(exchangeId: number, seq: number): string | undefined {
    const r = this.stmts.summaryAt.get(exchangeId, seq) as MessageSummaryRecord | undefined;
    if (r === undefined) return undefined;
    const jsonOf = (s: number) => this.stmts.json.get(exchangeId, s) as string | null;
    return messageSummary(r, jsonOf, { ...this.requestLine(exchangeId), sender: r.sender, schemaRef: r.schema_ref }).label;
  }

  message(exchangeId: number, seq: number): MessageDetail | undefined {
    const r = this.stmts.message.get(exchangeId, seq) as MessageRecord | undefined;
    if (r === undefined) return undefined;
    const json = parseJson(r.json);
    const findings = r.finding_count === 0 ? [] : (this.stmts.findings.all(r.id) as FindingInfo[]);
    return {
      exchangeId: r.exchange_id,
      seq: r.seq,
      sender: r.sender,
      carrier: r.carrier,
      channel: r.channel,
      tOffsetMs: r.t_offset_ms,
      label: displayLabel(json ?? labelJson(r.json), r, { ...this.requestLine(exchangeId), sender: r.sender, schemaRef: r.schema_ref }),
      status: r.status,
      findingCount: r.finding_count,
      size: r.raw.length,
      ...(json === undefined ? { text: r.raw.toString('utf8') } : { json }),
      rawTruncatedFrom: r.raw_truncated_from,
      schemaRef: r.schema_ref,
      reason: r.reason,
      findings,
    };
  }

  /** The exchange's method, path and status, which name the JSON bodies that have no type of their own. */
  private requestLine(exchangeId: number): Pick<LabelContext, 'method' | 'path' | 'status'> {
    const r = this.stmts.requestLine.get(exchangeId) as { method: string | null; path: string | null; status: number | null } | undefined;
    return { method: r?.method ?? null, path: r?.path ?? null, status: r?.status ?? null };
  }

  /** The messages of an exchange up to and including `upToSeq`, one at a time (never all in memory). */
  *walk(exchangeId: number, upToSeq = Number.MAX_SAFE_INTEGER): Generator<WalkedMessage> {
    for (const r of this.stmts.walk.iterate(exchangeId, upToSeq) as Iterable<{ seq: number; sender: 'client' | 'server'; carrier: string; channel: string | null; t_offset_ms: number; status: WalkedMessage['status']; json: string | null }>) {
      yield { seq: r.seq, sender: r.sender, carrier: r.carrier, channel: r.channel, tOffsetMs: r.t_offset_ms, status: r.status, json: parseJson(r.json) };
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
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

function summary(r: ExchangeRecord): ExchangeSummary {
  const endMs = r.ended_ms ?? r.last_ms;
  return {
    id: r.id,
    transport: r.transport,
    protocol: r.protocol,
    method: r.method,
    path: r.path,
    status: r.status,
    outcome: r.outcome,
    startedMs: r.started_ms,
    endMs,
    durationMs: endMs === null ? null : Math.max(0, endMs - r.started_ms),
    open: r.ended_ms === null,
    messageCount: r.message_count,
    invalidCount: r.invalid_count,
  };
}

/** `jsonOf(seq)`: the stored JSON of a message whose label SQLite could not read. */
function messageSummary(r: MessageSummaryRecord, jsonOf: (seq: number) => string | null, context: LabelContext): MessageSummary {
  let label: string;
  if (r.big_label === '') label = displayLabel(labelJson(jsonOf(r.seq)), r, context);
  // A big body with no type of its own: named from its context, as a small one is ({} stands in for it).
  else if (r.big_label === 'object') label = displayLabel({}, r, context);
  else if (r.big_label !== null) label = r.big_label;
  else label = displayLabel(labelJson(r.json), r, context);
  return {
    seq: r.seq,
    sender: r.sender,
    carrier: r.carrier,
    channel: r.channel,
    tOffsetMs: r.t_offset_ms,
    label,
    status: r.status,
    findingCount: r.finding_count,
    size: r.size,
  };
}
