import type { Finding } from '../core/finding.js';
import { compactJson } from '../core/json-text.js';
import { messageLabel } from '../core/message-label.js';
import type { Verdict, VerdictStatus } from '../core/verdict.js';
import { factsOf, PROTOCOL_IDS } from '../protocols/catalog.js';
import { diffDroppedFieldsOf } from '../protocols/field-roles.js';
import { FieldSpecs } from '../core/field-specs.js';
import { canonicalJson, normalizeJson } from '../match/normalize.js';
import type { ExchangeRow, Headers, MessageRow } from '../store/store-types.js';
import { encodeRaw } from '../store/ndjson-format.js';
import { CanonicalTexts } from './canonical-texts.js';
import type { ExchangeRef, MessageRef } from './diff-report.js';
import type { IdLogEntry } from './id-roles.js';
import { FieldMatcher, type IdCanonicalizer } from './id-canonicalizer.js';
import type { LaterValues } from './later-value.js';
import { canonicalPath, canonicalQuery, pathTemplate } from './path-template.js';
import { alignedTransport, feedsMaterializer, foldedCarrier, foldedPlace, isFoldedMessage, saysNothing, semanticDrops, semanticFoldOf, streamOf } from './semantic.js';
import type { SemanticFold } from '../protocols/protocol.js';

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
  /** Its stream under --semantic (streamOf). */
  stream: number;
  /** A `--semantic` result's names for its differences (SemanticFold.describe). */
  describe?: (pointer: string, a: unknown, b: unknown) => string | undefined;
}

/** One exchange of one side, loaded in full for reporting. */
export interface SideExchange {
  ref: ExchangeRef;
  loose: string;
  /** The exchange-level fields that are compared, normalized. */
  fields: Record<string, unknown>;
  messages: SideMessage[];
}

export interface SideOptions {
  ignore: readonly string[];
  semantic: boolean;
}

/** The field specs one side drops, per protocol: the protocol's volatile fields (no ids: those are labelled), and `--ignore`. */
export class DropSpecs {
  readonly user: FieldSpecs;
  private readonly byProtocol = new Map<string, { specs: FieldSpecs; matcher: FieldMatcher }>();

  constructor(
    private readonly ignore: readonly string[],
    private readonly semantic = false,
  ) {
    this.user = new FieldSpecs(ignore);
  }

  /** For normalizeJson. */
  for(protocol: string | null): FieldSpecs {
    return this.entry(protocol).specs;
  }

  /** The same set, for IdCanonicalizer.canonicalText. */
  matcherFor(protocol: string | null): FieldMatcher {
    return this.entry(protocol).matcher;
  }

  private entry(protocol: string | null): { specs: FieldSpecs; matcher: FieldMatcher } {
    const key = protocol ?? '';
    let entry = this.byProtocol.get(key);
    if (!entry) {
      const known = (PROTOCOL_IDS as readonly string[]).includes(key) ? factsOf(key) : undefined;
      const list = [...diffDroppedFieldsOf(known), ...(this.semantic ? semanticDrops(protocol) : []), ...this.ignore];
      entry = { specs: new FieldSpecs(list), matcher: new FieldMatcher(list) };
      this.byProtocol.set(key, entry);
    }
    return entry;
  }
}

/**
 * What alignment needs of an exchange's start: its loose key, plus the canonical path, query and request headers
 * (learning ids in order). Under `--semantic` a model call streamed and one answered whole share their key (alignedTransport).
 */
export function exchangeHead(row: ExchangeRow, ids: IdCanonicalizer, semantic = false): { loose: string; template: string; path: string; query: string; requestHeaders: Record<string, string> | null } {
  const template = pathTemplate(row.path, ids);
  const loose = [alignedTransport(row.protocol, row.transport, semantic), row.protocol ?? '', row.method ?? '', template, row.subprotocol ?? ''].join(' ');
  const path = canonicalPath(row.path, ids);
  const query = canonicalQuery(row.query, ids);
  return { loose, template, path, query, requestHeaders: normalizeHeaders(row.requestHeaders, ids) };
}

