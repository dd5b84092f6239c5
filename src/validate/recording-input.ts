import { isUtf8 } from 'node:buffer';
import type { HttpContext, Sender } from '../core/message.js';
import type { ChannelHint } from '../protocols/protocol.js';
import type { ProtocolId } from '../protocols/catalog.js';
import type { MessageToJudge } from '../store/store-types.js';
import type { ExchangeFields } from '../store/schema.js';
import { RecordingReader } from '../store/recording-reader.js';
import { cutByClientOrProxy } from '../core/exchange-ending.js';
import { UNJUDGED_CHANNELS } from '../judge/message-pipeline.js';
import { NOT_REDERIVABLE } from '../judge/secret-tracker.js';
import { storedHeader } from '../store/stored-header.js';
import { httpContextOf } from '../store/exchange-http.js';
import type { ExchangeFinding, LoadedInput, ReadProgress, SourceMessage, SourceStream } from './message-source.js';
import { exchangeFindings } from '../core/exchange-findings.js';
import { openRecording } from '../store/open-recording.js';

/**
 * A recording as `proxy validate` input: every message as record judged it, to be judged again by the
 * same pipeline (judge-input.ts), each exchange by the protocol record chose for it, in the order
 * record judged them (message ids), with what record knew besides the value: a close frame is not a
 * protocol message, a message record could not parse keeps its verdict, and a stream's end rules
 * apply only when record applied them (not to a stream its client or the proxy's shutdown cut).
 * `progress` hears of each message read (the CLI's progress line).
 */
export function recordingInput(file: string, progress?: ReadProgress): LoadedInput {
  const reader = openRecording(file);
  try {
    progress?.total(reader.totals().messages);
    const streams: SourceStream[] = [];
    const ofExchanges: ExchangeFinding[] = [];
    for (const exchange of RecordingReader.exchangeColumns(reader)) {
      ofExchanges.push(...findingsOfExchange(exchange));
      const stream = streamOfExchange(exchange);
      const context = new ExchangeContext(exchange);
      // A page at a time, and the raw bytes only of a message that is not JSON.
      for (const m of RecordingReader.messagesToJudge(reader, exchange.id)) {
        stream.messages.push(sourceMessageOf(context, m));
        progress?.read();
      }
      // An exchange without messages still ends, when a protocol claimed it: an MCP session's DELETE ends that session.
      if (stream.messages.length > 0 || exchange.protocol !== null) streams.push(stream);
    }
    return ofExchanges.length === 0 ? { file, format: 'capture', streams } : { file, format: 'capture', streams, exchangeFindings: ofExchanges };
  } finally {
    reader.close();
  }
}

/** An exchange as a stream to judge, its messages not read yet. */
export function streamOfExchange(exchange: ExchangeFields): SourceStream {
  const stream: SourceStream = {
    label: labelOf(exchange),
    hint: hintOf(exchange),
    protocol: exchange.protocol as ProtocolId | null,
    ending: endingOf(exchange),
    messages: [],
  };
  if (exchange.status !== null) stream.status = exchange.status;
  return stream;
}

/** The exchange's findings of its own (a failed upstream TLS check), as the report lists them. */
export function findingsOfExchange(exchange: ExchangeFields): ExchangeFinding[] {
  return exchangeFindings(exchange).map((finding) => ({ stream: labelOf(exchange), exchange: exchange.id, ...finding }));
}

/**
 * What every message of one exchange is judged with besides its own value: its HTTP facts (one object
 * per sender) and its channel's facts (one per channel), made once, not per message: a stream's
 * thousands of events share them. Nothing that judges a message changes them.
 */
export class ExchangeContext {
  private client?: HttpContext;
  private server?: HttpContext;
  private readonly channels = new Map<string, SourceMessage['facts']>();

  constructor(readonly exchange: ExchangeFields) {}

  /** The HTTP facts a checker is given with a message of `sender` (store/exchange-http.ts). */
  http(sender: Sender): HttpContext {
    if (sender === 'client') return (this.client ??= httpContextOf(this.exchange, 'client'));
    return (this.server ??= httpContextOf(this.exchange, 'server'));
  }

  /** The facts of a message on `channel`: a close frame or stderr is not judged (UNJUDGED_CHANNELS). */
  facts(channel: string): SourceMessage['facts'] {
    let facts = this.channels.get(channel);
    if (facts === undefined) this.channels.set(channel, (facts = UNJUDGED_CHANNELS.has(channel) ? { channel, judge: false } : { channel }));
    return facts;
  }
}

/** A recorded message as judging reads it: its value, and what record knew of it besides. */
export function sourceMessageOf(context: ExchangeContext, m: MessageToJudge): SourceMessage {
  const exchange = context.exchange;
  // Message ids are the order record judged in, across exchanges (a scope shared by connections depends on it).
  const message: SourceMessage = { value: undefined, sender: m.sender, index: m.id - 1, carrier: m.carrier, exchange: exchange.id, seq: m.seq };
  if (m.channel !== null) message.facts = context.facts(m.channel);
  // A body has its request line and status, as when it was recorded (a RunAgentInput too).
  if (exchange.transport === 'http' || m.carrier === 'body') message.http = context.http(m.sender);
  // Most messages have no findings: no array made for them.
  if (m.findings.length > 0) {
    const carried = m.findings.filter((f) => NOT_REDERIVABLE.has(f.rule));
    if (carried.length > 0) message.carried = carried;
  }
  if (m.deepJson !== undefined) {
    // Nested too deep to walk: judged too (the judge says it is too deep, and reads no further).
    message.value = JSON.parse(m.deepJson);
    message.text = m.deepJson;
  } else if (m.json !== undefined) message.value = m.json;
  else {
    message.stored = m.stored;
    // An event of text that is not JSON (OpenAI's `data: [DONE]`) is not judged again, but its
    // stream's checker follows it, as record's did.
    if (m.carrier === 'event' && m.raw !== null && isUtf8(m.raw)) message.text = m.raw.toString('utf8');
  }
  return message;
}

/** As record ended the exchange's checker (record/pipeline/traffic-recorder.ts end()). */
function endingOf(e: ExchangeFields): SourceStream['ending'] {
  if (e.outcome === null) return 'none';
  if (e.outcome === 'error' || cutByClientOrProxy(e.errorCode)) return 'cut';
  return e.outcome === 'complete' ? 'complete' : 'aborted';
}

function labelOf(e: ExchangeFields): string {
  return `#${e.id} ${`${e.method ?? ''} ${e.path ?? ''}`.trim() || e.transport}`;
}

function hintOf(e: ExchangeFields): ChannelHint {
  const hint: ChannelHint = { transport: e.transport };
  if (e.method !== null) hint.method = e.method;
  if (e.path !== null) hint.path = e.path;
  const contentType = storedHeader(e.responseHeaders, 'content-type');
  if (contentType !== undefined) hint.contentType = contentType;
  if (e.subprotocol !== null) hint.subprotocol = e.subprotocol;
  if (e.requestHeaders) hint.requestHeaders = e.requestHeaders;
  return hint;
}
