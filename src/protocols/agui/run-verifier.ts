import type { FindingSink } from './finding-sink.js';
import { OwnerTables, PARENT_AGENT, ownerName, ownerOfTag, tagOfOwner, type Owner } from './ownership.js';
import { RULES } from './rules.js';
import { show } from './shapes.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';

/**
 * A port of `verifyEvents` from `@ag-ui/client@1.0.0` (`src/verify/verify.ts`; notes §2.2), rules
 * L1–L6, T1–T3, C1–C5, S1–S3, R1–R4, O1, N1–N4 and A1–A7, with the client's wording.
 *
 * The client throws on the first violation and the run fails. A debugging proxy keeps going, so
 * after reporting a finding the verifier applies what the producer evidently meant when that keeps
 * one mistake from cascading (a closer with the wrong tag still closes; a RUN_FINISHED with open items
 * still finishes), and ignores the event when the client would (anything after the run ended, a
 * duplicate opener, a closer for something not open).
 */
export class RunVerifier {
  private readonly openText = new Set<unknown>();
  private readonly openTools = new Set<unknown>();
  private readonly openSpans = new Set<unknown>();
  private readonly openReasoning = new Set<unknown>();
  private readonly owners = new OwnerTables();
  /** Open step names per owner tag (undefined = the parent agent). */
  private readonly steps = new Map<unknown, Set<unknown>>();
  private readonly activeSubagents = new Set<unknown>();
  private readonly finishedSubagents = new Set<unknown>();
  private finished = false;
  private errored = false;
  private firstSeen = false;
  private runStarted = false;

  /** True once the current run has ended with RUN_FINISHED or RUN_ERROR. */
  get closed(): boolean {
    return this.finished || this.errored;
  }

  /** True once any event has been verified. */
  get sawEvent(): boolean {
    return this.firstSeen;
  }

