import { isDeepStrictEqual } from 'node:util';
import type { Finding } from '../../core/finding.js';
import { ChunkExpander, isChunkType, type Emit } from './chunk-expander.js';
import { FindingSink } from './finding-sink.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { authoritativeActivityTypes, patched, StateTracker } from './state-tracker.js';
import { ThinkingTranslator } from './thinking-compat.js';

/**
 * The ONE model of an AG-UI run: what the official client (`@ag-ui/client@1.0.0`) holds after it has
 * applied a stream of events. `diff --semantic` and the inspector's run view both present this, so
 * they cannot disagree about a run.
 *
 * It follows the client's pipeline after the wire: `*_CHUNK` events expand with ChunkExpander (a port
 * of `transformChunks`), retired THINKING_* events become REASONING_* (the compatibility boundary),
 * and each event is applied as `defaultApplyEvents` (`src/apply/default.ts`) applies it (notes §2.5):
 * messages reconcile by id on MESSAGES_SNAPSHOT, a tool result goes right after the assistant message
 * that owns its call, state patches apply atomically or not at all.
 *
 * Where the client's verifier would fail the run (an event out of order) the model does not stop: it
 * applies what the reducer would make of the event, so a broken stream still shows what it said. On a
 * stream the client accepts, the messages and state equal the client's.
 */

/** A message as the client holds it (the `Message` union of `@ag-ui/core`: id, role, content, toolCalls …). */
export type AguiMessage = JsonObject & { id: unknown; role: unknown };

/** A tool call inside an assistant message, as the client holds it. */
export interface AguiToolCall extends JsonObject {
  id: unknown;
  type: 'function';
  function: { name: unknown; arguments: string };
}

export type RunStatus = 'open' | 'finished' | 'interrupted' | 'cancelled' | 'error';

/** How the (last) run on the stream ended: RUN_FINISHED's outcome, or RUN_ERROR; `open` when neither came. */
export interface RunOutcome {
  status: RunStatus;
  /** The position of the terminal event, or null. */
  at: number | null;
  /** The terminal event as sent. */
  event?: JsonObject;
}

/** Where a message or tool call came from: the position of the first event that made it, and of its END. */
export interface Provenance {
  first: number;
  end: number | null;
}

/** What one event went into first: a message (a tool result is a message) or a tool call. */
export type Touch = { kind: 'message'; id: unknown } | { kind: 'tool-call'; id: unknown };

export interface MaterializedRun {
  /** The RunAgentInput the client sent, when known. */
  input: JsonObject | undefined;
  /** The conversation as the client holds it, in its order: the input's messages, then what the run made. */
  messages: AguiMessage[];
  state: unknown;
  outcome: RunOutcome;
}

/** Folds AG-UI events, one at a time, into the run the client materialises. Pure: no I/O. */
export class AguiRunModel {
  private messageList: AguiMessage[] = [];
  private readonly tracker = new StateTracker();
  private readonly chunks = new ChunkExpander();
  /** Findings are the checker's business; the model only needs a sink to hand the shared parts. */
  private readonly sink = new FindingSink();
  private readonly scratch: Finding[] = [];
  private inputValue: JsonObject | undefined;
  private outcomeValue: RunOutcome = { status: 'open', at: null };
  private readonly messageAt = new Map<unknown, Provenance>();
  private readonly toolCallAt = new Map<unknown, Provenance>();
  private readonly thinking = new ThinkingTranslator();
  private touched: Touch | undefined;
  /** Set while an END synthesised for a chunk lane that this event closed is applied: that END is not what the event went into. */
  private closing = false;
  private at = 0;
  private readonly emit: Emit = (ev, type, origin) => {
    this.closing = origin === 'closing';
    this.reduce(type, ev);
    this.closing = false;
    return true;
  };
  /**
   * Streams send many deltas in a row to one message or call, and a long conversation makes a scan per
   * delta quadratic: the last lookup is remembered until the list changes other than by appending.
   */
  private generation = 0;
  private lastMessage: { message: AguiMessage; generation: number } | undefined;
  private lastCall: { message: AguiMessage; call: AguiToolCall; generation: number } | undefined;

