import { createHash } from 'node:crypto';
import type { Finding } from '../core/finding.js';
import type { VerdictStatus } from '../core/verdict.js';
import { PROTOCOL_IDS, type ProtocolId } from '../protocols/protocol.js';
import { FieldSpecs } from '../replay/field-specs.js';
import { canonicalJson, normalizeJson, volatileFieldsOf } from '../replay/normalize.js';
import type { RecordingReader } from '../store/recording-reader.js';
import type { ExchangeRow, Headers, MessageRow } from '../store/store-types.js';
import { encodeRaw } from '../export/ndjson-format.js';
import type { ExchangeRef, MessageRef } from './diff-report.js';
import { IdCanonicalizer, isIdSpec } from './id-canonicalizer.js';
import { canonicalPath, canonicalQuery, pathTemplate } from './path-template.js';
import { isFoldedMessage, materializeAguiRun, materializePiSession, piEventOf, semanticKind } from './semantic.js';

/** Headers that differ on every run or only describe the connection: never compared. */
export const VOLATILE_HEADERS: ReadonlySet<string> = new Set([
  'date', 'etag', 'last-modified', 'expires', 'age', 'x-request-id', 'request-id', 'x-correlation-id', 'traceparent',
  'tracestate', 'x-trace-id', 'x-amzn-trace-id', 'x-b3-traceid', 'x-b3-spanid', 'x-b3-parentspanid', 'x-b3-sampled',
  'x-cloud-trace-context', 'cf-ray', 'server-timing', 'x-response-time', 'x-runtime', 'via', 'idempotency-key', 'host',
  'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'user-agent', 'x-accel-buffering', 'content-encoding',
  'vary', 'sec-websocket-key', 'sec-websocket-accept', 'sec-websocket-extensions',
]);

export interface SideMessage {
  ref: MessageRef;
  /** sender, carrier and label: what alignment pairs changed messages by. */
  loose: string;
  /** loose + normalized value + verdict: equal means nothing to report. */
  exact: string;
  /** The normalized value (JSON), or the raw text for a non-JSON message. */
  value: unknown;
  errorRules: string[];
  errorFindings: Finding[];
}

export interface SideExchange {
  ref: ExchangeRef;
  loose: string;
  exact: string;
  /** The exchange-level fields that are compared, normalized. */
  fields: Record<string, unknown>;
  messages: SideMessage[];
}

export interface Side {
  file: string;
  exchanges: SideExchange[];
  messageCount: number;
}

export interface SideOptions {
  ignore: readonly string[];
  semantic: boolean;
}

/** Reads one recording in order and normalizes it; id labels follow first appearance on this side. */
export function loadSide(file: string, reader: RecordingReader, options: SideOptions): Side {
  const ids = new IdCanonicalizer();
  const userSpecs = new FieldSpecs(options.ignore);
  const dropByProtocol = new Map<string, FieldSpecs>();
  const dropFor = (protocol: string | null): FieldSpecs => {
    const key = protocol ?? '';
    let specs = dropByProtocol.get(key);
    if (!specs) {
      const known = (PROTOCOL_IDS as readonly string[]).includes(key) ? (key as ProtocolId) : undefined;
      specs = new FieldSpecs([...volatileFieldsOf(known).filter((s) => !isIdSpec(s)), ...options.ignore]);
      dropByProtocol.set(key, specs);
    }
    return specs;
  };
  const exchanges: SideExchange[] = [];
  let messageCount = 0;
  for (const row of reader.exchanges()) {
    const rows = reader.messages(row.id);
    messageCount += rows.length;
    exchanges.push(loadExchange(row, rows, ids, dropFor(row.protocol), userSpecs, options.semantic));
  }
  return { file, exchanges, messageCount };
}