/** The exchange-level fields that are compared (after the messages: response headers may echo ids learnt in them). */
export function exchangeFields(row: ExchangeRow, head: ReturnType<typeof exchangeHead>, ids: IdCanonicalizer, userSpecs: FieldSpecs): Record<string, unknown> {
  const responseHeaders = normalizeHeaders(row.responseHeaders, ids);
  return normalizeJson(
    {
      method: row.method,
      path: head.path,
      query: head.query,
      status: row.status,
      subprotocol: row.subprotocol,
      outcome: row.outcome,
      closeCode: row.closeCode,
      closeReason: row.closeReason === null ? null : ids.plain(row.closeReason),
      errorCode: row.errorCode,
      exitCode: row.exitCode,
      signal: row.signal,
      requestHeaders: head.requestHeaders,
      responseHeaders,
    },
    userSpecs,
  ) as Record<string, unknown>;
}

/** The verdict of the one `--semantic` result standing for the folded messages: the worst of theirs, with all their findings. */
export function foldedVerdict(folded: ReadonlyArray<{ verdict: Verdict }>): Verdict {
  const worst: VerdictStatus = folded.some((m) => m.verdict.status === 'invalid') ? 'invalid' : folded.some((m) => m.verdict.status === 'unchecked') ? 'unchecked' : 'valid';
  return { status: worst, findings: folded.flatMap((m) => m.verdict.findings) };
}

/** The `--semantic` result of an exchange's folded server messages. */
export function materialize(fold: SemanticFold, fed: ReadonlyArray<Pick<MessageRow, 'sender' | 'json'>>, request: unknown): { kind: string } {
  return fold.fold(fed.map((m) => m.json), request, fed.map((m) => m.sender));
}

/** A message as loadExchange reads it: its place, its verdict, and its JSON (text and value) or raw bytes. */
export interface LoadRow extends Pick<MessageRow, 'seq' | 'sender' | 'carrier' | 'channel' | 'verdict'> {
  /** The JSON text, or the raw bytes of a message that is not JSON. */
  body: string | Buffer;
  /** The parsed JSON; undefined for raw bytes, and for JSON nested too deep to walk. */
  json: unknown;
  /** Its canonical text, when the loading had its JSON text before in the same id state (CanonicalTexts.get). */
  canon?: string;
}

/**
 * Loads and normalizes one exchange for reporting. `ids` must be in the state it had before this exchange
 * (IdCanonicalizer.restore); it learns the exchange's ids. Messages are compared by their canonical text;
 * the values a report shows are made only for those it reports (LaterValues). `texts` are the
 * canonical texts `rows` may have reused (LoadRow.canon), made in this loading (the same `ids`).
 * With `resume`, `rows` start further in (common-prefix.ts): after the head, `ids` are moved on to
 * where they were before the first of them (`idsBefore` of the side's id log).
 */
