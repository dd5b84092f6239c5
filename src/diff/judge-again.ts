import { isUtf8 } from 'node:buffer';
import { cutByClientOrProxy } from '../core/exchange-ending.js';
import type { Finding } from '../core/finding.js';
import { withFindings, type Verdict } from '../core/verdict.js';
import { TOOL_VERSION } from '../core/version.js';
import { MessagePipeline, type ReadMessage } from '../judge/message-pipeline.js';
import { chooseProtocol } from '../judge/protocol-choice.js';
import { judgedByCurrentRules } from '../core/rules-version.js';
import { isProtocolId } from '../judge/protocol-option.js';
import type { CheckerContext, ProtocolModule } from '../protocols/protocol.js';
import type { MessageJudge } from '../judge/message-judge.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import type { RecordingReader } from '../store/recording-reader.js';
import { httpContextOf } from '../store/exchange-http.js';
import type { ExchangeRow, MessageRow, RecordingInfo } from '../store/store-types.js';
import { messageValue } from '../store/message-value.js';

/**
 * Message id → its verdict as judged now, for the messages of one side where that differs from the
 * stored verdict (its status or its error rules, what a diff compares). Kept sparse: on most
 * recordings most verdicts do not move.
 */
export type VerdictsNow = ReadonlyMap<number, Verdict>;

/**
 * Were both sides judged under the conditions of now: by this version of agent-proxy, with exactly
 * the schemas loaded now? Then their stored verdicts are what judging again would give (and were
 * given seeing the live traffic, before truncation and redaction), and they are compared as stored.
 */
export function judgedAsNow(sides: readonly RecordingInfo[], registry: SchemaRegistry): boolean {
  const now = canonicalHashes(registry.hashes());
  return sides.every((info) => info.toolVersion === TOOL_VERSION && judgedByCurrentRules(info) && canonicalHashes(info.schemaHashes) === now);
}

function canonicalHashes(hashes: Record<string, string>): string {
  return JSON.stringify(Object.keys(hashes).sort().map((id) => [id, hashes[id]]));
}

/** A message row no protocol judges (a WebSocket close, recorded with its code and reason as JSON): its stored verdict stands. */
const NOT_PROTOCOL_CHANNELS: ReadonlySet<string> = new Set(['close', 'ping', 'pong', 'binary', 'comment', 'stderr']);

/**
 * Judges the messages of a recording again with `registry`, by the protocol record chose for each
 * exchange, through the judging pipeline record and validate use (judge/message-pipeline.ts): one
 * pipeline for the recording (its secrets and recording-scoped checkers span the exchanges), one
 * checker per exchange, its messages judged in the order record judged them across exchanges (as
 * validate does), stream-level findings on the exchange's last judged message, as record attaches them. A message that is not JSON, or whose exchange no protocol claimed, keeps its stored
 * verdict: no schema decided it. `progress` is called every few thousand messages.
 *
 * This is the one place `diff` judges; when the commands share one judging path of a recording, this
 * is the function to point at it.
 */
