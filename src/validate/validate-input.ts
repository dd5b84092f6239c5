import type { Finding } from '../core/finding.js';
import { cutBelow, MAX_JSON_DEPTH, valueNestsDeeperThan } from '../core/json-depth.js';
import type { InboundMessage, Sender } from '../core/message.js';
import { withFindings, type Verdict } from '../core/verdict.js';
import { UsageError } from '../core/errors.js';
import { classifyChannel, protocolById, sniffMessage } from '../protocols/catalog.js';
import { PROTOCOL_IDS, type ProtocolId, type ProtocolModule } from '../protocols/protocol.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import { MessageJudge } from '../judge/message-judge.js';
import { SecretTracker } from '../judge/secret-tracker.js';
import type { LoadedInput, SourceMessage, SourceStream } from './message-source.js';

export interface JudgedMessage {
  index: number;
  line?: number;
  stream: string;
  protocol?: ProtocolId;
  sender: Sender;
  /** A short label: the event `type`, frame `kind`, JSON-RPC method or REST route. */
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
  summary: ValidationSummary;
}

/**
 * Judges every message of a loaded input. Each stream gets its own checker; all streams share
 * one secret tracker, because a secret sent in a REST call can leak in a WebSocket frame.
 */
export function validateInput(input: LoadedInput, registry: SchemaRegistry, forced?: ProtocolId): ValidationReport {
  const secrets = new SecretTracker();
  const judged: JudgedMessage[] = [];
  const protocols = new Set<ProtocolId>();
  for (const stream of input.streams) {
    const module = forced ? protocolById(forced) : detect(stream);
    if (module) protocols.add(module.id);
    // One by one: spreading a stream's messages into push() passes them as arguments, which overflows the stack past ~120k.
    for (const message of judgeStream(stream, module, registry, secrets)) judged.push(message);
  }
  judged.sort((a, b) => a.index - b.index);
  return { file: input.file, format: input.format, protocols: [...protocols], messages: judged, summary: summarize(judged) };
}

function detect(stream: SourceStream): ProtocolModule | undefined {
  if (stream.hint) {
    const byChannel = classifyChannel(stream.hint);
    if (byChannel && stream.hint.transport !== 'sse') return byChannel;
  }
  // Vote over the first messages; one odd message should not decide.
  const votes = new Map<ProtocolModule, number>();
  for (const m of stream.messages.slice(0, 20)) {
    const module = sniffMessage(m.value);
    if (module) votes.set(module, (votes.get(module) ?? 0) + 1);
  }
  let best: ProtocolModule | undefined;
  for (const [module, count] of votes) if (!best || count > votes.get(best)!) best = module;
  return best ?? (stream.hint ? classifyChannel(stream.hint) : undefined);
}

function judgeStream(stream: SourceStream, module: ProtocolModule | undefined, registry: SchemaRegistry, secrets: SecretTracker): JudgedMessage[] {
  if (!module) {
    return stream.messages.map((m) => ({
      index: m.index,
      line: m.line,
      stream: stream.label,
      sender: m.sender ?? 'server',
      label: labelOf(m.value),
      verdict: { status: 'unchecked', findings: [], reason: 'no known protocol recognises this message; choose one with --protocol' },
    }));
  }
  const request = stream.messages.find((m) => m.sender === 'client')?.value;
  // The checker keeps the request and walks it (an AG-UI input's state): only its top when it is too deep to.
  const requestBody = valueNestsDeeperThan(request, MAX_JSON_DEPTH) ? cutBelow(request, MAX_JSON_DEPTH) : request;
  const judge = new MessageJudge(module.createChecker({ registry, secrets, requestBody }), secrets);
  const out: JudgedMessage[] = [];
  for (const m of stream.messages) {
    const sender = m.sender ?? module.guessSender(m.value);
    const inbound: InboundMessage = { sender, carrier: m.carrier, value: m.value, text: m.text, http: m.http };
    out.push({ index: m.index, line: m.line, stream: stream.label, protocol: module.id, sender, label: labelOf(m.value, m), verdict: judge.judge(inbound) });
  }
  const tail: Finding[] = judge.end('complete');
  if (tail.length > 0 && out.length > 0) out[out.length - 1].verdict = withFindings(out[out.length - 1].verdict, tail);
  return out;
}

function labelOf(value: unknown, source?: SourceMessage): string {
  if (source?.http) return `${source.http.method} ${source.http.path}${source.http.status ? ` ${source.http.status}` : ''}`;
  if (value === null || typeof value !== 'object') return typeof value;
  const v = value as Record<string, unknown>;
  for (const key of ['type', 'kind', 'method', 'operation', 'event']) if (typeof v[key] === 'string') return v[key] as string;
  if (v.jsonrpc === '2.0') return 'id' in v ? `response ${JSON.stringify(v.id)}` : 'json-rpc';
  return 'object';
}

export function summarize(messages: JudgedMessage[]): ValidationSummary {
  const s: ValidationSummary = { messages: messages.length, valid: 0, invalid: 0, unchecked: 0, errors: 0, warnings: 0 };
  for (const m of messages) {
    s[m.verdict.status]++;
    for (const f of m.verdict.findings) f.severity === 'error' ? s.errors++ : s.warnings++;
  }
  return s;
}

export function parseProtocolOption(value: string | undefined): ProtocolId | undefined {
  if (value === undefined || value === 'auto') return undefined;
  if (!PROTOCOL_IDS.includes(value as ProtocolId)) {
    throw new UsageError(`unknown protocol '${value}'; expected auto or one of ${PROTOCOL_IDS.join(', ')}`);
  }
  return value as ProtocolId;
}