function loadExchange(row: ExchangeRow, rows: MessageRow[], ids: IdCanonicalizer, drop: FieldSpecs, userSpecs: FieldSpecs, semantic: boolean): SideExchange {
  const template = pathTemplate(row.path, ids);
  const loose = [row.transport, row.protocol ?? '', row.method ?? '', template, row.subprotocol ?? ''].join(' ');
  const path = canonicalPath(row.path, ids);
  const query = canonicalQuery(row.query, ids);
  const requestHeaders = normalizeHeaders(row.requestHeaders, ids);
  const normalize = (value: unknown) => normalizeJson(ids.canonicalize(value), drop);
  const messages: SideMessage[] = [];
  const kind = semantic ? semanticKind(row.protocol, row.transport) : undefined;
  const folded: MessageRow[] = [];
  for (const m of rows) {
    if (kind && isFoldedMessage(kind, m)) folded.push(m);
    else messages.push(sideMessage(m, labelOf(m.json, m), m.json === undefined ? rawText(m) : normalize(m.json), m.json === undefined));
  }
  if (kind && folded.length > 0) {
    const request = rows.find((m) => m.sender === 'client' && m.json !== undefined)?.json;
    const result =
      kind === 'agui'
        ? materializeAguiRun(folded.map((m) => m.json), request)
        : materializePiSession(folded.map((m) => piEventOf(m.json)!));
    const last = folded[folded.length - 1];
    const worst: VerdictStatus = folded.some((m) => m.verdict.status === 'invalid') ? 'invalid' : folded.some((m) => m.verdict.status === 'unchecked') ? 'unchecked' : 'valid';
    const synthetic: MessageRow = {
      ...last,
      carrier: last.carrier,
      verdict: { status: worst, findings: folded.flatMap((m) => m.verdict.findings) },
    };
    messages.push(sideMessage(synthetic, result.kind, normalize(result), false));
  }
  const responseHeaders = normalizeHeaders(row.responseHeaders, ids);
  const fields = normalizeJson(
    {
      method: row.method,
      path,
      query,
      status: row.status,
      subprotocol: row.subprotocol,
      outcome: row.outcome,
      closeCode: row.closeCode,
      closeReason: row.closeReason,
      errorCode: row.errorCode,
      exitCode: row.exitCode,
      signal: row.signal,
      requestHeaders,
      responseHeaders,
    },
    userSpecs,
  ) as Record<string, unknown>;
  const hash = createHash('sha1').update(loose).update('\0').update(JSON.stringify(fields));
  for (const m of messages) hash.update('\0').update(m.exact);
  return {
    ref: { id: row.id, transport: row.transport, protocol: row.protocol, method: row.method, path: row.path, status: row.status },
    loose,
    exact: hash.digest('base64'),
    fields,
    messages,
  };
}

function sideMessage(m: MessageRow, label: string, value: unknown, raw: boolean): SideMessage {
  const errorFindings = m.verdict.findings.filter((f) => f.severity === 'error');
  const errorRules = [...new Set(errorFindings.map((f) => f.rule))].sort();
  const loose = `${m.sender} ${m.carrier} ${m.channel ?? ''} ${label}`;
  const canon = raw ? `raw:${String(value)}` : canonicalJson(value);
  return {
    ref: { seq: m.seq, sender: m.sender, label, status: m.verdict.status },
    loose,
    exact: `${loose}\0${canon}\0${m.verdict.status}\0${errorRules.join(',')}`,
    value,
    errorRules,
    errorFindings,
  };
}

function rawText(m: MessageRow): string {
  const encoded = encodeRaw(m.raw);
  return 'raw' in encoded ? encoded.raw : `base64:${encoded.rawBase64}`;
}

function normalizeHeaders(headers: Headers | null, ids: IdCanonicalizer): Record<string, string> | null {
  if (!headers) return null;
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers).map((n) => n.toLowerCase()).sort()) {
    if (VOLATILE_HEADERS.has(name)) continue;
    const value = Object.entries(headers).find(([k]) => k.toLowerCase() === name)![1];
    const text = Array.isArray(value) ? value.join(', ') : value;
    const known = ids.known(text);
    out[name] = known !== undefined ? known : text;
  }
  return out;
}

/** A short label for alignment and display: event type, frame kind (with the event type inside), JSON-RPC method … */
export function labelOf(value: unknown, m: Pick<MessageRow, 'channel' | 'carrier'>): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const r = value as Record<string, unknown>;
    if (typeof r.kind === 'string') {
      const inner = (r.event ?? r.response ?? r.command) as Record<string, unknown> | undefined;
      if (inner && typeof inner === 'object' && typeof inner.type === 'string') return `${r.kind}:${inner.type}`;
      return r.kind;
    }
    for (const key of ['type', 'method', 'operation', 'event']) if (typeof r[key] === 'string') return r[key] as string;
    if (r.jsonrpc === '2.0') return 'id' in r ? 'response' : 'json-rpc';
    return 'object';
  }
  if (value !== undefined) return typeof value;
  return m.channel ?? m.carrier;
}