  /** `input` is the RunAgentInput (the request body): its messages and state are where the client starts. */
  constructor(input?: unknown) {
    if (input !== undefined) this.setInput(input);
  }

  /** Starts from a RunAgentInput: its messages (the client sends no activity messages) and its `state`. */
  setInput(input: unknown): void {
    if (!isJsonObject(input)) return;
    this.inputValue = input;
    this.tracker.setBaseline(input.state);
    const messages = Array.isArray(input.messages) ? input.messages : [];
    this.messageList = messages.filter(isMessage).filter((m) => m.role !== 'activity').map(ownMessage);
    this.generation++;
  }

  get messages(): AguiMessage[] {
    return this.messageList;
  }

  get state(): unknown {
    return this.tracker.state;
  }

  get outcome(): RunOutcome {
    return this.outcomeValue;
  }

  /** Where a message (by id) was first made and ended, or undefined for one the events never touched. */
  messageProvenance(id: unknown): Provenance | undefined {
    return this.messageAt.get(id);
  }

  toolCallProvenance(id: unknown): Provenance | undefined {
    return this.toolCallAt.get(id);
  }

  result(): MaterializedRun {
    return { input: this.inputValue, messages: this.messageList, state: this.tracker.state, outcome: this.outcomeValue };
  }

  /**
   * Applies one wire event at position `at` (a seq, an index). Returns what it went into first, or
   * undefined when it changed no message or tool call (a state, step or run event, or one the client
   * drops, such as content for a message that was never started).
   */
  apply(event: unknown, at: number): Touch | undefined {
    this.touched = undefined;
    if (!isJsonObject(event) || typeof event.type !== 'string') return undefined;
    this.at = at;
    this.sink.begin(event, this.scratch);
    const type = event.type;
    if (isChunkType(type)) this.chunks.expand(type, event, this.sink, this.emit);
    else {
      // The compatibility boundary runs before chunk expansion in the client, so a translated event closes lanes too.
      const translated = this.thinking.translate(type, event);
      this.chunks.before(translated.type as string, translated, this.emit);
      this.reduce(translated.type as string, translated);
    }
    this.scratch.length = 0;
    return this.touched;
  }

  private touch(kind: Touch['kind'], id: unknown): void {
    if (!this.closing) this.touched ??= { kind, id };
  }

  private made(map: Map<unknown, Provenance>, id: unknown): void {
    if (!map.has(id)) map.set(id, { first: this.at, end: null });
  }

  private ended(map: Map<unknown, Provenance>, id: unknown): void {
    const p = map.get(id);
    if (p !== undefined) p.end = this.at;
  }

  /** The first message with this id, as the client's `messages.find` finds it. */
  private find(id: unknown): AguiMessage | undefined {
    const last = this.lastMessage;
    if (last !== undefined && last.generation === this.generation && last.message.id === id) return last.message;
    const message = this.messageList.find((m) => m.id === id);
    if (message !== undefined) this.lastMessage = { message, generation: this.generation };
    return message;
  }

  private ownerOf(toolCallId: unknown): { message: AguiMessage; call: AguiToolCall } | undefined {
    const last = this.lastCall;
    if (last !== undefined && last.generation === this.generation && last.call.id === toolCallId) return last;
    for (const message of this.messageList) {
      const call = toolCallsOf(message)?.find((c) => c.id === toolCallId);
      if (call === undefined) continue;
      this.lastCall = { message, call, generation: this.generation };
      return this.lastCall;
    }
    return undefined;
  }