  /**
   * Verifies one event (a wire event, or one synthesised from a chunk). Returns false when the event
   * is outside any run (L2/L3) and must be ignored by later stages too.
   */
  verify(ev: JsonObject, type: string, sink: FindingSink): boolean {
    if (this.errored && type !== 'RUN_STARTED') {
      sink.error(RULES.L2, sink.at('type'), `Cannot send event type '${type}': The run has already errored with 'RUN_ERROR'. No further events can be sent.`);
      return false;
    }
    if (this.finished && type !== 'RUN_ERROR' && type !== 'RUN_STARTED') {
      sink.error(RULES.L3, sink.at('type'), `Cannot send event type '${type}': The run has already finished with 'RUN_FINISHED'. Start a new run with 'RUN_STARTED'.`);
      return false;
    }
    if (!this.firstSeen) {
      this.firstSeen = true;
      if (type !== 'RUN_STARTED' && type !== 'RUN_ERROR') sink.error(RULES.L1, sink.at('type'), `First event must be 'RUN_STARTED'`);
    } else if (type === 'RUN_STARTED') {
      if (this.runStarted && !this.finished && !this.errored) {
        sink.error(RULES.L4, sink.at('type'), `Cannot send 'RUN_STARTED' while a run is still active. The previous run must be finished with 'RUN_FINISHED' before starting a new run.`);
        // The client stops here; we start afresh so the new run is judged on its own.
        this.reset();
      } else if (this.finished || this.errored) {
        this.reset();
      }
    }

    let tag = ev.subagentRunId;
    if (tag === null) {
      sink.error(RULES.N1, sink.at('subagentRunId'), `Cannot send '${type}' with 'subagentRunId: null'. The field is optional — omit it entirely.`);
      tag = undefined;
    }

    switch (type) {
      case 'TEXT_MESSAGE_CONTENT': {
        const id = ev.messageId;
        if (!this.openText.has(id)) {
          sink.error(RULES.T2, sink.at('messageId'), `Cannot send 'TEXT_MESSAGE_CONTENT' event: No active text message found with ID '${show(id)}'. Start a text message with 'TEXT_MESSAGE_START' first.`);
          return true;
        }
        if (tag !== undefined) this.attribution(type, tag, this.owners.message.get(id), 'message', id, sink);
        return true;
      }
      case 'TEXT_MESSAGE_START': {
        const id = ev.messageId;
        if (this.openText.has(id)) {
          sink.error(RULES.T1, sink.at('messageId'), `Cannot send 'TEXT_MESSAGE_START' event: A text message with ID '${show(id)}' is already in progress. Complete it with 'TEXT_MESSAGE_END' first.`);
          return true;
        }
        const known = this.owners.message.get(id);
        if (known !== undefined) this.attribution(type, tag, known, 'message', id, sink);
        this.openText.add(id);
        if (known === undefined) this.owners.message.set(id, ownerOfTag(tag));
        return true;
      }
      case 'TEXT_MESSAGE_END': {
        const id = ev.messageId;
        if (!this.openText.has(id)) {
          sink.error(RULES.T3, sink.at('messageId'), `Cannot send 'TEXT_MESSAGE_END' event: No active text message found with ID '${show(id)}'. A 'TEXT_MESSAGE_START' event must be sent first.`);
          return true;
        }
        this.attribution(type, tag, this.owners.message.get(id), 'message', id, sink);
        this.openText.delete(id);
        return true;
      }
      case 'TOOL_CALL_START':
        this.toolCallStart(ev, tag, sink);
        return true;
      case 'TOOL_CALL_ARGS':
      case 'TOOL_CALL_END': {
        const id = ev.toolCallId;
        if (!this.openTools.has(id)) {
          if (type === 'TOOL_CALL_ARGS') {
            sink.error(RULES.C2, sink.at('toolCallId'), `Cannot send 'TOOL_CALL_ARGS' event: No active tool call found with ID '${show(id)}'. Start a tool call with 'TOOL_CALL_START' first.`);
          } else {
            sink.error(RULES.C3, sink.at('toolCallId'), `Cannot send 'TOOL_CALL_END' event: No active tool call found with ID '${show(id)}'. A 'TOOL_CALL_START' event must be sent first.`);
          }
          return true;
        }
        this.attribution(type, tag, this.owners.toolCall.get(id), 'tool call', id, sink);
        if (type === 'TOOL_CALL_END') this.openTools.delete(id);
        return true;
      }
      case 'STEP_STARTED': {
        const name = ev.stepName;
        const open = this.stepsOf(tag);
        if (open.has(name)) {
          sink.error(RULES.S1, sink.at('stepName'), `Step "${show(name)}" is already active for 'STEP_STARTED'${tag === undefined ? '' : ` in subagent '${show(tag)}'`}`);
          return true;
        }
        open.add(name);
        return true;
      }
      case 'STEP_FINISHED':
        this.stepFinished(ev.stepName, tag, sink);
        return true;
      case 'ACTIVITY_SNAPSHOT': {
        const id = ev.messageId;
        if (!this.owners.activity.has(id) || ev.replace !== false) this.owners.activity.set(id, ownerOfTag(tag));
        return true;
      }
      case 'TOOL_CALL_RESULT': {
        const id = ev.messageId;
        if (typeof id === 'string') this.owners.message.set(id, ownerOfTag(tag));
        return true;
      }
      case 'REASONING_START':
      case 'REASONING_MESSAGE_START': {
        const id = ev.messageId;
        const span = type === 'REASONING_START';
        const open = span ? this.openSpans : this.openReasoning;
        if (open.has(id)) {
          if (span) {
            sink.error(RULES.R1, sink.at('messageId'), `Cannot send 'REASONING_START' event: A reasoning span with ID '${show(id)}' is already in progress. Complete it with 'REASONING_END' first.`);
          } else {
            sink.error(RULES.R2, sink.at('messageId'), `Cannot send 'REASONING_MESSAGE_START' event: A reasoning message with ID '${show(id)}' is already in progress. Complete it with 'REASONING_MESSAGE_END' first.`);
          }
          return true;
        }
        const known = this.owners.reasoning.get(id);
        if (known !== undefined) this.attribution(type, tag, known, 'reasoning message', id, sink);
        open.add(id);
        if (known === undefined) this.owners.reasoning.set(id, ownerOfTag(tag));
        return true;
      }
      case 'REASONING_MESSAGE_CONTENT':
      case 'REASONING_MESSAGE_END':
      case 'REASONING_END': {
        const id = ev.messageId;
        const span = type === 'REASONING_END';
        const open = span ? this.openSpans : this.openReasoning;
        if (!open.has(id)) {
          if (span) {
            sink.error(RULES.R3, sink.at('messageId'), `Cannot send 'REASONING_END' event: No active reasoning span found with ID '${show(id)}'. A 'REASONING_START' event must be sent first.`);
          } else {
            sink.error(RULES.R4, sink.at('messageId'), `Cannot send '${type}' event: No active reasoning message found with ID '${show(id)}'. Start a reasoning message with 'REASONING_MESSAGE_START' first.`);
          }
          return true;
        }
        this.attribution(type, tag, this.owners.reasoning.get(id), 'reasoning message', id, sink);
        if (type !== 'REASONING_MESSAGE_CONTENT') open.delete(id);
        return true;
      }
      case 'REASONING_ENCRYPTED_VALUE': {
        const id = ev.entityId;
        const subtype = ev.subtype;
        const owner =
          subtype === 'tool-call'
            ? this.owners.toolCall.get(id)
            : subtype === 'message'
              ? (this.owners.message.get(id) ?? this.owners.reasoning.get(id))
              : this.owners.reasoning.get(id);
        const kind = subtype === 'tool-call' ? 'tool call' : subtype === 'message' ? 'message' : 'reasoning message';
        this.attribution(type, tag, owner, kind, id, sink);
        return true;
      }
      case 'ACTIVITY_DELTA':
        this.attribution(type, tag, this.owners.activity.get(ev.messageId), 'activity', ev.messageId, sink);
        return true;
      case 'SUBAGENT_STARTED':
        this.subagentNulls(ev, type, ['description', 'parentSubagentRunId', 'parentToolCallId', 'parentMessageId'], sink);
        this.subagentStarted(ev, sink);
        return true;
      case 'SUBAGENT_FINISHED':
      case 'SUBAGENT_ERROR':
        this.subagentNulls(ev, type, type === 'SUBAGENT_FINISHED' ? ['outcome'] : ['code'], sink);
        this.subagentClosed(ev, type, sink);
        return true;
      case 'MESSAGES_SNAPSHOT':
        this.seedOwners(ev.messages, true, '/messages', sink);
        return true;
      case 'RUN_STARTED':
        this.runStarted = true;
        if (isJsonObject(ev.input)) this.seedOwners(ev.input.messages, false, '/input/messages', sink);
        return true;
      case 'RUN_FINISHED':
        this.interruptNulls(ev, sink);
        this.openItemsAtFinish(sink);
        this.finished = true;
        return true;
      case 'RUN_ERROR':
        this.errored = true;
        return true;
      default:
        // STATE_*, CUSTOM, RAW: standalone, nothing to track.
        return true;
    }
  }

