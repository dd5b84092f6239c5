import { isUtf8 } from 'node:buffer';
import { error, warning } from '../../core/finding.js';
import { cutBelow, MAX_JSON_DEPTH, tooDeepToWalk, valueNestsDeeperThan } from '../../core/json-depth.js';
import { stringifyJson } from '../../core/json-text.js';
import type { HttpContext, InboundMessage, Sender } from '../../core/message.js';
import { unchecked, withFindings, type Verdict } from '../../core/verdict.js';
import { classifyChannel, protocolById } from '../../protocols/catalog.js';
import type { ChannelHint, CheckerContext, ProtocolId, ProtocolModule } from '../../protocols/protocol.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate, RecordingWriter } from '../../store/recording-writer.js';
import { MessageJudge } from '../../judge/message-judge.js';
import { SecretTracker } from '../../judge/secret-tracker.js';
import { RecordingScope } from '../../protocols/recording-scope.js';
import { tooDeepVerdict } from '../../judge/too-deep.js';
import type { LiveListener } from '../live-events.js';
import type { RecordingClock } from '../../core/recording-clock.js';
import { DEFAULT_MAX_BODY_BYTES, type BodyTap, type ExchangeSink, type RecordOptions, type RecordingSink, type TapSpec } from './recording-sink.js';
import { decodingTap, ProtoTap, SseTap, WholeBodyTap } from './body-taps.js';
import { linesTap } from './line-tap.js';
import { UnparsedWriteOnly } from '../../judge/unparsed-write-only.js';
import { FieldRedactor } from '../../judge/field-redaction.js';
import { QueryRedactor } from '../../judge/query-redaction.js';
import { jsonParseCost } from '../../core/json-parse-cost.js';
import { cutByClientOrProxy } from '../../core/exchange-ending.js';
import { parseBudgetBytes } from '../worker/recorder-memory.js';
import type { RecordingTotals } from './recording-sink.js';

export { DEFAULT_MAX_BODY_BYTES } from './recording-sink.js';

export interface TrafficRecorderOptions {
  writer: RecordingWriter;
  registry: SchemaRegistry;
  clock: RecordingClock;
  /** Force one protocol for every exchange instead of classifying. */
  protocol?: ProtocolId;
  /** Messages larger than this are stored truncated and not parsed. */
  maxBodyBytes?: number;
  listener?: LiveListener;
  /** What to hide from storage beyond the defaults (headers are redacted by capture, HeaderRedactor). */
  redact?: StorageRedactionOptions;
}

/** `--redact-query` and `--redact-field`: more query parameter names, and JSON fields (key names or pointers). */
export interface StorageRedactionOptions {
  queryParams?: readonly string[];
  fields?: readonly string[];
}

/**
 * Turns captured traffic into stored rows with verdicts. Capture code calls it after it has
 * forwarded the bytes; everything here is synchronous and ends in the writer's in-memory queue.
 */
export class TrafficRecorder implements RecordingSink {
  readonly overloaded = false;
  readonly secrets = new SecretTracker();
  /** State checkers share across the recording's channels (Pi extension UI requests per daemon session). */
  readonly scope = new RecordingScope();
  readonly clock: RecordingClock;
  /** @internal */
  readonly fieldRedactor: FieldRedactor;
  /** @internal */
  readonly queryRedactor: QueryRedactor;
  private readonly recordingJudges = new Map<ProtocolId, MessageJudge>();
  private readonly writeOnlyScanners = new Map<ProtocolId, UnparsedWriteOnly>();
  /** Heap one message's parse may take; a message that would take more is stored unparsed. */
  readonly parseBudget: number;

  constructor(readonly options: TrafficRecorderOptions) {
    this.clock = options.clock;
    this.queryRedactor = new QueryRedactor(options.redact?.queryParams);
    this.fieldRedactor = new FieldRedactor(options.redact?.fields);
    this.parseBudget = parseBudgetBytes(this.maxBodyBytes);
  }

