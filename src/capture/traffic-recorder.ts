import { isUtf8 } from 'node:buffer';
import { warning } from '../core/finding.js';
import type { Carrier, HttpContext, InboundMessage, Sender } from '../core/message.js';
import { unchecked, withFindings, type Verdict } from '../core/verdict.js';
import { classifyChannel, protocolById } from '../protocols/catalog.js';
import type { ChannelHint, ProtocolId, ProtocolModule } from '../protocols/protocol.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate, RecordingWriter } from '../store/recording-writer.js';
import { MessageJudge } from '../verdict/message-judge.js';
import { SecretTracker } from '../verdict/secret-tracker.js';
import type { LiveListener } from './live-events.js';
import type { RecordingClock } from './recording-clock.js';

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface TrafficRecorderOptions {
  writer: RecordingWriter;
  registry: SchemaRegistry;
  clock: RecordingClock;
  /** Force one protocol for every exchange instead of classifying. */
  protocol?: ProtocolId;
  /** Messages larger than this are stored truncated and not parsed. */
  maxBodyBytes?: number;
  listener?: LiveListener;
}

export interface RecordOptions {
  carrier: Carrier;
  /** ws opcode or stdio stream name. */
  channel?: string;
  /** An already-decoded value (protobuf frames); otherwise the bytes are parsed as JSON. */
  value?: unknown;
  /** Why decoding failed, when the caller decoded (protobuf). */
  parseError?: string;
  /** The text to parse when it is not the raw bytes themselves (an SSE frame's joined data lines). */
  payload?: string;
  /** The message's real size when `raw` is only the stored prefix of it. */
  totalBytes?: number;
  /** False for bodies that are not meant to be JSON (HTML, octet-stream): stored, not judged. */
  json?: boolean;
  http?: HttpContext;
}

/**
 * Turns captured traffic into stored rows with verdicts. Capture code calls it after it has
 * forwarded the bytes; everything here is synchronous and ends in the writer's in-memory queue.
 */
export class TrafficRecorder {
  readonly secrets = new SecretTracker();
  readonly clock: RecordingClock;
  private readonly recordingJudges = new Map<ProtocolId, MessageJudge>();

  constructor(readonly options: TrafficRecorderOptions) {
    this.clock = options.clock;
  }

  get maxBodyBytes(): number {
    return this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  }

  openExchange(start: Omit<ExchangeStart, 'tOffsetMs'>): ExchangeRecording {
    const tOffsetMs = this.clock.now();
    const id = this.options.writer.beginExchange({ ...start, tOffsetMs });
    return new ExchangeRecording(this, id, start, tOffsetMs);
  }

