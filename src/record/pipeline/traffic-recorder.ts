import { withFindings, type Verdict } from '../../core/verdict.js';
import type { HttpContext, Sender } from '../../core/message.js';
import type { Finding } from '../../core/finding.js';
import type { ChannelHint, CheckerContext, ProtocolModule } from '../../protocols/protocol.js';
import { bindingOfChannel, type ProtocolId } from '../../protocols/catalog.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate, RecordingWriter, WireMessageInput } from '../../store/recording-writer.js';
import type { Headers } from '../../store/store-types.js';
import { parsedValue } from '../../core/serialised-json.js';
import type { MessageJudge } from '../../judge/message-judge.js';
import { MessagePipeline, type ReadMessage, type StorageRedactionOptions } from '../../judge/message-pipeline.js';
import { FrameSample, MAX_HOLD_MS, type HeldFrame } from './frame-sample.js';
import { chooseProtocol, type ProtocolChoice } from '../../judge/protocol-choice.js';
import type { LiveListener } from '../live-events.js';
import type { RecordingClock } from '../../core/recording-clock.js';
import { DEFAULT_MAX_BODY_BYTES, type BodyTap, type ExchangeSink, type RecordOptions, type RecordingSink, type TapSpec } from './recording-sink.js';
import { decodingTap, ProtoTap, SseTap, WholeBodyTap } from './body-taps.js';
import { linesTap } from './line-tap.js';
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

export type { StorageRedactionOptions } from '../../judge/message-pipeline.js';

/**
 * Turns captured traffic into stored rows with verdicts. Capture code calls it after it has
 * forwarded the bytes; everything here is synchronous and ends in the writer's in-memory queue.
 */
export class TrafficRecorder implements RecordingSink {
  readonly overloaded = false;
  readonly clock: RecordingClock;
  /** Read, judge, redact: the same pipeline `validate` judges with. */
  readonly pipeline: MessagePipeline;

  constructor(readonly options: TrafficRecorderOptions) {
    this.clock = options.clock;
    const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.pipeline = new MessagePipeline({ registry: options.registry, maxBodyBytes, parseBudget: parseBudgetBytes(maxBodyBytes), redact: options.redact, live: true });
  }

  /** Heap one message's parse may take; a message that would take more is stored unparsed. */
  get parseBudget(): number {
    return this.pipeline.parseBudget;
  }