  get maxBodyBytes(): number {
    return this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  }

  onDrain(): void {
    // Recording in this thread never falls behind the capture: there is nothing to wait for.
  }

  totals(): RecordingTotals {
    return { ...this.options.writer.totals };
  }

  async close(endedAt: Date): Promise<RecordingTotals> {
    this.options.writer.close(endedAt);
    return { ...this.options.writer.totals };
  }

  /** `at`: when the exchange started, if it was stamped elsewhere (the capture thread). */
  openExchange(start: Omit<ExchangeStart, 'tOffsetMs'>, at?: number): ExchangeRecording {
    const tOffsetMs = at ?? this.clock.now();
    const id = this.options.writer.beginExchange({ ...this.storableStart(start), tOffsetMs });
    return new ExchangeRecording(this, id, start, tOffsetMs);
  }

  /** The exchange as stored: secret query parameter values replaced in `query` and `url` (a stdio command line has no query). */
  private storableStart(start: Omit<ExchangeStart, 'tOffsetMs'>): Omit<ExchangeStart, 'tOffsetMs'> {
    if (start.query === undefined) return start;
    const query = this.queryRedactor.redact(start.query);
    if (query === start.query) return start;
    return { ...start, query, url: start.url === undefined ? undefined : this.queryRedactor.redactUrl(start.url) };
  }

  /** @internal the scanner for a protocol's write-only fields in messages that were not parsed, if it has any. */
  unparsedWriteOnly(protocol: ProtocolModule | undefined): UnparsedWriteOnly | undefined {
    const pointers = protocol?.replay?.writeOnlyFields;
    if (!protocol || !pointers?.length) return undefined;
    let scanner = this.writeOnlyScanners.get(protocol.id);
    if (!scanner) this.writeOnlyScanners.set(protocol.id, (scanner = new UnparsedWriteOnly(pointers)));
    return scanner;
  }

  /** @internal the judge for a protocol: per exchange, or shared for recording-scoped protocols. */
  judgeFor(module: ProtocolModule, requestBody: unknown, channel?: CheckerContext['channel']): MessageJudge {
    const context: CheckerContext = { registry: this.options.registry, secrets: this.secrets, requestBody, channel, scope: this.scope };
    if (module.checkerScope !== 'recording') return new MessageJudge(module.createChecker(context), this.secrets);
    let judge = this.recordingJudges.get(module.id);
    if (!judge) {
      judge = new MessageJudge(module.createChecker(context), this.secrets);
      this.recordingJudges.set(module.id, judge);
    }
    return judge;
  }

  /** @internal */
  forcedProtocol(): ProtocolModule | undefined {
    return this.options.protocol ? protocolById(this.options.protocol) : undefined;
  }
}

interface StoredMessage {
  id: number;
  verdict: Verdict;
}

/** One exchange being recorded: an HTTP request/response, an SSE or protobuf stream, or a WebSocket connection. */
export class ExchangeRecording implements ExchangeSink {
  protocol?: ProtocolModule;
  /** The parsed request body, once recorded: AG-UI checkers need the RunAgentInput. */
  private requestBody: unknown;
  /** Headers as stored (redacted), given to checkers with each body so capture sends them only once. */
  private requestHeaders: ExchangeStart['requestHeaders'];
  private responseHeaders: ExchangeUpdate['responseHeaders'];
  private judge?: MessageJudge;
  private last?: StoredMessage;
  private ended = false;
  messages = 0;
  invalid = 0;
  unchecked = 0;
  status?: number;
  transport: ExchangeStart['transport'];

  constructor(
    private readonly recorder: TrafficRecorder,
    readonly id: number,
    private readonly start: Omit<ExchangeStart, 'tOffsetMs'>,
    private readonly startedMs: number,
  ) {
    this.transport = start.transport;
    this.requestHeaders = start.requestHeaders;
    const forced = recorder.forcedProtocol();
    if (forced) this.adopt(forced, undefined);
  }

