import { isJsonObject } from '../../core/json.js';
import type { ChannelTransport, SemanticFold } from '../protocol.js';
import { isPiRpcEventType } from './event-types.js';

/** `diff --semantic` for a Pi session (a framed or raw RPC WebSocket, a stdio agent, the daemon's socket): the assistant text of each message and the tool executions. */
export interface PiSessionResult {
  kind: 'pi-session';
  assistantText: string[];
  toolExecutions: Array<{ toolCallId: unknown; toolName: unknown; args: unknown; result: unknown; isError: unknown }>;
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

/**
 * Pi's streamed partials: each carries a snapshot of the message (or tool result) built so far,
 * cut wherever the stream happened to be, so their number and content vary from run to run.
 */
const PI_PARTIALS: ReadonlySet<unknown> = new Set(['message_update', 'tool_execution_update']);

/**
 * The fold of a Pi session's events over `transports`: of the server messages only the streamed
 * partials are folded (the rest, such as `message_end` with the message they built up and
 * `tool_execution_end` with the result, are still compared one by one), every event feeds it.
 * `drops`: the event counters, where the stream has them.
 */
export function piSessionSemantic(transports: readonly ChannelTransport[], drops?: readonly string[]): SemanticFold {
  return {
    transports,
    folds: (value) => PI_PARTIALS.has(piEventOf(value)?.type),
    feeds: (value) => piEventOf(value) !== undefined,
    fold: (fed) => materializePiSession(fed.map((json) => piEventOf(json)!)),
    ...(drops ? { drops } : {}),
  };
}

/** Raw Pi RPC's fold: over its WebSocket and stdio, no counters. */
export const piRpcSemantic: SemanticFold = piSessionSemantic(['ws', 'stdio']);
