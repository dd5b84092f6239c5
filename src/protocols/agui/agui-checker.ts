import { error, type Finding } from '../../core/finding.js';
import type { InboundMessage } from '../../core/message.js';
import { unchecked, verdictFrom, type Verdict } from '../../core/verdict.js';
import type { SchemaCheck } from '../../schema/schema-registry.js';
import type { CheckerContext, ProtocolChecker } from '../protocol.js';
import { ChunkExpander, isChunkType, type Emit } from './chunk-expander.js';
import { aguiSchemas, type AguiSchemas } from './event-schema.js';
import { FindingSink, type Origin } from './finding-sink.js';
import { RunAgreement } from './run-agreement.js';
import { RunVerifier } from './run-verifier.js';
import { RULES } from './rules.js';
import { isRunAgentInput, show } from './shapes.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { StateTracker } from './state-tracker.js';
import { ToolCallResults } from './tool-call-results.js';

/**
 * Judges one AG-UI event stream (one HTTP response) and the RunAgentInput that opened it.
 *
 * Per server event, in the client's pipeline order (notes §2.1): schema (the `$def` its `type` names)
 * → chunk expansion → verifyEvents rules (and the tool calls results answer) → draft run agreement →
 * state/activity application.
 */
export class AguiChecker implements ProtocolChecker {
  private readonly schemas: AguiSchemas;
  private readonly sink = new FindingSink();
  private readonly expander = new ChunkExpander();
  private readonly verifier = new RunVerifier();
  private readonly agreement: RunAgreement;
  private readonly state: StateTracker;
  private readonly toolCalls = new ToolCallResults();
  /** Verifies each event the expander synthesises, with pointers mapped back into the wire event. */
  private readonly emit: Emit;

  constructor(context: CheckerContext) {
    this.schemas = aguiSchemas(context.registry);
    const input = isRunAgentInput(context.requestBody) ? context.requestBody : undefined;
    this.agreement = new RunAgreement(input);
    this.state = new StateTracker(input?.state);
    this.toolCalls.addMessages(input?.messages);
    this.emit = (event: JsonObject, type: string, origin: Origin) => {
      const sink = this.sink;
      const previous = sink.origin;
      sink.origin = origin;
      const live = this.verify(event, type, sink);
      sink.origin = previous;
      return live;
    };
  }

  /** The tracked agent state after the events judged so far (for tests and the store). */
  get trackedState(): unknown {
    return this.state.state;
  }

  /** The tracked content of an activity message. */
  trackedActivity(messageId: string): { activityType: unknown; content: unknown } | undefined {
    return this.state.activity(messageId);
  }

  judge(message: InboundMessage): Verdict {
    return message.sender === 'client' ? this.judgeInput(message.value) : this.judgeEvent(message.value);
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    return this.agreement.truncation(how, this.verifier.closed, this.verifier.sawEvent);
  }

  private judgeInput(value: unknown): Verdict {
    const check = this.schemas.runAgentInput;
    if (isRunAgentInput(value) && this.agreement.request === undefined && !this.verifier.sawEvent) {
      this.agreement.setInput(value);
      this.state.setBaseline(value.state);
      this.toolCalls.addMessages(value.messages);
    }
    if (!check.ok) return unchecked(check.reason, [], check.ref);
    return verdictFrom(check.validate(value), check.ref);
  }

  private judgeEvent(value: unknown): Verdict {
    if (!isJsonObject(value)) {
      return verdictFrom([error(RULES.eventNotObject, '', `Invalid event: the frame is not a JSON object (got ${Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'null' : typeof value}).`)]);
    }
    const type = value.type;
    const check = typeof type === 'string' ? this.schemas.events.get(type) : undefined;
    if (check === undefined) return this.unknownType(type);

    const findings = check.ok ? check.validate(value) : [];
    this.behaviour(value, type as string, findings);
    return check.ok ? verdictFrom(findings, check.ref) : unchecked(check.reason, findings, check.ref);
  }

  private behaviour(ev: JsonObject, type: string, findings: Finding[]): void {
    const sink = this.sink;
    sink.begin(ev, findings);
    if (isChunkType(type)) {
      this.expander.expand(type, ev, sink, this.emit);
      return;
    }
    this.expander.before(type, ev, this.emit);
    if (!this.verify(ev, type, sink)) return;
    switch (type) {
      case 'TEXT_MESSAGE_CONTENT':
        return;
      case 'RUN_STARTED':
        this.agreement.runStarted(ev, sink);
        break;
      case 'RUN_FINISHED':
        this.agreement.runFinished(ev, sink);
        return;
      case 'RUN_ERROR':
        this.agreement.runErrored();
        return;
    }
    this.state.apply(type, ev, sink);
  }

  /** The verifyEvents rules, then which tool calls exist; false when the event is outside any run (L2/L3). */
  private verify(ev: JsonObject, type: string, sink: FindingSink): boolean {
    if (!this.verifier.verify(ev, type, sink)) return false;
    this.toolCalls.see(ev, type, sink);
    return true;
  }

  /** An event the client's enforce stage would drop: no `type`, or one EventType does not list. */
  private unknownType(type: unknown): Verdict {
    const check: SchemaCheck = this.schemas.eventType;
    let detail = '';
    if (check.ok) {
      // The EventType findings point at the value itself; keep the sentence that lists the allowed values.
      const found = check.validate(type).map((f) => f.message.replace(/^\(root\): /, ''));
      const listing = found.filter((m) => m.startsWith('must be one of'));
      if (found.length > 0) detail = `: ${(listing.length > 0 ? listing : found).join('; ')}`;
    }
    const message =
      type === undefined
        ? `/type: missing; every AG-UI event carries a 'type' from EventType${detail}`
        : `/type: '${show(type)}' is not an AG-UI event type (EventType)${detail}; the client drops it`;
    const findings = [error(RULES.unknownEventType, '/type', message)];
    return check.ok ? verdictFrom(findings, check.ref) : unchecked(check.reason, findings, check.ref);
  }
}