  /** Picks the protocol from what is known so far; the first confident answer sticks. */
  classify(hint: ChannelHint): void {
    if (this.protocol) return;
    const requestBody = hint.requestBody ?? this.requestBody;
    const module = classifyChannel(requestBody === undefined ? hint : { ...hint, requestBody });
    if (module) this.adopt(module, requestBody);
  }

  /** A tap that frames a body's chunks into messages of this exchange. */
  tap(spec: TapSpec): BodyTap {
    if (spec.kind === 'lines') return linesTap(this, spec, this.recorder.maxBodyBytes);
    const inner: BodyTap =
      spec.kind === 'sse'
        ? new SseTap(this, spec.sender, this.recorder.maxBodyBytes)
        : spec.kind === 'proto'
          ? new ProtoTap(this, spec.sender, this.recorder.parseBudget)
          : new WholeBodyTap(this, spec.sender, this.recorder.maxBodyBytes, spec.kind === 'json', spec.http);
    return decodingTap(spec.contentEncoding, inner);
  }

  update(update: ExchangeUpdate): void {
    if (update.status !== undefined) this.status = update.status;
    if (update.responseHeaders !== undefined) this.responseHeaders = update.responseHeaders;
    if (update.transport !== undefined) this.transport = update.transport;
    this.recorder.options.writer.updateExchange(this.id, update);
  }