  private reset(): void {
    this.openText.clear();
    this.openTools.clear();
    this.openSpans.clear();
    this.openReasoning.clear();
    this.owners.clear();
    this.steps.clear();
    this.activeSubagents.clear();
    this.finishedSubagents.clear();
    this.finished = false;
    this.errored = false;
    this.runStarted = true;
  }

  /** O1: a tag, when present, must equal the opener's owner (an unknown opener passes). */
  private attribution(type: string, tag: unknown, owner: Owner | undefined, kind: string, id: unknown, sink: FindingSink): boolean {
    if (tag === undefined || owner === undefined || tagOfOwner(owner) === tag) return true;
    sink.error(RULES.O1, sink.at('subagentRunId'), `Cannot send '${type}': subagentRunId '${show(tag)}' does not match the ${kind} '${show(id)}' opener's subagent '${ownerName(owner)}'.`);
    return false;
  }

  private toolCallStart(ev: JsonObject, tag: unknown, sink: FindingSink): void {
    const id = ev.toolCallId;
    if (this.openTools.has(id)) {
      sink.error(RULES.C1, sink.at('toolCallId'), `Cannot send 'TOOL_CALL_START' event: A tool call with ID '${show(id)}' is already in progress. Complete it with 'TOOL_CALL_END' first.`);
      return;
    }
    const parentId = ev.parentMessageId;
    let parentOwner: Owner | undefined;
    let reported = false;
    if (parentId !== undefined) {
      const owner = this.owners.message.get(parentId);
      if (owner !== undefined) {
        if (tag !== undefined && tag !== tagOfOwner(owner)) {
          sink.error(RULES.C4, sink.at('subagentRunId'), `Cannot send 'TOOL_CALL_START': subagentRunId '${show(tag)}' does not match its parent message '${show(parentId)}' owner '${ownerName(owner)}'. A tool call belongs to the message that carries it.`);
          reported = true;
        }
        parentOwner = owner;
      }
    }
    const known = this.owners.toolCall.get(id);
    if (known !== undefined && !reported) {
      if (!this.attribution('TOOL_CALL_START', tag, known, 'tool call', id, sink)) {
        reported = true;
      } else if (tag === undefined && parentOwner !== undefined && parentOwner !== known) {
        sink.error(RULES.C5, sink.at('parentMessageId'), `Cannot send 'TOOL_CALL_START': tool call '${show(id)}' is owned by '${ownerName(known)}' but its parent message '${show(parentId)}' is owned by '${ownerName(parentOwner)}'. A tool call belongs to the message that carries it.`);
      }
    }
    this.openTools.add(id);
    if (known === undefined) this.owners.toolCall.set(id, tag === undefined ? (parentOwner ?? PARENT_AGENT) : tag);
  }