export function loadExchange(
  row: ExchangeRow,
  rows: Iterable<LoadRow>,
  ids: IdCanonicalizer,
  drop: DropSpecs,
  later: LaterValues,
  semantic: boolean,
  texts = new CanonicalTexts(ids),
  resume?: { log: readonly IdLogEntry[]; idsBefore: number },
): SideExchange {
  const head = exchangeHead(row, ids, semantic);
  if (resume) ids.restore(resume.log, resume.idsBefore);
  const specs = drop.for(row.protocol);
  const matcher = drop.matcherFor(row.protocol);
  const messages: SideMessage[] = [];
  const kind = semantic ? semanticFoldOf(row.protocol, row.transport) : undefined;
  const folded: LoadRow[] = [];
  const fed: LoadRow[] = [];
  let request: unknown;
  // The comparing texts made from a reused canonical text (LoadRow.canon), last one per loose key.
  const exacts = new Map<string, Map<string, string>>();
  // One pass (`rows` are streamed): only what is compared is kept of each row.
  for (const m of rows) {
    const body = m.body;
    if (request === undefined && m.sender === 'client' && m.json !== undefined) request = m.json;
    if (kind && feedsMaterializer(kind, m)) fed.push(m);
    if (kind && isFoldedMessage(kind, m)) folded.push(m);
    else if (typeof body !== 'string') {
      if (saysNothing(kind, { json: undefined, status: m.verdict.status }, () => rawText(body))) continue;
      messages.push(sideMessage(m, diffLabel(undefined, m, row, head), rawText(body), true));
    }
    // Nested too deep to normalize (a recursive walk): compared by its compact text, labelled by its top.
    else if (m.json === undefined) messages.push(sideMessage(m, diffLabel(JSON.parse(body), m, row, head), compactJson(body), true));
    else {
      // Compared by its canonical text (the same ids learnt in the same order); its value is made only if reported.
      const checkpoint = ids.size;
      const canon = m.canon ?? texts.make(body, m.json, matcher);
      const label = diffLabel(m.json, m, row, head);
      const loose = messageLoose(m, label);
      const { errorFindings, errorRules } = errorsOf(m.verdict);
      const exact = sameExact(exacts, m.canon, loose, `${loose}\0${canon}\0${m.verdict.status}\0${errorRules.join(',')}`);
      const ref = { seq: m.seq, sender: m.sender, label, status: m.verdict.status };
      messages.push(new LaterMessage(ref, loose, exact, errorRules, errorFindings, streamOf(m), { json: body, checkpoint, drop: specs, later, log: later.log() }));
    }
  }
  if (kind && fed.length > 0) {
    const result = materialize(kind, fed, request);
    const last = foldedPlace(fed);
    const synthetic: LoadRow = { ...last, carrier: foldedCarrier(kind, last.carrier), verdict: foldedVerdict(folded) };
    messages.push({ ...sideMessage(synthetic, result.kind, normalizeJson(ids.canonicalize(result), specs), false), ...(kind.describe ? { describe: kind.describe } : {}) });
  }
  const fields = exchangeFields(row, head, ids, drop.user);
  return {
    ref: exchangeRef(row),
    loose: head.loose,
    fields,
    // Under --semantic each stream is one sequence, as scanSide hashes them (a stable sort).
    messages: semantic ? messages.map((m, i) => [m, i] as const).sort(([x, i], [y, j]) => x.stream - y.stream || i - j).map(([m]) => m) : messages,
  };
}

export function exchangeRef(row: ExchangeRow): ExchangeRef {
  return { id: row.id, transport: row.transport, protocol: row.protocol, method: row.method, path: row.path, status: row.status };
}

function sideMessage(m: LoadRow, label: string, value: unknown, raw: boolean): SideMessage {
  const { errorFindings, errorRules } = errorsOf(m.verdict);
  const loose = messageLoose(m, label);
  const canon = raw ? `raw:${String(value)}` : canonicalJson(value);
  return {
    ref: { seq: m.seq, sender: m.sender, label, status: m.verdict.status },
    loose,
    exact: `${loose}\0${canon}\0${m.verdict.status}\0${errorRules.join(',')}`,
    value,
    errorRules,
    errorFindings,
    stream: streamOf(m),
  };
}

/** Where a message's value comes from when it is first read (LaterValues.value). */
interface ValueSource {
  json: string;
  checkpoint: number;
  drop: FieldSpecs;
  later: LaterValues;
  log: readonly IdLogEntry[];
}

/** A message compared by its canonical text, whose normalized value is made only when the report reads it. */
class LaterMessage implements SideMessage {
  private source: ValueSource | undefined;
  private made: unknown;