  /** Records one message. Never throws on bad input: bad input becomes a finding. */
  record(sender: Sender, raw: Buffer, options: RecordOptions): void {
    const tOffsetMs = options.at ?? this.recorder.clock.now();
    const http = options.http && {
      ...options.http,
      requestHeaders: options.http.requestHeaders ?? this.requestHeaders,
      responseHeaders: options.http.status === undefined ? undefined : (options.http.responseHeaders ?? this.responseHeaders),
    };
    const max = this.recorder.maxBodyBytes;
    const size = options.totalBytes ?? raw.length;
    const oversized = size > max;
    let value: unknown = options.value;
    let parseError: string | undefined = options.parseError;
    let text: string | undefined = options.payload;
    /** What parsing it would cost, when that is more than the recorder lets one message take. */
    let parseCost = options.parseCost ?? 0;
    if (value === undefined && parseError === undefined && options.json !== false && !oversized && parseCost === 0) {
      if (text === undefined && !isUtf8(raw)) parseError = 'the message is not valid UTF-8';
      else {
        text ??= raw.toString('utf8');
        parseCost = jsonParseCost(text, this.recorder.parseBudget);
        if (parseCost <= this.recorder.parseBudget) {
          parseCost = 0;
          try {
            value = JSON.parse(text);
          } catch (error) {
            parseError = `the message is not valid JSON: ${(error as Error).message}`;
          }
        }
      }
    }
    // Too deep to walk: not judged, and what later messages are judged against is its top only.
    const tooDeep = value !== undefined && (text !== undefined ? tooDeepToWalk(text) : valueNestsDeeperThan(value, MAX_JSON_DEPTH));
    if (sender === 'client' && options.carrier === 'body' && value !== undefined) {
      this.requestBody = tooDeep ? cutBelow(value, MAX_JSON_DEPTH) : value;
      // The request body is what tells an AG-UI run from other POSTs; classify before judging it.
      if (!this.protocol && http) this.classify({ transport: 'http', method: http.method, path: http.path, requestBody: this.requestBody });
    } else if (sender === 'client' && options.carrier === 'body' && !this.protocol && http) {
      // Not parsed: the route alone may still name the protocol, whose write-only fields must not be stored.
      this.classify({ transport: 'http', method: http.method, path: http.path });
    }
    const inbound: InboundMessage = { sender, carrier: options.carrier, value, parseError, text, http: http, tooDeep };
    let verdict: Verdict;
    if (oversized) {
      const tooBig = warning('oversized-message', '', `the message is ${size} bytes, more than the ${max}-byte limit; it was forwarded whole and stored truncated`);
      // What the caller already knows is wrong with it (a line cut off by a disconnect) still counts.
      verdict = options.parseError
        ? { status: 'invalid', findings: [error('invalid-json', '', options.parseError), tooBig] }
        : unchecked(`message of ${size} bytes is over --max-body ${max}; stored truncated, not judged`, [tooBig]);
    } else if (parseCost > 0) {
      verdict = unchecked(`message of ${size} bytes would take about ${mib(parseCost)} MiB to parse, more than the recorder's ${mib(this.recorder.parseBudget)} MiB; stored whole, not judged`, [
        warning(
          'complex-message',
          '',
          `the message is ${size} bytes of so many small values that parsing it would take about ${mib(parseCost)} MiB of memory, more than the recorder's ${mib(this.recorder.parseBudget)} MiB; it was forwarded and stored whole, not judged`,
        ),
      ]);
    } else if (options.judge === false) {
      verdict = unchecked(`${options.channel ?? 'control'} frame, not a protocol message`);
    } else if (options.json === false && value === undefined && parseError === undefined) {
      verdict = unchecked('not a JSON message');
    } else if (this.judge) {
      verdict = this.judge.judge(inbound);
    } else if (parseError) {
      verdict = { status: 'invalid', findings: [{ rule: 'invalid-json', severity: 'error', pointer: '', message: parseError }] };
    } else if (tooDeep) {
      verdict = tooDeepVerdict();
    } else {
      verdict = unchecked('no known protocol recognised this exchange');
    }
    const kept = oversized ? raw.subarray(0, max) : raw;
    const stored = this.storable(inbound, kept, options.channel, options.json !== false);
    const id = this.recorder.options.writer.addMessage({
      exchangeId: this.id,
      sender,
      carrier: options.carrier,
      channel: options.channel,
      tOffsetMs,
      raw: stored.raw,
      json: stored.value,
      // The text it was parsed from, unless redaction changed the value: saves serialising it again.
      jsonText: value !== undefined && stored.value === value && text !== undefined && options.value === undefined ? text : undefined,
      verdict,
      // Over --max-body, or a frame the framer kept only the start of (a protobuf frame over the client's limit).
      rawTruncatedFrom: oversized || size > raw.length ? size : undefined,
    });
    this.last = { id, verdict };
    this.messages++;
    if (verdict.status === 'unchecked') this.unchecked++;
    if (verdict.status === 'invalid') {
      this.invalid++;
      this.recorder.options.listener?.({
        type: 'invalid-message',
        exchangeId: this.id,
        sender,
        label: labelOf(stored.value, http),
        status: verdict.status,
        findings: verdict.findings,
        tOffsetMs,
      });
    }
  }

  /** Ends the exchange; stream-level findings (truncation, unanswered requests) attach to its last message. */
  end(end: Omit<ExchangeEnd, 'tOffsetMs'>, at?: number): void {
    if (this.ended) return;
    this.ended = true;
    const tOffsetMs = at ?? this.recorder.clock.now();
    // A proxy-level failure (upstream unreachable) says nothing about the protocol: no stream rules.
    // Nor does a stream the client or the proxy's shutdown cut short: the agent was still sending.
    if (this.judge && this.protocol?.checkerScope !== 'recording' && end.outcome !== 'error' && !cutByClientOrProxy(end.errorCode)) {
      const findings = this.judge.end(end.outcome === 'complete' ? 'complete' : 'aborted');
      if (findings.length > 0 && this.last) {
        const before = this.last.verdict;
        const after = withFindings(before, findings);
        this.recorder.options.writer.addFindings(this.last.id, this.id, findings, after);
        if (before.status !== 'invalid' && after.status === 'invalid') this.invalid++;
        if (before.status === 'unchecked' && after.status !== 'unchecked') this.unchecked--;
        this.last.verdict = after;
      }
    }
    this.recorder.options.writer.endExchange(this.id, { ...end, tOffsetMs });
    this.recorder.options.listener?.({
      type: 'exchange-end',
      exchangeId: this.id,
      transport: this.transport,
      protocol: this.protocol?.id,
      method: this.start.method,
      path: this.start.path,
      status: this.status,
      outcome: end.outcome,
      messages: this.messages,
      invalid: this.invalid,
      unchecked: this.unchecked,
      ...(end.errorCode !== undefined ? { errorCode: end.errorCode } : {}),
      durationMs: tOffsetMs - this.startedMs,
      tOffsetMs,
      stored: this.recorder.options.writer.failure === undefined,
    });
  }