  private stepsOf(tag: unknown): Set<unknown> {
    let open = this.steps.get(tag);
    if (!open) {
      open = new Set();
      this.steps.set(tag, open);
    }
    return open;
  }

  private stepFinished(name: unknown, tag: unknown, sink: FindingSink): void {
    const mine = this.stepsOf(tag);
    if (mine.has(name)) {
      mine.delete(name);
      return;
    }
    for (const [other, open] of this.steps) {
      if (other !== tag && open.has(name)) {
        const by = tag === undefined ? 'the parent agent' : `subagent '${show(tag)}'`;
        const under = other === undefined ? 'the parent agent' : `subagent '${show(other)}'`;
        sink.error(RULES.S2, tag === undefined ? sink.at('stepName') : sink.at('subagentRunId'), `Cannot send 'STEP_FINISHED' for step "${show(name)}" attributed to ${by}: that step is open under ${under}. A step must be finished by whoever started it.`);
        // The producer meant to close it; closing keeps RUN_FINISHED from reporting it again.
        open.delete(name);
        return;
      }
    }
    sink.error(RULES.S3, sink.at('stepName'), `Cannot send 'STEP_FINISHED' for step "${show(name)}" that was not started`);
  }

  /** N2, and ownership seeding from MESSAGES_SNAPSHOT (authoritative) or RUN_STARTED.input (fills gaps). */
  private seedOwners(messages: unknown, override: boolean, base: string, sink: FindingSink): void {
    if (!Array.isArray(messages)) return;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i];
      if (!isJsonObject(message) || typeof message.id !== 'string') continue;
      let tag = message.subagentRunId;
      if (tag === null) {
        sink.error(RULES.N2, sink.path(`${base}/${i}/subagentRunId`), `Cannot send a message (id '${message.id}') with 'subagentRunId: null'. The field is optional — omit it entirely.`);
        tag = undefined;
      }
      const table = this.owners.forRole(message.role);
      if (override || !table.has(message.id)) table.set(message.id, ownerOfTag(tag));
      if (!Array.isArray(message.toolCalls)) continue;
      for (const call of message.toolCalls) {
        if (isJsonObject(call) && typeof call.id === 'string' && (override || !this.owners.toolCall.has(call.id))) {
          this.owners.toolCall.set(call.id, ownerOfTag(tag));
        }
      }
    }
  }

  /** N3 and A7: null optional fields and the outcome shape of SUBAGENT_*. */
  private subagentNulls(ev: JsonObject, type: string, fields: string[], sink: FindingSink): void {
    for (const field of fields) {
      if (ev[field] === null) sink.error(RULES.N3, sink.at(field), `Cannot send '${type}' with '${field}: null'. The field is optional — omit it entirely.`);
    }
    const outcome = ev.outcome as unknown;
    if (outcome === undefined || outcome === null) return;
    const kind = isJsonObject(outcome) ? outcome.type : undefined;
    if (kind !== 'success' && kind !== 'suspended') {
      sink.error(RULES.A7, sink.path('/outcome/type'), `Cannot send '${type}' with outcome type '${String(kind)}'. The outcome is either { type: "success" } or { type: "suspended" }.`);
      return;
    }
    const ids = (outcome as JsonObject).interruptIds;
    if (ids === null) {
      sink.error(RULES.A7, sink.path('/outcome/interruptIds'), `Cannot send '${type}' with 'outcome.interruptIds: null'. The field is optional — omit it entirely.`);
    } else if (Array.isArray(ids)) {
      const bad = ids.findIndex((id) => typeof id !== 'string');
      if (bad >= 0) sink.error(RULES.A7, sink.path(`/outcome/interruptIds/${bad}`), `Cannot send '${type}' with a non-string entry in 'outcome.interruptIds'. Interrupt ids are strings.`);
    }
  }

  private subagentStarted(ev: JsonObject, sink: FindingSink): void {
    const id = ev.subagentRunId;
    if (typeof id !== 'string') {
      // A null id was already reported by N1.
      if (id !== null) sink.error(RULES.A1, sink.at('subagentRunId'), `Cannot send 'SUBAGENT_STARTED' without a 'subagentRunId'.`);
      return;
    }
    if (typeof ev.name !== 'string') {
      sink.error(RULES.A1, sink.at('name'), `Cannot send 'SUBAGENT_STARTED' without a 'name'.`);
      return;
    }
    if (this.activeSubagents.has(id)) {
      sink.error(RULES.A2, sink.at('subagentRunId'), `Cannot send 'SUBAGENT_STARTED': subagent '${id}' is already active. Finish it with 'SUBAGENT_FINISHED' first.`);
      return;
    }
    if (this.finishedSubagents.has(id)) {
      sink.error(RULES.A3, sink.at('subagentRunId'), `Cannot send 'SUBAGENT_STARTED': subagent '${id}' has already finished in this run. Subagent IDs are per-invocation and cannot be reused.`);
    } else {
      const parent = ev.parentSubagentRunId;
      if (parent !== undefined && parent !== null && !this.activeSubagents.has(parent) && !this.finishedSubagents.has(parent)) {
        sink.error(RULES.A4, sink.at('parentSubagentRunId'), `Cannot send 'SUBAGENT_STARTED': parentSubagentRunId '${show(parent)}' has not been started in this run.`);
      }
    }
    // Activated even after A3/A4, so its own FINISHED is not reported a second time.
    this.finishedSubagents.delete(id);
    this.activeSubagents.add(id);
  }

  private subagentClosed(ev: JsonObject, type: string, sink: FindingSink): void {
    const id = ev.subagentRunId;
    if (typeof id !== 'string') {
      if (id !== null) sink.error(RULES.A5, sink.at('subagentRunId'), `Cannot send '${type}' without a 'subagentRunId'.`);
      return;
    }
    if (type === 'SUBAGENT_ERROR' && typeof ev.message !== 'string') {
      sink.error(RULES.A5, sink.at('message'), `Cannot send 'SUBAGENT_ERROR' without a 'message'.`);
      return;
    }
    if (!this.activeSubagents.has(id)) {
      sink.error(RULES.A6, sink.at('subagentRunId'), `Cannot send '${type}': no active subagent found with ID '${id}'. A 'SUBAGENT_STARTED' event must be sent first.`);
      return;
    }
    this.activeSubagents.delete(id);
    this.finishedSubagents.add(id);
  }

  /** N4: a null tag on an interrupt of an interrupt outcome. */
  private interruptNulls(ev: JsonObject, sink: FindingSink): void {
    const outcome = ev.outcome;
    if (!isJsonObject(outcome) || outcome.type !== 'interrupt' || !Array.isArray(outcome.interrupts)) return;
    const interrupts = outcome.interrupts;
    for (let i = 0; i < interrupts.length; i++) {
      const interrupt = interrupts[i];
      if (isJsonObject(interrupt) && interrupt.subagentRunId === null) {
        sink.error(RULES.N4, sink.path(`/outcome/interrupts/${i}/subagentRunId`), `Cannot send 'RUN_FINISHED' with an interrupt (id '${show(interrupt.id)}') carrying 'subagentRunId: null'. The field is optional — omit it entirely.`);
      }
    }
  }

  /** L5, in the client's order; every kind still open is reported, not only the first. */
  private openItemsAtFinish(sink: FindingSink): void {
    const steps: string[] = [];
    for (const [tag, open] of this.steps) {
      for (const name of open) steps.push(tag === undefined ? show(name) : `${show(name)} (subagent '${show(tag)}')`);
    }
    const open: Array<[string, Iterable<unknown>]> = [
      ['steps', steps],
      ['text messages', this.openText],
      ['reasoning messages', this.openReasoning],
      ['reasoning spans', this.openSpans],
      ['tool calls', this.openTools],
      ['subagents', this.activeSubagents],
    ];
    for (const [kind, items] of open) {
      const names = [...items].map(show);
      if (names.length > 0) sink.error(RULES.L5, '', `Cannot send 'RUN_FINISHED' while ${kind} are still active: ${names.join(', ')}`);
    }
  }
}