  constructor(
    readonly ref: MessageRef,
    readonly loose: string,
    readonly exact: string,
    readonly errorRules: string[],
    readonly errorFindings: Finding[],
    readonly stream: number,
    source: ValueSource,
  ) {
    this.source = source;
  }

  get value(): unknown {
    const source = this.source;
    if (source !== undefined) {
      this.made = source.later.value(source.json, source.checkpoint, source.drop, source.log);
      this.source = undefined;
    }
    return this.made;
  }
}

function errorsOf(verdict: Verdict): { errorFindings: Finding[]; errorRules: string[] } {
  const findings = verdict.findings;
  if (findings.length === 0) return { errorFindings: NO_FINDINGS, errorRules: NO_RULES };
  const errorFindings = findings.filter((f) => f.severity === 'error');
  return { errorFindings, errorRules: [...new Set(errorFindings.map((f) => f.rule))].sort() };
}

const NO_FINDINGS: Finding[] = [];
const NO_RULES: string[] = [];

/**
 * `exact`, flat, as one string for all messages of the same reused canonical text `canon` and loose key:
 * an exchange holds every message's comparing text while it is aligned, and a stream repeats itself.
 */
function sameExact(exacts: Map<string, Map<string, string>>, canon: string | undefined, loose: string, exact: string): string {
  if (canon === undefined) return flattened(exact);
  let byLoose = exacts.get(canon);
  if (byLoose === undefined) exacts.set(canon, (byLoose = new Map()));
  const same = byLoose.get(loose);
  if (same === exact) return same;
  byLoose.set(loose, flattened(exact));
  return exact;
}

/**
 * `text` as one flat string: a text built piece by piece (canonicalText) is a tree of its pieces, about eight
 * times its size on the heap, and an exchange's texts are all held while its messages are aligned. Reading a
 * character makes V8 flatten it in place.
 */
function flattened(text: string): string {
  text.charCodeAt(0);
  return text;
}

export function rawText(raw: Uint8Array): string {
  const encoded = encodeRaw(raw);
  return 'raw' in encoded ? encoded.raw : `base64:${encoded.rawBase64}`;
}

export function normalizeHeaders(headers: Headers | null, ids: IdCanonicalizer): Record<string, string> | null {
  if (!headers) return null;
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers).map((n) => n.toLowerCase()).sort()) {
    if (VOLATILE_HEADERS.has(name)) continue;
    const value = Object.entries(headers).find(([k]) => k.toLowerCase() === name)![1];
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[name] = SESSION_HEADER.test(name) && text.length > 0 ? ids.label(name, text) : ids.plain(text);
  }
  return out;
}

/**
 * A header that names a session the server issued (MCP's `Mcp-Session-Id`): labelled as an id is,
 * so two runs that were issued other sessions compare equal while one that names another session
 * than it was issued still shows.
 */
const SESSION_HEADER = /(^|-)session-id$/;

/**
 * A message's label in a diff: messageLabel's, with a REST body that names itself by none of its
 * fields named by its place, never `object`: a request by its route (`POST /agent`,
 * `GET /v1/session/{id}`: the path template, so that two runs with other ids still pair the bodies),
 * a response as `response` (not by its status, which would keep a 200 and a 503 from pairing).
 */
export function diffLabel(value: unknown, m: Pick<MessageRow, 'sender' | 'carrier' | 'channel'>, row: Pick<ExchangeRow, 'method'>, head: { template: string }): string {
  if (m.sender === 'client') return messageLabel(value, { sender: m.sender, carrier: m.carrier, channel: m.channel, http: { method: row.method, path: head.template } });
  const label = messageLabel(value, m);
  return m.carrier === 'body' && label === typeof value ? 'response' : label;
}

/** What alignment pairs changed messages by: sender, carrier, channel and label. */
export function messageLoose(m: Pick<MessageRow, 'sender' | 'carrier' | 'channel'>, label: string): string {
  return `${m.sender} ${m.carrier} ${m.channel ?? ''} ${label}`;
}