  /** `defaultApplyEvents`, event by event, without the subscribers. */
  private reduce(type: string, ev: JsonObject): void {
    switch (type) {
      case 'TEXT_MESSAGE_START':
      case 'REASONING_MESSAGE_START':
        return this.startMessage(ev, type === 'TEXT_MESSAGE_START' ? (ev.role ?? 'assistant') : 'reasoning', type === 'TEXT_MESSAGE_START');
      case 'TEXT_MESSAGE_CONTENT':
      case 'REASONING_MESSAGE_CONTENT': {
        const target = this.find(ev.messageId);
        if (target === undefined || target.role === 'activity') return;
        target.content = `${typeof target.content === 'string' ? target.content : ''}${textOf(ev.delta)}`;
        mergeMetadata(target, ev);
        this.made(this.messageAt, target.id);
        this.touch('message', target.id);
        return;
      }
      case 'TEXT_MESSAGE_END':
      case 'REASONING_MESSAGE_END': {
        const target = this.find(ev.messageId);
        if (target === undefined || target.role === 'activity') return;
        mergeMetadata(target, ev);
        this.made(this.messageAt, target.id);
        this.ended(this.messageAt, target.id);
        this.touch('message', target.id);
        return;
      }
      case 'TOOL_CALL_START':
        return this.startToolCall(ev);
      case 'TOOL_CALL_ARGS':
      case 'TOOL_CALL_END': {
        const owner = this.ownerOf(ev.toolCallId);
        if (owner === undefined) return;
        if (type === 'TOOL_CALL_ARGS') owner.call.function.arguments += textOf(ev.delta);
        mergeMetadata(owner.call, ev);
        this.made(this.toolCallAt, ev.toolCallId);
        if (type === 'TOOL_CALL_END') this.ended(this.toolCallAt, ev.toolCallId);
        this.touch('tool-call', ev.toolCallId);
        return;
      }
      case 'TOOL_CALL_RESULT':
        return this.addToolResult(ev);
      case 'STATE_SNAPSHOT':
      case 'STATE_DELTA':
        this.tracker.apply(type, ev, this.sink);
        return;
      case 'MESSAGES_SNAPSHOT':
        return this.reconcile(ev);
      case 'ACTIVITY_SNAPSHOT':
        return this.activitySnapshot(ev);
      case 'ACTIVITY_DELTA':
        return this.activityDelta(ev);
      case 'REASONING_ENCRYPTED_VALUE':
        return this.encryptedValue(ev);
      case 'RUN_STARTED':
        return this.runStarted(ev);
      case 'RUN_FINISHED':
        this.outcomeValue = { status: finishedStatus(ev), at: this.at, event: ev };
        return;
      case 'RUN_ERROR':
        this.outcomeValue = { status: 'error', at: this.at, event: ev };
        return;
      default:
        return;
    }
  }

  private startMessage(ev: JsonObject, role: unknown, text: boolean): void {
    const existing = this.find(ev.messageId);
    if (existing?.role === 'activity') return;
    let target = existing;
    if (target === undefined) {
      target = { id: ev.messageId, role, content: '' };
      if (text && ev.name !== undefined) target.name = ev.name;
      if (ev.subagentRunId !== undefined && ev.subagentRunId !== null) target.subagentRunId = ev.subagentRunId;
      this.messageList.push(target);
    }
    mergeMetadata(target, ev);
    this.made(this.messageAt, target.id);
    this.touch('message', target.id);
  }

  private startToolCall(ev: JsonObject): void {
    const id = ev.toolCallId;
    const existing = this.ownerOf(id);
    if (existing !== undefined) {
      // Idempotent: a replayed start renames the call at most; its arguments stay.
      existing.call.function.name = ev.toolCallName;
      mergeMetadata(existing.call, ev);
    } else {
      const target = this.assistantFor(ev.parentMessageId, id, ev.subagentRunId);
      const call: AguiToolCall = { id, type: 'function', function: { name: ev.toolCallName, arguments: '' } };
      ((target.toolCalls ??= []) as AguiToolCall[]).push(call);
      mergeMetadata(call, ev);
    }
    this.made(this.toolCallAt, id);
    this.touch('tool-call', id);
  }

  /** resolveOrCreateAssistantMessage: the parent when it is an assistant message, else a new one. */
  private assistantFor(parentMessageId: unknown, toolCallId: unknown, subagentRunId: unknown): AguiMessage {
    const existing = parentMessageId ? this.find(parentMessageId) : undefined;
    if (existing?.role === 'assistant') return existing;
    const created: AguiMessage = { id: parentMessageId && existing === undefined ? parentMessageId : toolCallId, role: 'assistant', toolCalls: [] };
    if (subagentRunId !== undefined && subagentRunId !== null) created.subagentRunId = subagentRunId;
    this.messageList.push(created);
    return created;
  }

