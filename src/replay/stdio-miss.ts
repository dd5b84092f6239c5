import type { ProtocolId } from '../protocols/protocol.js';
import type { LineMiss } from './line-conversation.js';
import { redactedText } from './miss-report.js';
import type { ScriptMessage } from './replay-script.js';
import { MAX_MATCH_DEPTH, MAX_REQUEST_FLAG, tooDeepToNormalize } from './request-limits.js';

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
 * What the client gets for a line that matched nothing, in its own protocol, or undefined when its
 * protocol would not answer that line (JSON-RPC notifications and responses, Pi extension UI answers):
 * - Pi RPC: `{"id":<live id>,"type":"response","command":<its type>,"success":false,"error":"replay miss: …"}`
 *   (`command: "parse"` for a line that is not JSON, as Pi answers it);
 * - JSON-RPC (ACP): an error response with the live id, -32601 when no recorded client line has its
 *   method, else -32600; -32700 for a line that is not JSON;
 * - unix-ndjson: an `ok:false` response with the live requestId and error code `replay_miss`.
 */
export function lineMissAnswer(protocol: ProtocolId | undefined, miss: LineMiss, context: { recordedMethods: ReadonlySet<string>; hostInstanceId?: string }): Buffer | undefined {
  const message = lineMissMessage(miss);
  // Too deep to echo back safely (JSON.stringify recurses): answered like a line that is not JSON.
  const value = tooDeepToNormalize(miss.line.raw) ? undefined : parse(miss.line.text);
  const line = (v: unknown) => Buffer.from(JSON.stringify(v) + '\n');
  switch (protocol) {
    case 'pi-rpc': {
      if (!isRecord(value)) return line({ type: 'response', command: 'parse', success: false, error: message });
      if (value.type === 'extension_ui_response') return undefined;
      const command = typeof value.type === 'string' ? value.type : 'unknown';
      return line({ ...(value.id !== undefined ? { id: value.id } : {}), type: 'response', command, success: false, error: message });
    }
    case 'acp': {
      if (value === undefined) return line({ jsonrpc: '2.0', id: null, error: { code: -32700, message } });
      if (!isRecord(value) || typeof value.method !== 'string' || value.id === undefined || value.id === null) return undefined;
      const code = context.recordedMethods.has(value.method) ? -32600 : -32601;
      return line({ jsonrpc: '2.0', id: value.id, error: { code, message } });
    }
    case 'unix-ndjson': {
      if (!isRecord(value) || typeof value.operation !== 'string') return undefined;
      return line({
        protocolVersion: typeof value.protocolVersion === 'string' ? value.protocolVersion : '1.0',
        kind: 'response',
        requestId: value.requestId,
        ...(context.hostInstanceId ? { hostInstanceId: context.hostInstanceId } : {}),
        ...(typeof value.sessionId === 'string' ? { sessionId: value.sessionId } : {}),
        ok: false,
        error: { code: 'replay_miss', message, retryable: false },
      });
    }
    default:
      return undefined;
  }
}

/** Methods (JSON-RPC) of the recorded client lines: a miss on an unknown method is "method not found". */
export function recordedMethodsOf(messages: readonly ScriptMessage[]): Set<string> {
  const methods = new Set<string>();
  for (const m of messages) if (m.sender === 'client' && isRecord(m.json) && typeof m.json.method === 'string') methods.add(m.json.method);
  return methods;
}

/** The daemon's hostInstanceId as recorded, so a miss answer looks like the daemon's. */
export function hostInstanceIdOf(messages: readonly ScriptMessage[]): string | undefined {
  for (const m of messages) if (m.sender === 'server' && isRecord(m.json) && typeof m.json.hostInstanceId === 'string') return m.json.hostInstanceId;
  return undefined;
}

function textOf(message: ScriptMessage): string {
  return message.raw.toString('utf8').replace(/\r?\n$/, '');
}

function excerpt(text: string): string {
  return text.length <= EXCERPT_CHARS ? text : text.slice(0, EXCERPT_CHARS) + '…';
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