export function judgeAgain(reader: RecordingReader, registry: SchemaRegistry, progress?: (messages: number) => void): VerdictsNow {
  // Stored messages are read whole: no size or parse budget applies, as in validate.
  const pipeline = new MessagePipeline({ registry, maxBodyBytes: Infinity, parseBudget: Infinity });
  const streams: StreamJudging[] = [];
  const order: Array<[StreamJudging, MessageRow]> = [];
  let read = 0;
  for (const exchange of reader.exchanges()) {
    const rows = reader.messages(exchange.id);
    read += rows.length;
    if (progress && rows.length > 0) progress(read);
    if (exchange.protocol === null || !isProtocolId(exchange.protocol)) continue;
    const judged = new Set(rows.filter((m) => (m.json !== undefined || m.deepJson !== undefined) && !NOT_PROTOCOL_CHANNELS.has(m.channel ?? '')));
    // An exchange without messages still ends (an MCP session's DELETE ends that session); one of messages none of which is judged has nothing to say.
    if (judged.size === 0 && rows.length > 0) continue;
    const module = chooseProtocol({ recorded: exchange.protocol })?.module;
    if (!module) continue;
    const requestRow = [...judged].find((m) => m.sender === 'client');
    const request = requestRow && readRow(pipeline, exchange, requestRow);
    const stream: StreamJudging = { exchange, module, judge: pipeline.judgeFor(module, request && pipeline.requestBodyOf(request), channelOf(exchange)), judged, verdicts: new Map() };
    streams.push(stream);
    // An event of text that is not JSON keeps its stored verdict, but its checker follows it, as record's did (MCP's endpoint event names its session).
    for (const m of rows) if (judged.has(m) || isFollowedText(m)) order.push([stream, m]);
  }
  // In the order record judged them (message ids), across exchanges, as validate does: a state shared by
  // exchanges (an MCP session over HTTP, a daemon session's UI requests) depends on it.
  order.sort((a, b) => a[1].id - b[1].id);
  for (const [stream, m] of order) {
    if (!stream.judged.has(m)) stream.judge.judge(pipeline.parsed(m.sender, m.carrier, undefined, m.raw.toString('utf8'), undefined));
    else stream.verdicts.set(m, pipeline.verdict(readRow(pipeline, stream.exchange, m), { channel: m.channel ?? undefined }, stream.judge));
  }
  // As record: no stream rules for a stream cut by a proxy-level failure, the client or a shutdown, and no end at all for one never closed.
  for (const stream of streams) {
    const { exchange, module, judge } = stream;
    if (exchange.outcome === null) continue;
    const how = exchange.outcome === 'error' || cutByClientOrProxy(exchange.errorCode) ? 'cut' : exchange.outcome === 'complete' ? 'complete' : 'aborted';
    if (how !== 'cut') attachToLast(stream, pipeline.endOfStream(module, judge, how));
    // Findings its end hands to another exchange (an MCP session's DELETE), on that one's last judged message.
    for (const handed of pipeline.endElsewhere(module, judge, { how, status: exchange.status ?? undefined })) {
      const target = streams.find((s) => s.judge === handed.judge);
      if (target) attachToLast(target, handed.findings);
    }
  }
  const moved = new Map<number, Verdict>();
  for (const { verdicts } of streams) for (const [m, verdict] of verdicts) if (!sameForDiff(verdict, m.verdict)) moved.set(m.id, verdict);
  return moved;
}

/** Stream-level findings on the exchange's last judged message. */
function attachToLast(stream: StreamJudging, findings: Finding[]): void {
  const last = [...stream.verdicts.keys()].at(-1);
  if (last !== undefined && findings.length > 0) stream.verdicts.set(last, withFindings(stream.verdicts.get(last)!, findings));
}

/** One exchange being judged again: its checker, its judged rows and their verdicts, in its order. */
interface StreamJudging {
  exchange: ExchangeRow;
  module: ProtocolModule;
  judge: MessageJudge;
  judged: ReadonlySet<MessageRow>;
  verdicts: Map<MessageRow, Verdict>;
}

function readRow(pipeline: MessagePipeline, exchange: ExchangeRow, m: MessageRow): ReadMessage {
  const value = messageValue(m);
  return pipeline.parsed(m.sender, m.carrier, value, m.deepJson ?? m.raw.toString('utf8'), exchange.transport === 'http' || m.carrier === 'body' ? httpContextOf(exchange, m.sender) : undefined);
}

/** An event of UTF-8 text that is not JSON (OpenAI's `[DONE]`, MCP's `endpoint`): not judged again, but followed. */
function isFollowedText(m: MessageRow): boolean {
  return m.json === undefined && m.deepJson === undefined && m.carrier === 'event' && !NOT_PROTOCOL_CHANNELS.has(m.channel ?? '') && isUtf8(m.raw);
}

/** Equal as far as a diff compares verdicts: the status and the set of error rules. */
function sameForDiff(a: Verdict, b: Verdict): boolean {
  return a.status === b.status && errorRules(a) === errorRules(b);
}

function errorRules(v: Verdict): string {
  return [...new Set(v.findings.filter((f) => f.severity === 'error').map((f) => f.rule))].sort().join(',');
}

/** Where the exchange runs, as record tells its checker. */
function channelOf(e: ExchangeRow): CheckerContext['channel'] {
  const channel: CheckerContext['channel'] = { transport: e.transport };
  if (e.method !== null) channel.method = e.method;
  if (e.path !== null) channel.path = e.path;
  if (e.requestHeaders) channel.requestHeaders = e.requestHeaders;
  return channel;
}