  private addToolResult(ev: JsonObject): void {
    const message: AguiMessage = { id: ev.messageId, toolCallId: ev.toolCallId, role: ev.role || 'tool', content: ev.content };
    if (ev.subagentRunId !== undefined && ev.subagentRunId !== null) message.subagentRunId = ev.subagentRunId;
    mergeMetadata(message, ev);
    // Right after the assistant message that owns the call (and any results already there).
    const owner = this.messageList.findIndex((m) => m.role === 'assistant' && toolCallsOf(m)?.some((c) => c.id === ev.toolCallId) === true);
    if (owner === -1) this.messageList.push(message);
    else {
      let at = owner + 1;
      while (at < this.messageList.length && this.messageList[at].role === 'tool') at++;
      this.messageList.splice(at, 0, message);
      this.generation++;
    }
    this.made(this.messageAt, message.id);
    this.touch('message', message.id);
  }

  /**
   * Reconciles by id: a message the snapshot carries replaces ours in place, new ones are appended in
   * its order, ours it leaves out are dropped, except activity and reasoning messages when the
   * snapshot carries none of that role (or its metadata does not claim their activity type).
   */
  private reconcile(ev: JsonObject): void {
    if (!Array.isArray(ev.messages)) return;
    const incoming = ev.messages.filter(isMessage).map(ownMessage);
    const byId = new Map(incoming.map((m) => [m.id, m]));
    const owned = authoritativeActivityTypes(ev.metadata);
    const hasActivity = incoming.some((m) => m.role === 'activity');
    const hasReasoning = incoming.some((m) => m.role === 'reasoning');
    const keptLocal = (m: AguiMessage) =>
      (m.role === 'activity' && (owned ? !owned.includes(m.activityType as string) : owned !== null && !hasActivity)) || (m.role === 'reasoning' && !hasReasoning);
    this.messageList = this.messageList.filter((m) => byId.has(m.id) || keptLocal(m)).map((m) => byId.get(m.id) ?? m);
    this.generation++;
    const present = new Set(this.messageList.map((m) => m.id));
    for (const m of incoming) {
      if (!present.has(m.id)) this.messageList.push(m);
      this.made(this.messageAt, m.id);
      for (const call of toolCallsOf(m) ?? []) this.made(this.toolCallAt, call.id);
    }
  }

  private activitySnapshot(ev: JsonObject): void {
    const index = this.messageList.findIndex((m) => m.id === ev.messageId);
    const existing = index >= 0 ? this.messageList[index] : undefined;
    const replace = ev.replace ?? true;
    const fresh: AguiMessage = { id: ev.messageId, role: 'activity', activityType: ev.activityType, content: ev.content };
    if (ev.subagentRunId !== undefined && ev.subagentRunId !== null) fresh.subagentRunId = ev.subagentRunId;
    let target: AguiMessage | undefined;
    this.generation++;
    if (existing === undefined) {
      this.messageList.push(fresh);
      target = fresh;
    } else if (existing.role === 'activity') {
      if (replace) {
        // Replaces content and type, keeps the metadata so far, and takes the snapshot's owner.
        const { subagentRunId: _owner, ...kept } = existing;
        this.messageList[index] = { ...kept, activityType: ev.activityType, content: ev.content, ...(fresh.subagentRunId === undefined ? {} : { subagentRunId: fresh.subagentRunId }) } as AguiMessage;
      }
      target = this.messageList[index];
    } else if (replace) {
      this.messageList[index] = fresh;
      target = fresh;
    }
    if (target !== undefined) {
      mergeMetadata(target, ev);
      this.made(this.messageAt, target.id);
      this.touch('message', target.id);
    }
  }

  private activityDelta(ev: JsonObject): void {
    const index = this.messageList.findIndex((m) => m.id === ev.messageId);
    if (index === -1 || this.messageList[index].role !== 'activity') return;
    const existing = this.messageList[index];
    mergeMetadata(existing, ev);
    const result = patched(existing.content ?? {}, ev.patch ?? []);
    if (result.ok) this.messageList[index] = { ...existing, content: result.value, activityType: ev.activityType };
    this.generation++;
    this.touch('message', existing.id);
  }

