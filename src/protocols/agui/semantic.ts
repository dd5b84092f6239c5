import { tooDeepToWalk } from '../../core/json-depth.js';
import { isJsonObject } from '../../core/json.js';
import type { SemanticFold } from '../protocol.js';
import { materializeRun, runMessages, toolCallsOf, type AguiMessage, type RunOutcome } from './materialize.js';

/**
 * `diff --semantic` for AG-UI: a run (an SSE or protobuf stream) as the run model the inspector
 * shows too (materialize.ts), presented for comparing: the messages the run made or changed
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

/** AG-UI's fold for `diff --semantic`: every event of a run's stream. */
export const aguiSemantic: SemanticFold = {
  transports: ['sse', 'proto'],
  folds: () => true,
  fold: (fed, request) => materializeAguiRun([...fed], request),
};

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