  get maxBodyBytes(): number {
    return this.pipeline.maxBodyBytes;
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

  now(): number {
    return this.clock.now();
  }

  /** `at`: when the exchange started, if it was stamped elsewhere (the capture thread) or earlier. */
  openExchange(start: Omit<ExchangeStart, 'tOffsetMs'>, at?: number): ExchangeRecording {
    const tOffsetMs = at ?? this.clock.now();
    const id = this.options.writer.beginExchange(storedStart(this.storableStart(start), tOffsetMs));
    return new ExchangeRecording(this, id, start, tOffsetMs);
  }

  /** The exchange as stored: secret query parameter values replaced in `query` and `url` (a stdio command line has no query). */
  private storableStart(start: Omit<ExchangeStart, 'tOffsetMs'>): Omit<ExchangeStart, 'tOffsetMs'> {
    if (start.query === undefined) return start;
    const { queryRedactor } = this.pipeline;
    const query = queryRedactor.redact(start.query);
    if (query === start.query) return start;
    return { ...start, query, url: start.url === undefined ? undefined : queryRedactor.redactUrl(start.url) };
  }

  /** Which exchange each judge that hands findings judges, for findings one exchange's end hands to another (pipeline.endElsewhere). */
  private readonly exchanges = new WeakMap<MessageJudge, ExchangeRecording>();

  /** @internal */
  judged(judge: MessageJudge, exchange: ExchangeRecording): void {
    this.exchanges.set(judge, exchange);
  }

  /** @internal */
  exchangeOf(judge: MessageJudge): ExchangeRecording | undefined {
    return this.exchanges.get(judge);
  }

  /** @internal */
  forcedProtocol(): ProtocolId | undefined {
    return this.options.protocol;
  }
}

/**
 * An exchange's last stored message: what a stream-level finding amends. One per exchange, its fields
 * replaced by each message (an SSE stream stores thousands), and its label made only if the live
 * view is told of a finding on it after the fact.
 */
interface StoredMessage {
  id: number;
  verdict: Verdict;
  sender: Sender;
  value: unknown;
  options: RecordOptions;
  http: HttpContext | undefined;
}

/**
 * The hint an exchange is classified by: every field of ChannelHint, in one order, so that every hint
 * the recorder makes has the same shape (a copy made by spreading the capture's hint, whose fields vary,
 * made each protocol's classify read it the slow way, ten protocols twice an exchange). The request's
 * body and headers as stored travel with the exchange, not with each hint (MCP's session header).
 */
function exchangeHint(hint: ChannelHint, requestBody: unknown, requestHeaders: ChannelHint['requestHeaders']): ChannelHint {
  // Every field named (`satisfies`): a field added to ChannelHint and left out here does not compile.
  return {
    transport: hint.transport,
    method: hint.method,
    path: hint.path,
    contentType: hint.contentType,
    subprotocol: hint.subprotocol,
    requestBody,
    requestHeaders,
    firstEvent: hint.firstEvent,
    sniffed: hint.sniffed,
  } satisfies Record<keyof ChannelHint, unknown>;
}

/**
 * An exchange's start as the writer is given it: every field of ExchangeStart named, so that every start
 * has one shape whatever capture gave (the credential scan and the writer's copy of its columns read each).
 */
function storedStart(start: Omit<ExchangeStart, 'tOffsetMs'>, tOffsetMs: number): ExchangeStart {
  // Every field named (`satisfies`): a field added to ExchangeStart and left out here does not compile.
  return {
    transport: start.transport,
    protocol: start.protocol,
    method: start.method,
    path: start.path,
    query: start.query,
    url: start.url,
    subprotocol: start.subprotocol,
    requestHeaders: start.requestHeaders,
    tOffsetMs,
  } satisfies Record<keyof ExchangeStart, unknown>;
}

/**
 * An exchange's end as the writer is given it: every field of ExchangeEnd named, so that every end has
 * one shape whatever capture gave (the writer's copy of its columns reads each, on every exchange).
 */
function storedEnd(end: Omit<ExchangeEnd, 'tOffsetMs'>, tOffsetMs: number): ExchangeEnd {
  // Every field named (`satisfies`): a field added to ExchangeEnd and left out here does not compile.
  return {
    outcome: end.outcome,
    errorCode: end.errorCode,
    errorMessage: end.errorMessage,
    closeCode: end.closeCode,
    closeReason: end.closeReason,
    exitCode: end.exitCode,
    signal: end.signal,
    tunnel: end.tunnel,
    tOffsetMs,
  } satisfies Record<keyof ExchangeEnd, unknown>;
}

const DATA_COLON = 0x3a;
const SPACE = 0x20;

/**
 * Where in raw the text a message was parsed from starts, when that is known without decoding raw
 * (WireMessageInput.jsonTextAt, store-types.ts): all of raw (a frame, a body), or an SSE event's one
 * data line when it is the event's first line (`data:`, then the value to the line's end, decoded
 * by the framer). An event of several data lines, or with another line first, is not known here.
 */
function wireTextAt(raw: Buffer, options: RecordOptions): number | undefined {
  const payload = options.payload;
  if (payload === undefined) return 0;
  if (options.carrier !== 'event' || payload.includes('\n') || raw.length < 5) return undefined;
  if (raw[0] !== 0x64 || raw[1] !== 0x61 || raw[2] !== 0x74 || raw[3] !== 0x61 || raw[4] !== DATA_COLON) return undefined;
  return raw[5] === SPACE ? 6 : 5;
}

/** One exchange being recorded: an HTTP request/response, an SSE or protobuf stream, or a WebSocket connection. */
export class ExchangeRecording implements ExchangeSink {
  protocol?: ProtocolModule;
  /** The parsed request body, once recorded: AG-UI checkers need the RunAgentInput. */
  private requestBody: unknown;
  /**
   * Headers as stored (redacted), given to checkers with each body so capture sends them only once;
   * as capture gave them (their JSON text from the worker's capture thread), parsed when first read.
   */
  private givenRequestHeaders: ExchangeStart['requestHeaders'];
  private givenResponseHeaders: ExchangeUpdate['responseHeaders'];
  private judge?: MessageJudge;
  /** While a WebSocket's channel names no protocol: its first frames, held until they choose one. */
  private sample?: FrameSample;
  /** Ends the hold of a quiet connection's sample: what came by then chooses. */
  private sampleDeadline?: NodeJS.Timeout;
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
    /** As capture opened it (not redacted: the route the worker rebuilds hints and contexts from). */
    readonly start: Omit<ExchangeStart, 'tOffsetMs'>,
    private readonly startedMs: number,
  ) {
    this.transport = start.transport;
    this.givenRequestHeaders = start.requestHeaders;
    const forced = recorder.forcedProtocol();
    if (forced) this.adopt(chooseProtocol({ forced })!, undefined);
  }

