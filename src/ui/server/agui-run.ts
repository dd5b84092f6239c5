import { FindingSink } from '../../protocols/agui/finding-sink.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { StateTracker } from '../../protocols/agui/state-tracker.js';
import type { FindingInfo, RunItem, RunView, StateAt } from '../api-types.js';
import type { WalkedMessage } from './inspector-data.js';

/** The RunAgentInput the client sent (the request body), when there is one. */
function inputOf(m: WalkedMessage): JsonObject | undefined {
  return m.sender === 'client' && isJsonObject(m.json) && typeof m.json.threadId === 'string' ? m.json : undefined;
}

function eventOf(m: WalkedMessage): JsonObject | undefined {
  return m.sender === 'server' && isJsonObject(m.json) && typeof m.json.type === 'string' ? m.json : undefined;
}

/**
 * The AG-UI state at event `seq`: the request's `state` as the baseline, then every STATE_SNAPSHOT,
 * STATE_DELTA and ACTIVITY_* up to and including `seq`, applied as the client does (a failing patch
 * leaves the state as it was).
 */
export function stateAt(messages: Iterable<WalkedMessage>, seq: number): StateAt {
  const tracker = new StateTracker();
  const sink = new FindingSink();
  const activityIds = new Set<string>();
  let applied = 0;
  let lastStateSeq: number | null = null;
  for (const m of messages) {
    if (m.seq > seq) break;
    const input = inputOf(m);
    if (input !== undefined) {
      tracker.setBaseline(input.state);
      continue;
    }
    const ev = eventOf(m);
    if (ev === undefined) continue;
    const type = ev.type as string;
    sink.begin(ev, []);
    tracker.apply(type, ev, sink);
    if (type === 'STATE_SNAPSHOT' || type === 'STATE_DELTA') {
      applied++;
      lastStateSeq = m.seq;
    }
    if ((type === 'ACTIVITY_SNAPSHOT' || type === 'ACTIVITY_DELTA') && typeof ev.messageId === 'string') activityIds.add(ev.messageId);
  }
  const activities: StateAt['activities'] = {};
  for (const id of activityIds) {
    const a = tracker.activity(id);
    if (a !== undefined) activities[id] = a;
  }
  return { seq, state: tracker.state, activities, applied, lastStateSeq };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (isJsonObject(part) && typeof part.text === 'string' ? part.text : JSON.stringify(part))).join('');
  return str(content);
}

/**
 * The conversation as the client materialises it from the event stream of one exchange. Each
 * invalid event is flagged, with its findings (`findingsOf(seq)`), on the item it went into.
 */
