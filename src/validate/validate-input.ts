import type { Finding } from '../core/finding.js';
import type { Sender } from '../core/message.js';
import { withFindings, type Verdict } from '../core/verdict.js';
import type { ChannelHint, ProtocolId, ProtocolModule } from '../protocols/protocol.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import { MessagePipeline, type VerdictFacts } from '../judge/message-pipeline.js';
import { chooseProtocol, PROTOCOL_SAMPLE_SIZE } from '../judge/protocol-choice.js';
import { checkProtocolOption, isProtocolId } from '../judge/protocol-option.js';
import { ProtocolUnknownError } from '../core/errors.js';
import type { ExchangeFinding, LoadedInput, SourceStream } from './message-source.js';

export interface JudgedMessage {
  index: number;
  line?: number;
  stream: string;
  protocol?: ProtocolId;
  sender: Sender;
  /** The message's label (core/message-label.ts), as record's live lines and `show` name it. */
  label: string;
  verdict: Verdict;
}

export interface ValidationSummary {
  messages: number;
  valid: number;
  invalid: number;
  unchecked: number;
  errors: number;
  warnings: number;
}

export interface ValidationReport {
  file: string;
  format: LoadedInput['format'];
  protocols: ProtocolId[];
  messages: JudgedMessage[];
  /** A recording's findings of whole exchanges (a failed upstream TLS check); absent when there are none. Counted in the summary's errors and warnings. */
  exchangeFindings?: ExchangeFinding[];
  summary: ValidationSummary;
}

/**
 * Judges every message of a loaded input with record's pipeline (judge/message-pipeline.ts): each
 * stream gets its own checker, except that a protocol whose checker spans the recording (Pi REST)
 * has one for every stream of it, and all streams share one secret tracker, because a secret sent
 * in a REST call can leak in a WebSocket frame.
 */
export function validateInput(input: LoadedInput, registry: SchemaRegistry, forced?: ProtocolId): ValidationReport {
  checkProtocolOption(forced, 'validateInput protocol');
  // Files are read whole, and every message in them is judged: no size or parse budget applies.
  const pipeline = new MessagePipeline({ registry, maxBodyBytes: Infinity, parseBudget: Infinity });
  const judged: JudgedMessage[] = [];
  const protocols = new Set<ProtocolId>();
  for (const stream of input.streams) {
    if (!forced && typeof stream.protocol === 'string' && !isProtocolId(stream.protocol)) {
      throw new ProtocolUnknownError(`${input.file}: ${stream.label} was recorded as protocol '${stream.protocol}', which this version does not know; name one with --protocol`);
    }
    // A recording's stream is judged by the protocol record chose for it; a file's by its channel and first messages.
    const module = chooseProtocol({ forced, recorded: stream.protocol, hint: stream.hint, sample: stream.messages.slice(0, PROTOCOL_SAMPLE_SIZE).map((m) => m.value) })?.module;
    if (module) protocols.add(module.id);
    // One by one: spreading a stream's messages into push() passes them as arguments, which overflows the stack past ~120k.
    for (const message of judgeStream(stream, module, pipeline)) judged.push(message);
  }
  judged.sort((a, b) => a.index - b.index);
  const summary = summarize(judged);
  if (input.exchangeFindings === undefined) return { file: input.file, format: input.format, protocols: [...protocols], messages: judged, summary };
  for (const f of input.exchangeFindings) f.severity === 'error' ? summary.errors++ : summary.warnings++;
  return { file: input.file, format: input.format, protocols: [...protocols], messages: judged, exchangeFindings: input.exchangeFindings, summary };
}

/** A file's message has no framing facts of its own: it was read whole, as JSON, and is judged. */
const AS_READ: VerdictFacts = {};

function judgeStream(stream: SourceStream, module: ProtocolModule | undefined, pipeline: MessagePipeline): JudgedMessage[] {
  const request = module ? stream.messages.find((m) => m.sender === 'client') : undefined;
  // The checker keeps the request and walks it (an AG-UI input's state): only its top when it is too deep to.
  const requestBody = request && pipeline.requestBodyOf(pipeline.parsed('client', request.carrier, request.value, request.text, request.http));
  const judge = module && pipeline.judgeFor(module, requestBody, channelOf(stream.hint));
  const out: JudgedMessage[] = [];
  for (const m of stream.messages) {
    const sender = m.sender ?? module?.guessSender(m.value) ?? 'server';
    const message = pipeline.parsed(sender, m.carrier, m.value, m.text, m.http);
    const verdict = pipeline.verdict(message, AS_READ, judge);
    const label = pipeline.label(m.value, { carrier: m.carrier, sender, http: m.http });
    out.push(
      module
        ? { index: m.index, line: m.line, stream: stream.label, protocol: module.id, sender, label, verdict }
        : { index: m.index, line: m.line, stream: stream.label, sender, label, verdict },
    );
  }
  const tail: Finding[] = module && judge ? pipeline.endOfStream(module, judge, 'complete') : [];
  if (tail.length > 0 && out.length > 0) out[out.length - 1].verdict = withFindings(out[out.length - 1].verdict, tail);
  return out;
}

/** Where a stream runs, as record tells its checker: the transport and, for HTTP and WebSocket, the path. */
function channelOf(hint: ChannelHint | undefined): { transport: ChannelHint['transport']; path?: string } | undefined {
  if (!hint) return undefined;
  return hint.path === undefined ? { transport: hint.transport } : { transport: hint.transport, path: hint.path };
}

export function summarize(messages: JudgedMessage[]): ValidationSummary {
  const s: ValidationSummary = { messages: messages.length, valid: 0, invalid: 0, unchecked: 0, errors: 0, warnings: 0 };
  for (const m of messages) {
    s[m.verdict.status]++;
    for (const f of m.verdict.findings) f.severity === 'error' ? s.errors++ : s.warnings++;
  }
  return s;
}