  /**
   * Picks the protocol from what is known so far; the first confident answer sticks. A WebSocket or an
   * event stream whose channel says nothing is chosen for by its first messages, as `validate` chooses
   * (FrameSample): an SSE stream is AG-UI's by its events' types, not by being SSE.
   */
  classify(hint: ChannelHint): void {
    if (this.protocol || this.sample) return;
    const requestBody = hint.requestBody ?? this.requestBody;
    const given = exchangeHint(hint, requestBody, hint.requestHeaders ?? this.requestHeaders);
    const choice = chooseProtocol({ hint: given });
    if (choice) this.adopt(choice, requestBody);
    else if (hint.transport === 'ws' || hint.transport === 'sse') this.sample = new FrameSample(given);
  }

  private holdFrame(frame: HeldFrame): void {
    const sample = this.sample!;
    // A first event of text that is not JSON may name the protocol at once (MCP's `endpoint`): the
    // stream's answers to requests judged elsewhere are then judged in the order they came.
    if (sample.held.length === 0 && frame.message.textNotJson && frame.message.text) {
      const choice = chooseProtocol({ hint: { ...sample.hint, firstEvent: frame.message.text } });
      if (choice) {
        this.sample = undefined;
        this.adopt(choice, this.requestBody);
        this.store(frame.sender, frame.raw, frame.options, frame.message, frame.tOffsetMs);
        return;
      }
    }
    if (sample.held.length === 0) {
      this.sampleDeadline = setTimeout(() => this.sample && this.chooseFromSample(), MAX_HOLD_MS);
      this.sampleDeadline.unref();
    }
    if (sample.hold(frame)) this.chooseFromSample();
  }

  /** A tap that frames a body's chunks into messages of this exchange. */
  tap(spec: TapSpec): BodyTap {
    if (spec.kind === 'lines') return linesTap(this, spec, this.recorder.maxBodyBytes);
    const inner: BodyTap =
      spec.kind === 'sse'
        ? new SseTap(this, spec.sender, this.recorder.maxBodyBytes)
        : spec.kind === 'proto'
          ? new ProtoTap(this, spec.sender, this.recorder.parseBudget, bindingOfChannel('proto'))
          : new WholeBodyTap(this, spec.sender, this.recorder.maxBodyBytes, spec.kind === 'json', spec.http);
    return decodingTap(spec.contentEncoding, inner);
  }

  update(update: ExchangeUpdate): void {
    if (update.status !== undefined) this.status = update.status;
    if (update.responseHeaders !== undefined) this.givenResponseHeaders = update.responseHeaders;
    if (update.transport !== undefined) this.transport = update.transport;
    this.recorder.options.writer.updateExchange(this.id, update);
  }