  private encryptedValue(ev: JsonObject): void {
    if (ev.subtype === 'tool-call') {
      const owner = this.ownerOf(ev.entityId);
      if (owner?.message.role === 'assistant') owner.call.encryptedValue = ev.encryptedValue;
      return;
    }
    const message = this.find(ev.entityId);
    if (message !== undefined && message.role !== 'activity') message.encryptedValue = ev.encryptedValue;
  }

  /** A new run on the stream: messages persist; the input it echoes adds the messages not held yet. */
  private runStarted(ev: JsonObject): void {
    this.outcomeValue = { status: 'open', at: null };
    const input = ev.input;
    if (!isJsonObject(input) || !Array.isArray(input.messages)) return;
    for (const m of input.messages.filter(isMessage)) {
      if (this.find(m.id) !== undefined) continue;
      this.messageList.push(ownMessage(m));
      this.made(this.messageAt, m.id);
      for (const call of toolCallsOf(m) ?? []) this.made(this.toolCallAt, call.id);
    }
  }
}

/**
 * The messages the run made or changed: all but the input messages it left as they were, which the
 * request already shows. (A MESSAGES_SNAPSHOT that restates the conversation restates them too.)
 */
export function runMessages(run: MaterializedRun): AguiMessage[] {
  const sent = new Map<unknown, unknown>();
  if (Array.isArray(run.input?.messages)) for (const m of run.input.messages) if (isJsonObject(m)) sent.set(m.id, m);
  return run.messages.filter((m) => !sent.has(m.id) || !isDeepStrictEqual(m, sent.get(m.id)));
}

/** The run the client materialises from `events` (wire events, chunks included), starting from `input` (the request body). */
export function materializeRun(events: Iterable<unknown>, input?: unknown): MaterializedRun {
  const model = new AguiRunModel(input);
  let at = 0;
  for (const event of events) model.apply(event, at++);
  return model.result();
}

/** The text of a message's content: a string as is; text parts joined (other parts as JSON). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (isJsonObject(part) && typeof part.text === 'string' ? part.text : JSON.stringify(part))).join('');
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

export function toolCallsOf(message: AguiMessage): AguiToolCall[] | undefined {
  return Array.isArray(message.toolCalls) ? (message.toolCalls as AguiToolCall[]) : undefined;
}

function finishedStatus(ev: JsonObject): RunStatus {
  const outcome = isJsonObject(ev.outcome) ? ev.outcome.type : ev.outcome;
  // `outcome: "interrupt"` and a bare `interrupt` are the drafts' shapes before the outcome object.
  if (outcome === 'interrupt' || ev.interrupt !== undefined) return 'interrupted';
  return outcome === 'cancelled' ? 'cancelled' : 'finished';
}

/** A delta as the client appends it; a valid event's is always a string, a broken one's adds nothing. */
function textOf(delta: unknown): string {
  return typeof delta === 'string' ? delta : '';
}

function isMessage(value: unknown): value is AguiMessage {
  return isJsonObject(value) && 'id' in value;
}

/**
 * A copy the model may change without touching the event it came from: the message, its tool calls
 * and their `function`; a null owner tag reads as absent, as in the client.
 */
function ownMessage(message: AguiMessage): AguiMessage {
  const own: AguiMessage = { ...message };
  if (own.subagentRunId === null) delete own.subagentRunId;
  if (Array.isArray(own.toolCalls)) own.toolCalls = own.toolCalls.map((c) => (isJsonObject(c) ? { ...c, function: isJsonObject(c.function) ? { ...c.function } : c.function } : c));
  return own;
}

/** An event's metadata merged into what it builds, key by key, the last write winning (core `mergeMetadata`). */
function mergeMetadata(target: JsonObject, ev: JsonObject): void {
  if (ev.metadata === undefined) return;
  target.metadata = isJsonObject(target.metadata) ? { ...target.metadata, ...(ev.metadata as JsonObject) } : { ...(ev.metadata as JsonObject) };
}
