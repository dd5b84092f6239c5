import { replayHintsOf } from '../../protocols/catalog.js';
import type { MessageMissContext } from '../../protocols/miss-answer.js';
import type { ProtocolId } from '../../protocols/catalog.js';
import type { LineMiss } from './line-conversation.js';
import { redactedText } from '../miss-report.js';
import type { ScriptMessage } from '../replay-script.js';
import { MAX_MATCH_DEPTH, MAX_REQUEST_FLAG, tooDeepToNormalize } from '../http/request-limits.js';
import { isJsonObject, tryParseJson } from '../../core/json.js';

/** Longest excerpt of a line a miss report quotes. */
const EXCERPT_CHARS = 160;

/**
 * One readable sentence about a line miss, naming the recorded line the replay expected and where
 * they differ: `replay miss: line 3 {"type":"promt"…} does not match recorded line 5 {"type":"prompt"…} at /type`.
 */
export function lineMissMessage(miss: LineMiss): string {
  if (miss.tooLong !== undefined) {
    return `replay miss: line ${miss.line.line} (${miss.line.totalBytes} bytes) is longer than the replay's limit of ${miss.tooLong} bytes; ${MAX_REQUEST_FLAG} <bytes> raises it`;
  }
  // The live line is printed and sent back in the answer: its secret fields hidden as a recording would.
  const got = excerpt(redactedText(miss.line.text));
  if (!miss.expected) return `replay miss: line ${miss.line.line} ${got} comes after the recorded conversation ended`;
  const where = miss.differences.length > 0 ? ` at ${miss.differences.slice(0, 5).join(', ')}` : '';
  const deep = tooDeepToNormalize(miss.line.raw) ? ` (its JSON nests deeper than ${MAX_MATCH_DEPTH} levels, so it is compared byte for byte)` : '';
  return `replay miss: line ${miss.line.line} ${got} does not match recorded line ${miss.expected.seq} ${excerpt(textOf(miss.expected))}${where}${deep}`;
}

/**
 * What the client gets for a line that matched nothing: the answer its protocol declares
 * (`replay.missAnswers.message`, e.g. Pi RPC's failed response, a JSON-RPC error with the live id,
 * the unix socket's `ok:false`), as one line; undefined when the protocol would not answer that line
 * (JSON-RPC notifications and responses, Pi extension UI answers) or declares no answer.
 */
export function lineMissAnswer(protocol: ProtocolId | undefined, miss: LineMiss, context: { recordedMethods: ReadonlySet<string>; hostInstanceId?: string }): Buffer | undefined {
  const message = lineMissMessage(miss);
  // Too deep to echo back safely (JSON.stringify recurses): answered like a line that is not JSON.
  const value = tooDeepToNormalize(miss.line.raw) ? undefined : tryParseJson(miss.line.text);
  const answer = messageMissAnswer(protocol, value, { ...context, message, details: lineMissDetails(miss) });
  return answer === undefined ? undefined : Buffer.from(JSON.stringify(answer) + '\n');
}

/** A line miss as data, for an answer's error data: the live line's number, the recorded line it was compared with, what differs. */
function lineMissDetails(miss: LineMiss): Record<string, unknown> {
  if (miss.tooLong !== undefined) return { reason: 'too-large', line: miss.line.line, limit: miss.tooLong };
  return { reason: 'no-match', line: miss.line.line, ...(miss.expected ? { nearest: { line: miss.expected.seq } } : {}), differences: miss.differences };
}

/** The protocol's answer to a line or frame that matched nothing (see MissAnswers.message), or undefined. */
export function messageMissAnswer(protocol: ProtocolId | undefined, value: unknown, context: MessageMissContext): unknown {
  if (protocol === undefined) return undefined;
  return replayHintsOf(protocol)?.missAnswers?.message?.(value, context);
}

/** Methods (JSON-RPC) of the recorded client lines: a miss on an unknown method is "method not found". */
export function recordedMethodsOf(messages: readonly ScriptMessage[]): Set<string> {
  const methods = new Set<string>();
  for (const m of messages) if (m.sender === 'client' && isJsonObject(m.json) && typeof m.json.method === 'string') methods.add(m.json.method);
  return methods;
}

/** The daemon's hostInstanceId as recorded, so a miss answer looks like the daemon's. */
export function hostInstanceIdOf(messages: readonly ScriptMessage[]): string | undefined {
  for (const m of messages) if (m.sender === 'server' && isJsonObject(m.json) && typeof m.json.hostInstanceId === 'string') return m.json.hostInstanceId;
  return undefined;
}

function textOf(message: ScriptMessage): string {
  return message.raw.toString('utf8').replace(/\r?\n$/, '');
}

function excerpt(text: string): string {
  return text.length <= EXCERPT_CHARS ? text : text.slice(0, EXCERPT_CHARS) + '…';
}

