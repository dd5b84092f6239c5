import type { Finding } from '../core/finding.js';
import type { Sender } from '../core/message.js';
import { withFindings, withoutRules, type Verdict } from '../core/verdict.js';
import type { ChannelHint, CheckerContext, ProtocolModule } from '../protocols/protocol.js';
import { loadModule, type ProtocolId } from '../protocols/catalog.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import { MessagePipeline, type VerdictFacts } from '../judge/message-pipeline.js';
import { detectProtocol, PROTOCOL_SAMPLE_SIZE } from '../judge/protocol-detection.js';
import { checkProtocolOption, isProtocolId } from '../judge/protocol-option.js';
import { ProtocolUnknownError } from '../core/errors.js';
import type { MessageJudge } from '../judge/message-judge.js';
import { NOT_REDERIVABLE } from '../judge/secret-tracker.js';
import type { ExchangeFinding, LoadedInput, SourceMessage, SourceStream } from './message-source.js';
import { messageLabel, type LabelPlace } from '../core/message-label.js';
import { SharedVerdicts } from './shared-verdicts.js';

export interface JudgedMessage {
  index: number;
  line?: number;
  /** A recording's message: its exchange id and its place in it (`#exchange.seq`). */
  exchange?: number;
  seq?: number;
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

/** The full module of each protocol an input is judged by, by id (judgeInput asks only for those protocolsOfInput names). */
export type ModuleOf = (id: ProtocolId) => ProtocolModule<ProtocolId>;

/**
 * The protocol each stream of an input is judged by, in the order of its streams (undefined: none
 * claims it): a recording's as record chose it, a file's by its channel and first messages. Told
 * from the catalog's facts, before any protocol's module is loaded.
 */
export function protocolsOfInput(input: LoadedInput, forced?: ProtocolId): Array<ProtocolId | undefined> {
  checkProtocolOption(forced, 'validateInput protocol');
  return input.streams.map((stream) => {
    if (!forced && typeof stream.protocol === 'string' && !isProtocolId(stream.protocol)) {
      throw new ProtocolUnknownError(`${input.file}: ${stream.label} was recorded as protocol '${stream.protocol}', which this version does not know; name one with --protocol`);
    }
    return detectProtocol({ forced, recorded: stream.protocol, hint: stream.hint, sample: stream.messages.slice(0, PROTOCOL_SAMPLE_SIZE).map((m) => m.value) })?.facts.id;
  });
}

/**
 * judgeInput with the modules of the protocols the input has, and only those, loaded first: what the
 * CLI's `validate` runs, so that a file of one protocol does not load the other nine's checkers.
 */
export async function judgeInputLoading(input: LoadedInput, registry: SchemaRegistry, forced?: ProtocolId, onMessage?: () => void): Promise<ValidationReport> {
  const protocols = protocolsOfInput(input, forced);
  const ids = [...new Set(protocols.filter((id) => id !== undefined))];
  const loaded = new Map(await Promise.all(ids.map(async (id) => [id, await loadModule(id)] as const)));
  return judgeInput(input, registry, (id) => loaded.get(id)!, forced, onMessage, protocols);
}

/**
 * Judges every message of a loaded input with record's pipeline (judge/message-pipeline.ts): each
 * stream gets its own checker, except that a protocol whose checker spans the recording (Pi REST)
 * has one for every stream of it, and all streams share one secret tracker, because a secret sent
 * in a REST call can leak in a WebSocket frame. `onMessage` is told of each message judged (the
 * CLI's progress line); `protocols`, protocolsOfInput's answer when the caller has it already.
 */
export function judgeInput(
  input: LoadedInput,
  registry: SchemaRegistry,
  moduleOf: ModuleOf,
  forced?: ProtocolId,
  onMessage?: () => void,
  protocols: ReadonlyArray<ProtocolId | undefined> = protocolsOfInput(input, forced),
): ValidationReport {
  const judging = new InputJudging(registry);
  const judges = input.streams.map((stream, i) => {
    const id = protocols[i];
    return judging.addStream(stream, id === undefined ? undefined : moduleOf(id));
  });
  // In the order the messages came (a recording's: as record judged them, across exchanges), since a
  // checker scope shared by streams (a daemon session's UI requests) depends on it.
  const order: Array<[StreamJudge, SourceMessage]> = [];
  for (const judge of judges) for (const m of judge.stream.messages) order.push([judge, m]);
  order.sort((a, b) => a[1].index - b[1].index);
  for (const [judge, m] of order) {
    judging.judge(judge, m);
    onMessage?.();
  }
  return judging.report(input.file, input.format, input.exchangeFindings);
}

/**
 * The judging of one input, a message at a time in the order they came, told by its caller: judgeInput
 * hands it a loaded input's messages, `validate` of a recording each message as it reads it
 * (judge-recording.ts), so that no message's value outlives its judging.
 */
export class InputJudging {
  // Files are read whole, and every message in them is judged: no size or parse budget applies.
  private readonly pipeline: MessagePipeline;
  private readonly judges: StreamJudge[] = [];
  private readonly judged: JudgedMessage[] = [];
  private readonly verdicts = new SharedVerdicts();
  /** The stream whose last message is not labelled yet (StreamJudge's `lastUnlabelled`), if any. */
  private unlabelled?: StreamJudge;
  /** Messages judged valid without a finding and not kept ('notable'): counted in the summary only. */
  private plain = 0;