  /** @internal the judge for a protocol: per exchange, or shared for recording-scoped protocols. */
  judgeFor(module: ProtocolModule, requestBody: unknown): MessageJudge {
    const context = { registry: this.options.registry, secrets: this.secrets, requestBody };
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
export class ExchangeRecording {
  protocol?: ProtocolModule;
  private judge?: MessageJudge;
  private last?: StoredMessage;
  private ended = false;
  messages = 0;
  invalid = 0;
  status?: number;
  transport: ExchangeStart['transport'];

  constructor(
    private readonly recorder: TrafficRecorder,
    readonly id: number,
    private readonly start: Omit<ExchangeStart, 'tOffsetMs'>,
    private readonly startedMs: number,
  ) {
    this.transport = start.transport;
    const forced = recorder.forcedProtocol();
    if (forced) this.adopt(forced, undefined);
  }

  /** Picks the protocol from what is known so far; the first confident answer sticks. */
  classify(hint: ChannelHint, requestBody?: unknown): ProtocolModule | undefined {
    if (this.protocol) return this.protocol;
    const module = classifyChannel(hint);
    if (module) this.adopt(module, requestBody ?? hint.requestBody);
    return this.protocol;
  }

  update(update: ExchangeUpdate): void {
    if (update.status !== undefined) this.status = update.status;
    if (update.transport !== undefined) this.transport = update.transport;
    this.recorder.options.writer.updateExchange(this.id, update);
  }

  /** Records one message; returns its verdict. Never throws on bad input: bad input becomes a finding. */
  record(sender: Sender, raw: Buffer, options: RecordOptions): Verdict {
    const tOffsetMs = this.recorder.clock.now();
    const max = this.recorder.maxBodyBytes;
    const size = options.totalBytes ?? raw.length;
    const oversized = size > max;
    let value: unknown = options.value;
    let parseError: string | undefined = options.parseError;
    let text: string | undefined = options.payload;
    if (value === undefined && parseError === undefined && options.json !== false && !oversized) {
      if (text === undefined && !isUtf8(raw)) parseError = 'the message is not valid UTF-8';
      else {
        text ??= raw.toString('utf8');
        try {
          value = JSON.parse(text);
        } catch (error) {
          parseError = `the message is not valid JSON: ${(error as Error).message}`;
        }
      }
    }
    const inbound: InboundMessage = { sender, carrier: options.carrier, value, parseError, text, http: options.http };
    let verdict: Verdict;
    if (oversized) {
      verdict = unchecked(`message of ${size} bytes is over --max-body ${max}; stored truncated, not judged`, [
        warning('oversized-message', '', `the message is ${size} bytes, more than the ${max}-byte limit; it was forwarded whole and stored truncated`),
      ]);
    } else if (options.json === false && value === undefined && parseError === undefined) {
      verdict = unchecked('not a JSON message');
    } else if (this.judge) {
      verdict = this.judge.judge(inbound);
    } else if (parseError) {
      verdict = { status: 'invalid', findings: [{ rule: 'invalid-json', severity: 'error', pointer: '', message: parseError }] };
    } else {
      verdict = unchecked('no known protocol recognised this exchange');
    }
    const stored = this.storable(inbound, oversized ? raw.subarray(0, max) : raw);
    const id = this.recorder.options.writer.addMessage({
      exchangeId: this.id,
      sender,
      carrier: options.carrier,
      channel: options.channel,
      tOffsetMs,
      raw: stored.raw,
      json: stored.value,
      verdict,
      rawTruncatedFrom: oversized ? size : undefined,
    });
    this.last = { id, verdict };
    this.messages++;
    if (verdict.status === 'invalid') {
      this.invalid++;
      this.recorder.options.listener?.({
        type: 'invalid-message',
        exchangeId: this.id,
        sender,
        label: labelOf(stored.value, options.http),
        status: verdict.status,
        findings: verdict.findings,
        tOffsetMs,
      });
    }
    return verdict;
  }

  /** Ends the exchange; stream-level findings (truncation, unanswered requests) attach to its last message. */
  end(end: Omit<ExchangeEnd, 'tOffsetMs'>): void {
    if (this.ended) return;
    this.ended = true;
    const tOffsetMs = this.recorder.clock.now();
    if (this.judge && this.protocol?.checkerScope !== 'recording') {
      const findings = this.judge.end(end.outcome === 'complete' ? 'complete' : 'aborted');
      if (findings.length > 0 && this.last) {
        const before = this.last.verdict;
        const after = withFindings(before, findings);
        this.recorder.options.writer.addFindings(this.last.id, this.id, findings, after);
        if (before.status !== 'invalid' && after.status === 'invalid') this.invalid++;
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
      durationMs: tOffsetMs - this.startedMs,
      tOffsetMs,
    });
  }

  private adopt(module: ProtocolModule, requestBody: unknown): void {
    this.protocol = module;
    this.judge = this.recorder.judgeFor(module, requestBody);
    this.recorder.options.writer.updateExchange(this.id, { protocol: module.id });
  }

  /** What may be written to disk: write-only fields replaced, and no registered secret anywhere. */
  private storable(inbound: InboundMessage, raw: Buffer): { raw: Buffer; value: unknown } {
    let value = inbound.value;
    let bytes = raw;
    const replacement = value !== undefined ? this.protocol?.redactForStorage?.(inbound) : undefined;
    if (replacement !== undefined) {
      value = replacement;
      bytes = Buffer.from(JSON.stringify(replacement));
    }
    const secrets = this.recorder.secrets;
    if (secrets.size > 0) {
      bytes = secrets.scrubBytes(bytes);
      if (value !== undefined) {
        const json = JSON.stringify(value);
        const scrubbed = secrets.scrub(json);
        if (scrubbed !== json) value = JSON.parse(scrubbed);
      }
    }
    return { raw: bytes, value };
  }
}

function labelOf(value: unknown, http?: HttpContext): string {
  if (value !== null && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    for (const key of ['type', 'kind', 'method', 'operation', 'event']) if (typeof v[key] === 'string') return v[key] as string;
  }
  return http ? `${http.method} ${http.path}` : 'message';
}