export function runView(exchangeId: number, messages: Iterable<WalkedMessage>, findingsOf: (seq: number) => FindingInfo[]): RunView {
  const view: RunView = {
    exchangeId,
    input: { threadId: null, runId: null, messages: [] },
    items: [],
    outcome: { status: 'open', seq: null, detail: 'the stream ended without RUN_FINISHED or RUN_ERROR' },
    events: 0,
    invalidEvents: 0,
  };
  /** The item the current event went into first. */
  let touched: RunItem | undefined;
  const touch = <T extends RunItem>(item: T): T => {
    touched ??= item;
    return item;
  };
  const add = (item: RunItem): RunItem => {
    view.items.push(touch(item));
    return item;
  };
  const texts = new Map<string, Extract<RunItem, { kind: 'message' }>>();
  const reasoning = new Map<string, Extract<RunItem, { kind: 'reasoning' }>>();
  const tools = new Map<string, Extract<RunItem, { kind: 'tool-call' }>>();
  let lastToolId: string | undefined;
  let lastTextId: string | undefined;

  const text = (id: string, seq: number, role: string) => {
    let item = texts.get(id);
    if (item === undefined) {
      item = { kind: 'message', seq, endSeq: null, id, role, text: '' };
      texts.set(id, item);
      view.items.push(item);
    }
    return touch(item);
  };
  const thought = (id: string, seq: number) => {
    let item = reasoning.get(id);
    if (item === undefined) {
      item = { kind: 'reasoning', seq, endSeq: null, id, text: '' };
      reasoning.set(id, item);
      view.items.push(item);
    }
    return touch(item);
  };
  const tool = (id: string, seq: number, name: string, parent: string | null) => {
    let item = tools.get(id);
    if (item === undefined) {
      item = { kind: 'tool-call', seq, endSeq: null, id, name, args: '', parentMessageId: parent, result: null };
      tools.set(id, item);
      view.items.push(item);
    }
    return touch(item);
  };

  for (const m of messages) {
    const input = inputOf(m);
    if (input !== undefined) {
      view.input.threadId = str(input.threadId);
      view.input.runId = str(input.runId);
      if (Array.isArray(input.messages)) {
        view.input.messages = input.messages.filter(isJsonObject).map((msg) => ({ id: str(msg.id), role: str(msg.role), text: contentText(msg.content) }));
      }
      continue;
    }
    touched = undefined;
    const ev = eventOf(m);
    if (ev === undefined) {
      if (m.sender === 'server' && m.status === 'invalid') flag(add({ kind: 'event', seq: m.seq, type: '(not an AG-UI event)' }), m.seq);
      continue;
    }
    view.events++;
    const type = ev.type as string;
    const seq = m.seq;
    applyEvent(type, ev, seq);
    if (m.status === 'invalid') flag(touched ?? add({ kind: 'event', seq, type }), seq);
  }
  return view;

  function flag(item: RunItem, seq: number): void {
    view.invalidEvents++;
    (item.invalid ??= []).push({ seq, findings: findingsOf(seq) });
  }

  function applyEvent(type: string, ev: JsonObject, seq: number): void {
    switch (type) {
      case 'TEXT_MESSAGE_START':
        lastTextId = str(ev.messageId);
        text(lastTextId, seq, str(ev.role) || 'assistant');
        break;
      case 'TEXT_MESSAGE_CONTENT':
      case 'TEXT_MESSAGE_CHUNK': {
        const id = ev.messageId === undefined ? (lastTextId ?? '') : str(ev.messageId);
        lastTextId = id;
        text(id, seq, str(ev.role) || 'assistant').text += str(ev.delta);
        break;
      }
      case 'TEXT_MESSAGE_END':
        text(str(ev.messageId), seq, 'assistant').endSeq = seq;
        break;
      case 'REASONING_START':
      case 'THINKING_START':
        break;
      case 'REASONING_MESSAGE_START':
      case 'THINKING_TEXT_MESSAGE_START':
        thought(str(ev.messageId) || `reasoning@${seq}`, seq);
        break;
      case 'REASONING_MESSAGE_CONTENT':
      case 'REASONING_MESSAGE_CHUNK':
      case 'THINKING_TEXT_MESSAGE_CONTENT': {
        const id = str(ev.messageId) || [...reasoning.keys()].pop() || `reasoning@${seq}`;
        thought(id, seq).text += str(ev.delta);
        break;
      }
      case 'REASONING_MESSAGE_END':
      case 'THINKING_TEXT_MESSAGE_END': {
        const id = str(ev.messageId) || [...reasoning.keys()].pop();
        if (id !== undefined && reasoning.has(id)) reasoning.get(id)!.endSeq = seq;
        break;
      }
      case 'TOOL_CALL_START':
        lastToolId = str(ev.toolCallId);
        tool(lastToolId, seq, str(ev.toolCallName), ev.parentMessageId === undefined ? null : str(ev.parentMessageId));
        break;
      case 'TOOL_CALL_ARGS':
      case 'TOOL_CALL_CHUNK': {
        const id = ev.toolCallId === undefined ? (lastToolId ?? '') : str(ev.toolCallId);
        lastToolId = id;
        const item = tool(id, seq, str(ev.toolCallName), ev.parentMessageId === undefined ? null : str(ev.parentMessageId));
        if (!item.name && typeof ev.toolCallName === 'string') item.name = ev.toolCallName;
        item.args += str(ev.delta);
        break;
      }
      case 'TOOL_CALL_END':
        tool(str(ev.toolCallId), seq, '', null).endSeq = seq;
        break;
      case 'TOOL_CALL_RESULT':
        tool(str(ev.toolCallId), seq, '', null).result = { seq, content: contentText(ev.content) };
        break;
      case 'STATE_SNAPSHOT':
      case 'STATE_DELTA':
      case 'MESSAGES_SNAPSHOT':
      case 'ACTIVITY_SNAPSHOT':
      case 'ACTIVITY_DELTA':
        add({ kind: 'state', seq, type });
        if (type === 'MESSAGES_SNAPSHOT' && Array.isArray(ev.messages)) {
          for (const msg of ev.messages.filter(isJsonObject)) {
            const id = str(msg.id);
            if (msg.role === 'tool') {
              const call = tools.get(str(msg.toolCallId));
              if (call !== undefined && call.result === null) call.result = { seq, content: contentText(msg.content) };
              continue;
            }
            if (msg.role === 'activity') continue;
            const item = text(id, seq, str(msg.role));
            if (msg.content !== undefined) item.text = contentText(msg.content);
            if (Array.isArray(msg.toolCalls)) {
              for (const call of msg.toolCalls.filter(isJsonObject)) {
                const fn = isJsonObject(call.function) ? call.function : {};
                const t = tool(str(call.id), seq, str(fn.name), id);
                if (!t.args) t.args = str(fn.arguments);
              }
            }
          }
        }
        break;
      case 'STEP_STARTED':
      case 'STEP_FINISHED':
        add({ kind: 'step', seq, type, name: str(ev.stepName) });
        break;
      case 'RUN_STARTED':
        add({ kind: 'run', seq, type, detail: `thread ${str(ev.threadId)}, run ${str(ev.runId)}` });
        break;
      case 'RUN_FINISHED': {
        const interrupted = ev.outcome === 'interrupt' || ev.interrupt !== undefined;
        const detail = interrupted ? `interrupt: ${str(ev.interrupt ?? ev.outcome)}` : ev.result === undefined ? '' : `result: ${str(ev.result)}`;
        add({ kind: 'run', seq, type, detail });
        view.outcome = { status: interrupted ? 'interrupted' : 'finished', seq, detail };
        break;
      }
      case 'RUN_ERROR': {
        const detail = `${str(ev.message)}${ev.code === undefined ? '' : ` (${str(ev.code)})`}`;
        add({ kind: 'run', seq, type, detail });
        view.outcome = { status: 'error', seq, detail };
        break;
      }
      case 'CUSTOM':
      case 'RAW':
        add({ kind: 'custom', seq, type, name: str(ev.name ?? ev.source) });
        break;
      default:
        break;
    }
  }
}