  private get requestHeaders(): Headers | undefined {
    return this.givenRequestHeaders === undefined ? undefined : parsedValue(this.givenRequestHeaders);
  }

  private get responseHeaders(): Headers | undefined {
    return this.givenResponseHeaders === undefined ? undefined : parsedValue(this.givenResponseHeaders);
  }

  /** Records one message. Never throws on bad input: bad input becomes a finding. */
  record(sender: Sender, raw: Buffer, options: RecordOptions): void {
    const tOffsetMs = options.at ?? this.recorder.clock.now();
    const given = options.http;
    let http: HttpContext | undefined;
    if (given) {
      // Not a spread of `given`: on Node 20 a spread with properties added takes µs (V8's slow path).
      http = {
        method: given.method,
        path: given.path,
        requestHeaders: given.requestHeaders ?? this.requestHeaders,
        responseHeaders: given.status === undefined ? undefined : (given.responseHeaders ?? this.responseHeaders),
      };
      if (given.query !== undefined) http.query = given.query;
      if (given.status !== undefined) http.status = given.status;
    }
    const message = this.recorder.pipeline.read(sender, raw, options, http);
    if (this.sample) {
      // A copy: the frame may be a view into a whole batch of the worker's, which holding it would keep alive.
      this.holdFrame({ sender, raw: Buffer.from(raw), options, message, tOffsetMs });
      return;
    }
    this.store(sender, raw, options, message, tOffsetMs);
  }

  /** The held frames choose the protocol (or none), and are judged and stored by it, in order. */
  private chooseFromSample(): void {
    const sample = this.sample!;
    this.sample = undefined;
    clearTimeout(this.sampleDeadline);
    const choice = chooseProtocol({ hint: sample.hint, sample: sample.values });
    if (choice) this.adopt(choice, this.requestBody);
    for (const frame of sample.held) this.store(frame.sender, frame.raw, frame.options, frame.message, frame.tOffsetMs);
  }

