import { tooDeepToWalk } from '../core/json-depth.js';
import { FindingSink } from '../protocols/agui/finding-sink.js';
import { StateTracker } from '../protocols/agui/state-tracker.js';
import { isPiRpcEventType } from '../protocols/pi-rpc/event-types.js';
import type { MessageRow } from '../store/store-types.js';
import { acpChunkOf } from './semantic-acp.js';
import { isJsonObject } from '../core/json.js';

/**
 * `--semantic`: what a client materialises from a stream, so that re-chunking the same content is
 * not a difference.
 *
 * AG-UI run (an SSE or protobuf stream): the final messages (text joined, tool calls with parsed
 * arguments, tool results), the final state (snapshots and RFC 6902 deltas applied with the same
 * StateTracker the checker uses), custom events and the outcome.
 */
export interface AguiRunResult {
  kind: 'agui-run';
  messages: Array<Record<string, unknown>>;
  state: unknown;
  custom: Array<{ name: unknown; value: unknown }>;
  outcome: { status: 'finished' | 'error' | 'incomplete'; result?: unknown; message?: unknown; code?: unknown };
}

/** Pi session (a framed or raw RPC WebSocket): the assistant text of each message and the tool executions. */
export interface PiSessionResult {
  kind: 'pi-session';
  assistantText: string[];
  toolExecutions: Array<{ toolCallId: unknown; toolName: unknown; args: unknown; result: unknown; isError: unknown }>;
}

interface MessageState {
  id: unknown;
  role: unknown;
  content: string;
  toolCalls: Array<{ id: unknown; name: unknown; args: string }>;
}

export function materializeAguiRun(events: unknown[], requestBody: unknown): AguiRunResult {
  const baseline = isJsonObject(requestBody) ? requestBody.state : undefined;
  const tracker = new StateTracker(baseline);
  const sink = new FindingSink();
  const messages: MessageState[] = [];
  const snapshotMessages: Array<Record<string, unknown>> = [];
  const byId = new Map<unknown, MessageState>();
  const toolCalls = new Map<unknown, { id: unknown; name: unknown; args: string }>();
  const tools: Array<Record<string, unknown>> = [];
  const custom: AguiRunResult['custom'] = [];
  let outcome: AguiRunResult['outcome'] = { status: 'incomplete' };
  const message = (id: unknown, role: unknown = 'assistant'): MessageState => {
    let m = byId.get(id);
    if (!m) {
      m = { id, role, content: '', toolCalls: [] };
      byId.set(id, m);
      messages.push(m);
    }
    return m;
  };
  const toolCall = (id: unknown, name?: unknown, parent?: unknown) => {
    let call = toolCalls.get(id);
    if (!call) {
      call = { id, name, args: '' };
      toolCalls.set(id, call);
      message(parent ?? `tool-call-parent:${String(id)}`).toolCalls.push(call);
    }
    if (name !== undefined) call.name = name;
    return call;
  };
  for (const ev of events) {
    if (!isJsonObject(ev) || typeof ev.type !== 'string') continue;
    switch (ev.type) {
      case 'TEXT_MESSAGE_START':
        message(ev.messageId, ev.role ?? 'assistant');
        break;
      case 'TEXT_MESSAGE_CONTENT':
      case 'TEXT_MESSAGE_CHUNK':
        if (typeof ev.delta === 'string') message(ev.messageId, ev.role ?? 'assistant').content += ev.delta;
        else message(ev.messageId, ev.role ?? 'assistant');
        break;
      case 'TOOL_CALL_START':
        toolCall(ev.toolCallId, ev.toolCallName, ev.parentMessageId);
        break;
      case 'TOOL_CALL_ARGS':
      case 'TOOL_CALL_CHUNK':
        toolCall(ev.toolCallId, ev.toolCallName, ev.parentMessageId).args += typeof ev.delta === 'string' ? ev.delta : '';
        break;
      case 'TOOL_CALL_RESULT':
        tools.push({ id: ev.messageId, role: ev.role ?? 'tool', toolCallId: ev.toolCallId, content: ev.content });
        break;
      case 'MESSAGES_SNAPSHOT':
        if (Array.isArray(ev.messages)) {
          snapshotMessages.splice(0, snapshotMessages.length, ...(ev.messages.filter(isJsonObject) as Array<Record<string, unknown>>));
          messages.splice(0);
          byId.clear();
          tools.splice(0);
        }
        break;
      case 'STATE_SNAPSHOT':
      case 'STATE_DELTA':
        tracker.apply(ev.type, ev, sink);
        break;
      case 'CUSTOM':
      case 'RAW':
        custom.push({ name: ev.name ?? ev.type, value: ev.value ?? ev.event });
        break;
      case 'RUN_FINISHED':
        outcome = { status: 'finished', ...(ev.result === undefined ? {} : { result: ev.result }) };
        break;
      case 'RUN_ERROR':
        outcome = { status: 'error', message: ev.message, ...(ev.code === undefined ? {} : { code: ev.code }) };
        break;
      default:
        break;
    }
  }
  const materialised = messages.map((m) => {
    const out: Record<string, unknown> = { id: m.id, role: m.role, content: m.content };
    if (m.toolCalls.length > 0) out.toolCalls = m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: parseArgs(c.args) }));
    return out;
  });
  return { kind: 'agui-run', messages: [...snapshotMessages, ...materialised, ...tools], state: tracker.state, custom, outcome };
}