  private adopt(module: ProtocolModule, requestBody: unknown): void {
    this.protocol = module;
    this.judge = this.recorder.judgeFor(module, requestBody, { transport: this.transport, ...(this.start.path === undefined ? {} : { path: this.start.path }) });
    this.recorder.options.writer.updateExchange(this.id, { protocol: module.id });
  }

  /**
   * What may be written to disk: write-only fields replaced (the protocol's, then secret fields), and
   * no registered secret anywhere. Called after judging, which saw the real values.
   */
  private storable(inbound: InboundMessage, raw: Buffer, channel: string | undefined, json: boolean): { raw: Buffer; value: unknown } {
    let value = inbound.value;
    let bytes = raw;
    let text = inbound.text;
    const secrets = this.recorder.secrets;
    const replacement = value !== undefined ? this.protocol?.redactForStorage?.(inbound, secrets) : undefined;
    if (replacement !== undefined) {
      value = replacement;
      text = stringifyJson(replacement)!;
      bytes = Buffer.from(text);
    }
    if (value !== undefined) {
      const redacted = this.recorder.fieldRedactor.redact(value, bytes, text, channel);
      if (redacted) ({ value, raw: bytes } = redacted);
    } else if (inbound.carrier === 'body' && isFormBody(inbound)) {
      // A form body is a query string: OAuth token requests carry client_secret and password this way.
      const form = bytes.toString('latin1');
      const redacted = this.recorder.queryRedactor.redact(form);
      if (redacted !== form) bytes = Buffer.from(redacted, 'latin1');
    } else if (json && channel !== 'proto') {
      // Not parsed (over --max-body, too costly to parse) or not valid JSON: its text is still
      // scanned for secret fields, from its first bracket to where it ends. (A protobuf frame that
      // did not decode is binary, with no JSON text to scan.)
      const writeOnly = inbound.sender === 'client' ? this.recorder.unparsedWriteOnly(this.protocol) : undefined;
      if (writeOnly) bytes = writeOnly.redact(bytes, (key, found) => secrets.registerEnv({ [key]: found })) ?? bytes;
      bytes = this.recorder.fieldRedactor.redactTruncated(bytes) ?? bytes;
    }
    if (secrets.size > 0) {
      bytes = secrets.scrubBytes(bytes);
      value = secrets.scrubValue(value);
    }
    return { raw: bytes, value };
  }
}

function isFormBody(message: InboundMessage): boolean {
  const headers = message.sender === 'client' ? message.http?.requestHeaders : message.http?.responseHeaders;
  if (!headers) return false;
  for (const [name, value] of Object.entries(headers)) {
    if (name.length === 12 && name.toLowerCase() === 'content-type') {
      return String(Array.isArray(value) ? value[0] : value).toLowerCase().startsWith('application/x-www-form-urlencoded');
    }
  }
  return false;
}

function mib(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(0);
}

function labelOf(value: unknown, http?: HttpContext): string {
  if (value !== null && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    for (const key of ['type', 'kind', 'method', 'operation', 'event']) if (typeof v[key] === 'string') return v[key] as string;
  }
  return http ? `${http.method} ${http.path}` : 'message';
}