  private store(sender: Sender, raw: Buffer, options: RecordOptions, message: ReadMessage, tOffsetMs: number): void {
    const pipeline = this.recorder.pipeline;
    const { value } = message;
    const { http } = message;
    if (sender === 'client' && options.carrier === 'body' && value !== undefined) {
      this.requestBody = pipeline.requestBodyOf(message);
      // The request body is what tells an AG-UI run from other POSTs; classify before judging it.
      if (!this.protocol && http) this.classify({ transport: 'http', method: http.method, path: http.path, requestBody: this.requestBody });
    } else if (sender === 'client' && options.carrier === 'body' && !this.protocol && http) {
      // Not parsed: the route alone may still name the protocol, whose write-only fields must not be stored.
      this.classify({ transport: 'http', method: http.method, path: http.path });
    }
    const verdict = pipeline.verdict(message, options, this.judge);
    const kept = message.oversized ? raw.subarray(0, pipeline.maxBodyBytes) : raw;
    const stored = pipeline.storable(message, kept, this.protocol, options.channel, options.json !== false);
    // The text it was parsed from, unless redaction changed the value: saves serialising it again.
    const jsonText = value !== undefined && stored.value === value && message.text !== undefined && options.value === undefined ? message.text : undefined;
    const input: WireMessageInput = {
      exchangeId: this.id,
      sender,
      carrier: options.carrier,
      channel: options.channel,
      tOffsetMs,
      raw: stored.raw,
      json: stored.value,
      jsonText,
      jsonTextAt: jsonText === undefined || stored.raw !== raw ? undefined : wireTextAt(raw, options),
      verdict,
      // Over --max-body, or a frame the framer kept only the start of (a protobuf frame over the client's limit).
      rawTruncatedFrom: message.oversized || message.size > raw.length ? message.size : undefined,
    };
    const id = this.recorder.options.writer.addMessage(input);
    const last = this.last;
    if (last === undefined) this.last = { id, verdict, sender, value: stored.value, options, http };
    else {
      last.id = id;
      last.verdict = verdict;
      last.sender = sender;
      last.value = stored.value;
      last.options = options;
      last.http = http;
    }
    this.messages++;
    if (verdict.status === 'unchecked') this.unchecked++;
    if (verdict.status === 'invalid') {
      this.invalid++;
      this.recorder.options.listener?.({
        type: 'invalid-message',
        exchangeId: this.id,
        sender,
        label: pipeline.label(stored.value, { channel: options.channel, carrier: options.carrier, sender, http }),
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
    // Fewer frames than a full sample: what came chooses.
    if (this.sample) this.chooseFromSample();
    const tOffsetMs = at ?? this.recorder.clock.now();
    // A proxy-level failure (upstream unreachable) says nothing about the protocol: no stream rules.
    // Nor does a stream the client or the proxy's shutdown cut short: the agent was still sending.
    if (this.judge && this.protocol) {
      const cut = end.outcome === 'error' || cutByClientOrProxy(end.errorCode);
      const how = cut ? 'cut' : end.outcome === 'complete' ? 'complete' : 'aborted';
      const pipeline = this.recorder.pipeline;
      if (how !== 'cut') this.attachToLast(pipeline.endOfStream(this.protocol, this.judge, how), tOffsetMs);
      // A state spanning exchanges that ended here (an MCP session's DELETE) gives its findings to another exchange's last message.
      for (const handed of pipeline.endElsewhere(this.protocol, this.judge, { how, status: this.status })) this.recorder.exchangeOf(handed.judge)?.attachToLast(handed.findings, tOffsetMs);
    }
    this.recorder.options.writer.endExchange(this.id, storedEnd(end, tOffsetMs));
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
      ...(end.outcome === 'error' && end.errorMessage !== undefined ? { errorMessage: end.errorMessage } : {}),
      durationMs: tOffsetMs - this.startedMs,
      tOffsetMs,
      stored: this.recorder.options.writer.failure === undefined,
    });
  }

  /** Stream-level findings, on the exchange's last message (stored already: its verdict is amended). */
  attachToLast(findings: Finding[], tOffsetMs: number): void {
    if (findings.length === 0 || !this.last) return;
    const before = this.last.verdict;
    const after = withFindings(before, findings);
    this.recorder.options.writer.addFindings(this.last.id, this.id, findings, after);
    if (before.status !== 'invalid' && after.status === 'invalid') this.invalid++;
    if (before.status === 'unchecked' && after.status !== 'unchecked') this.unchecked--;
    this.last.verdict = after;
    // The live view hears of a stream that ended wrong as it hears of an invalid message.
    if (findings.some((f) => f.severity === 'error')) {
      this.recorder.options.listener?.({ type: 'invalid-message', exchangeId: this.id, sender: this.last.sender, label: this.labelOfLast(), status: after.status, findings, tOffsetMs });
    }
  }

  private labelOfLast(): string {
    const { value, options, sender, http } = this.last!;
    return this.recorder.pipeline.label(value, { channel: options.channel, carrier: options.carrier, sender, http });
  }

  private adopt(choice: ProtocolChoice, requestBody: unknown): void {
    const { module } = choice;
    this.protocol = module;
    const channel: CheckerContext['channel'] = { transport: this.transport };
    if (this.start.method !== undefined) channel.method = this.start.method;
    if (this.start.path !== undefined) channel.path = this.start.path;
    if (this.requestHeaders !== undefined) channel.requestHeaders = this.requestHeaders;
    this.judge = this.recorder.pipeline.judgeFor(module, requestBody, channel);
    // Only a judge findings can be handed to is looked up again (endElsewhere): the others stay out of the WeakMap.
    if (this.judge.handsFindings) this.recorder.judged(this.judge, this);
    this.recorder.options.writer.updateExchange(this.id, { protocol: module.id, protocolEvidence: choice.evidence });
  }
}