/**
 * Is this server message part of a Pi session's event stream? A framed `{kind:'event', event}`, a
 * raw Pi RPC event, or a daemon socket event `{kind:'event', event:'messageUpdate', data}` (read as
 * the Pi event `{type:'message_update', …data}`).
 */
export function piEventOf(value: unknown): Record<string, unknown> | undefined {
  if (!isJsonObject(value)) return undefined;
  if (value.kind === 'event' && isJsonObject(value.event)) return value.event;
  if (value.kind === 'event' && typeof value.event === 'string' && isJsonObject(value.data)) {
    const type = value.event.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    return isPiRpcEventType(type) ? { ...value.data, type } : undefined;
  }
  if (value.kind === undefined && isPiRpcEventType(value.type)) return value;
  return undefined;
}

export function materializePiSession(events: Array<Record<string, unknown>>): PiSessionResult {
  const assistantText: string[] = [];
  let current: string | undefined;
  const starts = new Map<unknown, unknown>();
  const toolExecutions: PiSessionResult['toolExecutions'] = [];
  for (const ev of events) {
    switch (ev.type) {
      case 'message_update': {
        const inner = isJsonObject(ev.assistantMessageEvent) ? ev.assistantMessageEvent : undefined;
        if (inner?.type === 'text_delta' && typeof inner.delta === 'string') current = (current ?? '') + inner.delta;
        break;
      }
      case 'message_end':
        if (current !== undefined) assistantText.push(current);
        current = undefined;
        break;
      case 'tool_execution_start':
        starts.set(ev.toolCallId, ev.args);
        break;
      case 'tool_execution_end':
        toolExecutions.push({ toolCallId: ev.toolCallId, toolName: ev.toolName, args: starts.get(ev.toolCallId) ?? null, result: ev.result ?? null, isError: ev.isError ?? false });
        break;
      default:
        break;
    }
  }
  if (current !== undefined) assistantText.push(current);
  return { kind: 'pi-session', assistantText, toolExecutions };
}

/** Which materialised result `--semantic` folds an exchange's streamed server messages into, if any. */
export type SemanticKind = 'agui' | 'pi' | 'acp';

export function semanticKind(protocol: string | null, transport: string): SemanticKind | undefined {
  if (protocol === 'agui' && (transport === 'sse' || transport === 'proto')) return 'agui';
  if ((protocol === 'pi-daemon-rpc' || protocol === 'pi-rpc') && (transport === 'ws' || transport === 'stdio')) return 'pi';
  if (protocol === 'unix-ndjson' && transport === 'ndjson') return 'pi';
  if (protocol === 'acp' && (transport === 'ws' || transport === 'stdio')) return 'acp';
  return undefined;
}

/**
 * Pi's streamed partials: each carries a snapshot of the message (or tool result) built so far,
 * cut wherever the stream happened to be, so their number and content vary from run to run.
 */
const PI_PARTIALS: ReadonlySet<unknown> = new Set(['message_update', 'tool_execution_update']);

/**
 * Is this server message compared only through the materialised result? Every AG-UI event of a
 * run; of a Pi session only the streamed partials (the rest, such as `message_end` with the message
 * they built up and `tool_execution_end` with the result, are still compared one by one).
 */
export function isFoldedMessage(kind: SemanticKind, m: Pick<MessageRow, 'sender' | 'json'>): boolean {
  if (m.sender !== 'server' || m.json === undefined) return false;
  if (kind === 'acp') return acpChunkOf(m.json) !== undefined;
  return kind === 'agui' ? true : PI_PARTIALS.has(piEventOf(m.json)?.type);
}

/** Does this server message feed the materialised result? The folded ones, and every Pi event (message boundaries, tool executions). */
export function feedsMaterializer(kind: SemanticKind, m: Pick<MessageRow, 'sender' | 'json'>): boolean {
  if (kind !== 'pi') return isFoldedMessage(kind, m);
  return m.sender === 'server' && m.json !== undefined && piEventOf(m.json) !== undefined;
}

/**
 * Under `--semantic` an exchange is compared as independent streams, each in its own order: what
 * the client sent, what the server sent, and a stdio agent's stderr (a pipe of its own). How the
 * streams interleave is a race the protocols leave open. 0, 1, 2: the order they are compared in.
 */
export function streamOf(m: Pick<MessageRow, 'sender' | 'channel'>): 0 | 1 | 2 {
  if (m.sender !== 'server') return 0;
  return m.channel === 'stderr' ? 2 : 1;
}

/** Tool call arguments as JSON; the text itself when they are not JSON, or nest too deep to compare as JSON. */
function parseArgs(args: string): unknown {
  if (args === '') return {};
  if (tooDeepToWalk(args)) return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

