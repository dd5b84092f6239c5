import { tooDeepToWalk } from '../core/json-depth.js';
import { isJsonObject } from '../core/json.js';
import { materializeRun, runMessages, toolCallsOf, type AguiMessage, type RunOutcome } from '../protocols/agui/materialize.js';
import { isPiRpcEventType } from '../protocols/pi-rpc/event-types.js';
import type { MessageRow } from '../store/store-types.js';
import { acpChunkOf } from './semantic-acp.js';

/**
 * `--semantic`: what a client materialises from a stream, so that re-chunking the same content is
 * not a difference.
 *
 * AG-UI run (an SSE or protobuf stream): the run model the inspector shows too
 * (protocols/agui/materialize.ts), presented for comparing: the messages the run made or changed
 * (tool calls with parsed arguments, tool results, reasoning, activity), the input messages it
 * dropped, the final state, custom events and the outcome.
 */
export interface AguiRunResult {
  kind: 'agui-run';
  messages: Array<Record<string, unknown>>;
  /** Ids of input messages the client no longer holds after the run (a MESSAGES_SNAPSHOT left them out); only when there are any. */
  droppedInput?: unknown[];
  state: unknown;
  custom: Array<{ name: unknown; value: unknown }>;
  outcome: { status: 'finished' | 'interrupted' | 'cancelled' | 'error' | 'incomplete'; result?: unknown; interrupts?: unknown; message?: unknown; code?: unknown };
}

/** Pi session (a framed or raw RPC WebSocket): the assistant text of each message and the tool executions. */
export interface PiSessionResult {
  kind: 'pi-session';
  assistantText: string[];
  toolExecutions: Array<{ toolCallId: unknown; toolName: unknown; args: unknown; result: unknown; isError: unknown }>;
}

export function materializeAguiRun(events: unknown[], requestBody: unknown): AguiRunResult {
  const run = materializeRun(events, requestBody);
  // The request is compared as a message of its own: only what the run made or changed is compared here.
  const messages = runMessages(run).map(comparable);
  const held = new Set(run.messages.map((m) => m.id));
  const sent = isJsonObject(requestBody) && Array.isArray(requestBody.messages) ? requestBody.messages.filter(isJsonObject) : [];
  const droppedInput = sent.map((m) => m.id).filter((id) => !held.has(id));
  const custom: AguiRunResult['custom'] = [];
  for (const ev of events) if (isJsonObject(ev) && (ev.type === 'CUSTOM' || ev.type === 'RAW')) custom.push({ name: ev.name ?? ev.type, value: ev.value ?? ev.event });
  return { kind: 'agui-run', messages, ...(droppedInput.length > 0 ? { droppedInput } : {}), state: run.state, custom, outcome: outcomeOf(run.outcome) };
}

/** A message with its tool calls as `{id, name, arguments}`, the arguments parsed, so that a re-spaced JSON is no difference. */
function comparable(message: AguiMessage): Record<string, unknown> {
  const calls = toolCallsOf(message);
  if (calls === undefined) return message;
  return { ...message, toolCalls: calls.map(({ id, type: _type, function: fn, ...rest }) => ({ id, name: fn.name, arguments: parseArgs(fn.arguments), ...rest })) };
}

function outcomeOf(outcome: RunOutcome): AguiRunResult['outcome'] {
  const ev = outcome.event ?? {};
  switch (outcome.status) {
    case 'open':
      return { status: 'incomplete' };
    case 'error':
      return { status: 'error', message: ev.message, ...(ev.code === undefined ? {} : { code: ev.code }) };
    case 'interrupted': {
      const interrupts = isJsonObject(ev.outcome) ? ev.outcome.interrupts : ev.interrupt;
      return { status: 'interrupted', ...(interrupts === undefined ? {} : { interrupts }) };
    }
    default:
      return { status: outcome.status, ...(ev.result === undefined ? {} : { result: ev.result }) };
  }
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