  /**
   * `kept`: which judged messages the report lists: 'all', or 'notable', those not valid or with a
   * finding (what the text report prints; the summary still counts every message), so that the
   * report of a big recording does not hold every message judged.
   */
  constructor(
    registry: SchemaRegistry,
    private readonly kept: 'all' | 'notable' = 'all',
  ) {
    this.pipeline = new MessagePipeline({ registry, maxBodyBytes: Infinity, parseBudget: Infinity });
  }

  /**
   * A stream to judge by `module` (none: its messages are labelled, not judged), in the order of the
   * input's streams, since the first stream of a recording-scoped protocol makes the checker they
   * share. `request`: the stream's first client message with a value, which its checker keeps.
   */
  addStream(stream: SourceStream, module: ProtocolModule<ProtocolId> | undefined, request = firstRequestOf(stream)): StreamJudge {
    const judge = streamJudge(stream, module, this.pipeline, request);
    this.judges.push(judge);
    return judge;
  }

  /**
   * Judges one message of the stream `judge` is for. `walkable`: its value is known not to nest too
   * deep to walk (a recording's JSON text was scanned for that), so it is not walked to find out.
   */
  judge(judge: StreamJudge, m: SourceMessage, walkable = false): void {
    // One stream's last message at most waits for its label: its value is held no longer than the next message of another stream.
    if (this.unlabelled !== undefined && this.unlabelled !== judge) labelLast(this.unlabelled);
    this.unlabelled = undefined;
    const message = judgeMessage(judge, m, this.pipeline, walkable);
    judge.last = message;
    judge.lastStored = m.stored !== undefined;
    judge.lastKept = this.kept === 'all' || isNotable(message);
    judge.lastUnlabelled = undefined;
    if (!judge.lastKept) {
      this.plain++;
      // Labelled only if the report lists it after all (its stream's end gives it a finding); with no secret
      // registered yet its label is never scrubbed, so labelling it at the end gives what labelling it now would.
      if (this.pipeline.secrets.size === 0) {
        judge.lastUnlabelled = m;
        this.unlabelled = judge;
      } else message.label = labelOf(this.pipeline, m, message.sender);
      return;
    }
    message.label = labelOf(this.pipeline, m, message.sender);
    message.verdict = this.verdicts.of(message.verdict);
    this.judged.push(message);
  }

