import { AguiRunModel, contentText, runMessages, toolCallsOf, type AguiMessage, type Touch } from './materialize.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { Finding } from '../../core/finding.js';
import type { ProtocolViews, RunItem, RunView, StateAt, ViewMessage } from '../inspector-views.js';

/** The RunAgentInput the client sent (the request body), when there is one. */
function inputOf(m: ViewMessage): JsonObject | undefined {
  return m.sender === 'client' && isJsonObject(m.json) && typeof m.json.threadId === 'string' ? m.json : undefined;
}

function eventOf(m: ViewMessage): JsonObject | undefined {
  return m.sender === 'server' && isJsonObject(m.json) && typeof m.json.type === 'string' ? m.json : undefined;
}

/**
 * The AG-UI state at event `seq`, from the run model (materialize.ts) fed every event
 * up to and including `seq`: the request's `state` as the baseline, then STATE_SNAPSHOT and
 * STATE_DELTA applied as the client does (a failing patch leaves the state as it was), and the
 * activity messages the client holds by then.
 */
export function stateAt(messages: Iterable<ViewMessage>, seq: number): StateAt {
  const model = new AguiRunModel();
  let applied = 0;
  let lastStateSeq: number | null = null;
  for (const m of messages) {
    if (m.seq > seq) break;
    const input = inputOf(m);
    if (input !== undefined) {
      model.setInput(input);
      continue;
    }
    const ev = eventOf(m);
    if (ev === undefined) continue;
    model.apply(ev, m.seq);
    if (ev.type === 'STATE_SNAPSHOT' || ev.type === 'STATE_DELTA') {
      applied++;
      lastStateSeq = m.seq;
    }
  }
  const activities: StateAt['activities'] = {};
  for (const m of model.messages) if (m.role === 'activity') activities[str(m.id)] = { activityType: m.activityType, content: m.content };
  return { seq, state: model.state, activities, applied, lastStateSeq };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

/**
 * The conversation as the client materialises it from the event stream of one exchange: the run
 * model's messages (each at the seq of the event that made it), between the run, step, state and
 * custom events. Each invalid event is flagged, with its findings (`findingsOf(seq)`), on the item
 * it went into, or on an entry of its own when it went into none.
 */
export function runView(exchangeId: number, messages: Iterable<ViewMessage>, findingsOf: (seq: number) => Finding[]): RunView {
  const view: RunView = {
    exchangeId,
    input: { threadId: null, runId: null, messages: [] },
    items: [],
    outcome: { status: 'open', seq: null, detail: 'the stream ended without RUN_FINISHED or RUN_ERROR' },
    events: 0,
    invalidEvents: 0,
  };
  const model = new AguiRunModel();
  const eventItems: RunItem[] = [];
  const flags: Array<{ seq: number; into: Touch | undefined; own: RunItem | undefined; type: string }> = [];
  for (const m of messages) {
    const input = inputOf(m);
    if (input !== undefined) {
      view.input.threadId = str(input.threadId);
      view.input.runId = str(input.runId);
      if (Array.isArray(input.messages)) {
        view.input.messages = input.messages.filter(isJsonObject).map((msg) => ({ id: str(msg.id), role: str(msg.role), text: contentText(msg.content) }));
      }
      model.setInput(input);
      continue;
    }
    const ev = eventOf(m);
    if (ev === undefined) {
      if (m.sender === 'server' && m.status === 'invalid') flags.push({ seq: m.seq, into: undefined, own: undefined, type: '(not an AG-UI event)' });
      continue;
    }
    view.events++;
    const into = model.apply(ev, m.seq);
    const own = eventItem(ev, m.seq);
    if (own !== undefined) eventItems.push(own);
    if (m.status === 'invalid') flags.push({ seq: m.seq, into, own, type: ev.type as string });
  }

  const { items, byMessage, byToolCall } = messageItems(model);
  for (const flag of flags) {
    let item = flag.into === undefined ? undefined : flag.into.kind === 'message' ? byMessage.get(flag.into.id) : byToolCall.get(flag.into.id);
    item ??= flag.own;
    if (item === undefined) eventItems.push((item = { kind: 'event', seq: flag.seq, type: flag.type }));
    view.invalidEvents++;
    (item.invalid ??= []).push({ seq: flag.seq, findings: findingsOf(flag.seq) });
  }
  // One timeline by seq; on a tie the event (a MESSAGES_SNAPSHOT) comes before the messages it made.
  view.items = [...eventItems, ...items].map((item, i) => [item, i] as const).sort(([a, i], [b, j]) => a.seq - b.seq || i - j).map(([item]) => item);
  view.outcome = outcomeOf(model);
  return view;
}

/**
 * The model's messages as run items, in the client's order; input messages the run left as they
 * were are left to `view.input`. A tool result is shown on its call; activity messages on their state events.
 */
function messageItems(model: AguiRunModel) {
  const items: RunItem[] = [];
  const byMessage = new Map<unknown, RunItem>();
  const byToolCall = new Map<unknown, Extract<RunItem, { kind: 'tool-call' }>>();
  for (const m of runMessages(model.result())) {
    const calls = toolCallsOf(m) ?? [];
    // An assistant message the client made up for a tool call was made by that call's events.
    const made = model.messageProvenance(m.id) ?? calls.map((c) => model.toolCallProvenance(c.id)).find((p) => p !== undefined);
    if (made === undefined || m.role === 'activity') continue;
    const text = contentText(m.content);
    if (m.role === 'tool') {
      const call = byToolCall.get(m.toolCallId);
      if (call !== undefined) {
        call.result = { seq: made.first, content: text };
        byMessage.set(m.id, call);
        continue;
      }
    }
    if (m.role === 'reasoning') add({ kind: 'reasoning', seq: made.first, endSeq: made.end, id: str(m.id), text });
    else if (text !== '' || calls.length === 0) add({ kind: 'message', seq: made.first, endSeq: made.end, id: str(m.id), role: str(m.role), text });
    for (const call of calls) {
      const at = model.toolCallProvenance(call.id) ?? made;
      const item: Extract<RunItem, { kind: 'tool-call' }> = {
        kind: 'tool-call',
        seq: at.first,
        endSeq: at.end,
        id: str(call.id),
        name: str(call.function.name),
        args: str(call.function.arguments),
        parentMessageId: parentOf(m, call.id),
        result: null,
      };
      items.push(item);
      byToolCall.set(call.id, item);
      if (!byMessage.has(m.id)) byMessage.set(m.id, item);
    }
  }
  return { items, byMessage, byToolCall };

  function add(item: RunItem): void {
    items.push(item);
    byMessage.set((item as { id: string }).id, item);
  }
}

/** The message a tool call belongs to; null when the client made one up for it (named after the call). */
function parentOf(message: AguiMessage, toolCallId: unknown): string | null {
  return message.id === toolCallId ? null : str(message.id);
}

/** The run item of an event that is not a message's: run, step, state and custom events. */
function eventItem(ev: JsonObject, seq: number): RunItem | undefined {
  const type = ev.type as string;
  switch (type) {
    case 'STATE_SNAPSHOT':
    case 'STATE_DELTA':
    case 'MESSAGES_SNAPSHOT':
    case 'ACTIVITY_SNAPSHOT':
    case 'ACTIVITY_DELTA':
      return { kind: 'state', seq, type };
    case 'STEP_STARTED':
    case 'STEP_FINISHED':
      return { kind: 'step', seq, type, name: str(ev.stepName) };
    case 'RUN_STARTED':
      return { kind: 'run', seq, type, detail: `thread ${str(ev.threadId)}, run ${str(ev.runId)}` };
    case 'RUN_FINISHED':
      return { kind: 'run', seq, type, detail: finishedDetail(ev) };
    case 'RUN_ERROR':
      return { kind: 'run', seq, type, detail: errorDetail(ev) };
    case 'CUSTOM':
    case 'RAW':
      return { kind: 'custom', seq, type, name: str(ev.name ?? ev.source) };
    default:
      return undefined;
  }
}

function outcomeOf(model: AguiRunModel): RunView['outcome'] {
  const { status, at, event } = model.outcome;
  if (status === 'open' || event === undefined) return { status: 'open', seq: null, detail: 'the stream ended without RUN_FINISHED or RUN_ERROR' };
  return { status, seq: at, detail: status === 'error' ? errorDetail(event) : status === 'cancelled' ? '' : finishedDetail(event) };
}

function finishedDetail(ev: JsonObject): string {
  const outcome = isJsonObject(ev.outcome) ? ev.outcome : undefined;
  if (outcome?.type === 'interrupt') return `interrupt: ${str(outcome.interrupts)}`;
  if (outcome?.type === 'cancelled') return 'cancelled';
  if (ev.outcome === 'interrupt' || ev.interrupt !== undefined) return `interrupt: ${str(ev.interrupt ?? ev.outcome)}`;
  return ev.result === undefined ? '' : `result: ${str(ev.result)}`;
}

function errorDetail(ev: JsonObject): string {
  return `${str(ev.message)}${ev.code === undefined ? '' : ` (${str(ev.code)})`}`;
}

/** The inspector's AG-UI run tab, and the state at each message. */
export const aguiViews: ProtocolViews = { tab: { route: 'run', label: 'AG-UI run', build: (exchangeId, messages, context) => runView(exchangeId, messages, context.findingsOf) }, stateAt };