  /** Ends every stream, in order, and reports: a recording's messages by exchange, then by place in it; a file's in its order. */
  report(file: string, format: LoadedInput['format'], exchangeFindings: ExchangeFinding[] | undefined): ValidationReport {
    const judgedProtocols = new Set<ProtocolId>();
    for (const judge of this.judges) if (judge.module && judge.last) judgedProtocols.add(judge.module.id);
    for (const judge of this.judges) endStream(judge, this.pipeline, this.judges);
    const judged = this.judged;
    // A stream's last message not kept may have been given its end's findings since.
    for (const judge of this.judges) {
      if (judge.last === undefined || judge.lastKept !== false || !isNotable(judge.last)) continue;
      labelLast(judge);
      judged.push(judge.last);
      judge.lastKept = true;
      this.plain--;
    }
    // Reported as `show` lists them: a recording's by exchange, then by place in it; a file's in its order.
    judged.sort((a, b) => (a.exchange ?? 0) - (b.exchange ?? 0) || (a.seq ?? 0) - (b.seq ?? 0) || a.index - b.index);
    const summary = summarize(judged);
    summary.messages += this.plain;
    summary.valid += this.plain;
    if (exchangeFindings === undefined) return { file, format, protocols: [...judgedProtocols], messages: judged, summary };
    for (const f of exchangeFindings) f.severity === 'error' ? summary.errors++ : summary.warnings++;
    return { file, format, protocols: [...judgedProtocols], messages: judged, exchangeFindings, summary };
  }
}

/** One stream being judged: its protocol, its checker, and its last message (where end-of-stream findings go). */
export interface StreamJudge {
  stream: SourceStream;
  module?: ProtocolModule<ProtocolId>;
  judge?: MessageJudge;
  last?: JudgedMessage;
  /** The last message's verdict is the stored one, which holds the end-of-stream findings record gave it. */
  lastStored?: boolean;
  /** The last message is in the report's list (InputJudging's `kept`). */
  lastKept?: boolean;
  /** The last message when it is not labelled yet: not kept, and judged before any secret was registered. */
  lastUnlabelled?: SourceMessage;
}

/** Is the message one the text report prints: not valid, or with a finding? */
function isNotable(m: JudgedMessage): boolean {
  return m.verdict.status !== 'valid' || m.verdict.findings.length !== 0;
}

/** A file's message has no framing facts of its own: it was read whole, as JSON, and is judged. */
const AS_READ: VerdictFacts = {};

function firstRequestOf(stream: SourceStream): SourceMessage | undefined {
  return stream.messages.find((m) => m.sender === 'client' && m.value !== undefined);
}

function streamJudge(stream: SourceStream, module: ProtocolModule<ProtocolId> | undefined, pipeline: MessagePipeline, request: SourceMessage | undefined): StreamJudge {
  if (!module) return { stream };
  // The checker keeps the request and walks it (an AG-UI input's state): only its top when it is too deep to.
  const requestBody = request && pipeline.requestBodyOf(pipeline.parsed('client', request.carrier, request.value, request.text, request.http));
  return { stream, module, judge: pipeline.judgeFor(module, requestBody, channelOf(stream.hint)) };
}

/** A judged message's label before InputJudging.judge gives it one. */
const UNLABELLED = '';

function labelOf(pipeline: MessagePipeline, m: SourceMessage, sender: Sender): string {
  return pipeline.label(m.value, placeOf(m, sender));
}

/** Labels a stream's last message judged before any secret was registered, as labelling it then would have (unscrubbed). */
function labelLast(judge: StreamJudge): void {
  const m = judge.lastUnlabelled;
  if (m === undefined || judge.last === undefined) return;
  judge.last.label = messageLabel(m.value, placeOf(m, judge.last.sender));
  judge.lastUnlabelled = undefined;
}

function placeOf(m: SourceMessage, sender: Sender): LabelPlace {
  return { channel: m.facts?.channel, carrier: m.carrier, sender, http: m.http };
}

function judgeMessage({ stream, module, judge }: StreamJudge, m: SourceMessage, pipeline: MessagePipeline, walkable: boolean): JudgedMessage {
  const sender = m.sender ?? module?.guessSender(m.value) ?? 'server';
  let verdict: Verdict;
  if (m.stored) {
    verdict = m.stored;
    // Not judged again (what made it unparsed is in its stored verdict), but followed by its
    // stream's checker when it is text, as record's checker was: OpenAI's `[DONE]` ends a stream.
    if (judge && m.text !== undefined) judge.judge(pipeline.parsed(sender, m.carrier, undefined, m.text, m.http));
  } else {
    const message = pipeline.parsed(sender, m.carrier, m.value, m.text, m.http, walkable);
    verdict = pipeline.verdict(message, m.facts ?? AS_READ, judge);
    // A recorded message: what the recording cannot find again is what record found.
    if (m.exchange !== undefined) {
      verdict = withoutRules(verdict, NOT_REDERIVABLE);
      if (m.carried !== undefined) verdict = withFindings(verdict, m.carried);
    }
  }
  // Labelled by the caller, once it knows the report lists the message (most of a big recording's are only counted).
  const label = UNLABELLED;
  // Literals, not a spread of the place: one per message of the report, a spread makes slower objects.
  const { index, line, exchange, seq } = m;
  if (exchange === undefined) return module ? { index, line, stream: stream.label, protocol: module.id, sender, label, verdict } : { index, line, stream: stream.label, sender, label, verdict };
  return module ? { index, line, exchange, seq, stream: stream.label, protocol: module.id, sender, label, verdict } : { index, line, exchange, seq, stream: stream.label, sender, label, verdict };
}

/**
 * Stream-level findings (truncation, unanswered requests) go to the stream's last message, as record
 * puts them; those its end hands to another stream (an MCP session's DELETE), to that one's.
 */
function endStream(s: StreamJudge, pipeline: MessagePipeline, judges: readonly StreamJudge[]): void {
  const ending = s.stream.ending ?? 'complete';
  if (!s.module || !s.judge || ending === 'none') return;
  if (s.last && ending !== 'cut') attachToLast(s, pipeline.endOfStream(s.module, s.judge, ending));
  for (const handed of pipeline.endElsewhere(s.module, s.judge, { how: ending, status: s.stream.status })) {
    const target = judges.find((j) => j.judge === handed.judge);
    if (target) attachToLast(target, handed.findings);
  }
}

/** Findings on the stream's last message; a stored verdict (not judged again) holds those record gave it already. */
function attachToLast(s: StreamJudge, findings: Finding[]): void {
  if (!s.last) return;
  let tail = findings;
  if (s.lastStored) {
    const had = new Set(s.last.verdict.findings.map(findingKey));
    tail = tail.filter((f) => !had.has(findingKey(f)));
  }
  if (tail.length > 0) s.last.verdict = withFindings(s.last.verdict, tail);
}

function findingKey(f: Finding): string {
  return `${f.severity} ${f.rule} ${f.pointer} ${f.message}`;
}

/** Where a stream runs, as record tells its checker: the transport and, for HTTP and WebSocket, the path and the request's headers. */
function channelOf(hint: ChannelHint | undefined): CheckerContext['channel'] {
  if (!hint) return undefined;
  const channel: CheckerContext['channel'] = { transport: hint.transport };
  if (hint.method !== undefined) channel.method = hint.method;
  if (hint.path !== undefined) channel.path = hint.path;
  if (hint.requestHeaders !== undefined) channel.requestHeaders = hint.requestHeaders;
  return channel;
}

export function summarize(messages: JudgedMessage[]): ValidationSummary {
  const s: ValidationSummary = { messages: messages.length, valid: 0, invalid: 0, unchecked: 0, errors: 0, warnings: 0 };
  for (const m of messages) {
    s[m.verdict.status]++;
    for (const f of m.verdict.findings) f.severity === 'error' ? s.errors++ : s.warnings++;
  }
  return s;
}
