import { error, type Finding } from '../../core/finding.js';
import { isJsonObject } from '../../core/json.js';
import type { InboundMessage } from '../../core/message.js';
import { unchecked, verdictFrom, type Verdict } from '../../core/verdict.js';
import type { CheckerContext, ProtocolChecker } from '../protocol.js';
import { MessageStream, stopReasonFindings } from './message-stream.js';
import { requestFindings } from './request-rules.js';
import { routeOf, routeOfPath, type AnthropicEndpoint } from './routes.js';
import { answerDef, eventDef, refOf, requestDef, type DefChoice } from './schema-choice.js';
import { endpointOfValue, isMessage, isStreamEvent } from './shapes.js';
import { ANTHROPIC_SCHEMA_ID } from './schemas.js';

/**
 * One exchange with the Messages API: its request judged by its route's schema and the request
 * rules, a plain answer by its route's schema (and its stop reason against its blocks), a streamed
 * answer event by event by its type's schema and the stream rules.
 */
export class AnthropicChecker implements ProtocolChecker {
  private endpoint?: AnthropicEndpoint;
  private stream?: MessageStream;

  constructor(private readonly context: CheckerContext) {
    if (context.channel?.path !== undefined) this.endpoint = routeOfPath(context.channel.path)?.endpoint;
  }

  judge(message: InboundMessage): Verdict {
    const value = message.value;
    const endpoint = this.endpointFor(message);
    if (message.sender === 'client') return this.judgeRequest(endpoint, value);
    // A lone event (a file handed to validate) is one too; an error object alone is an error answer.
    if (message.carrier === 'event' || (isStreamEvent(value) && isJsonObject(value) && value.type !== 'error')) return this.judgeEvent(value);
    if (endpoint === undefined) return unchecked('not a request or answer of the Messages API routes this checker knows (messages, count_tokens)');
    return this.schemaVerdict(answerDef(endpoint, message.http?.status, value), value, messageFindings(value));
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    return this.stream?.end(how) ?? [];
  }

  private endpointFor(message: InboundMessage): AnthropicEndpoint | undefined {
    if (this.endpoint === undefined && message.http) this.endpoint = routeOf(message.http.method, message.http.path)?.endpoint;
    if (this.endpoint === undefined) this.endpoint = endpointOfValue(message.value);
    return this.endpoint;
  }

  private judgeRequest(endpoint: AnthropicEndpoint | undefined, value: unknown): Verdict {
    if (endpoint === undefined) return unchecked('a request of no Messages API route this checker knows (messages, count_tokens)');
    return this.schemaVerdict(requestDef(endpoint), value, isJsonObject(value) ? requestFindings(value) : []);
  }

  private judgeEvent(value: unknown): Verdict {
    this.stream ??= new MessageStream();
    if (!isJsonObject(value) || typeof value.type !== 'string') {
      return verdictFrom([error('schema', isJsonObject(value) ? '/type' : '', 'a Messages stream event is an object whose `type` names its kind')]);
    }
    return this.schemaVerdict(eventDef(value), value, this.stream.event(value));
  }

  private schemaVerdict(choice: DefChoice, value: unknown, findings: Finding[]): Verdict {
    if ('none' in choice) return unchecked(choice.none, findings);
    const check = this.context.registry.def(ANTHROPIC_SCHEMA_ID, choice.def);
    if (!check.ok) return unchecked(check.reason, findings, refOf(choice.def));
    return verdictFrom([...check.validate(value), ...findings], check.ref);
  }
}

/** A plain answer's stop reason against its blocks, as a stream's is held to them. */
function messageFindings(value: unknown): Finding[] {
  if (!isMessage(value) || !isJsonObject(value) || !Array.isArray(value.content)) return [];
  const blockTypes = value.content.map((block) => (isJsonObject(block) ? String(block.type) : ''));
  return stopReasonFindings(typeof value.stop_reason === 'string' ? value.stop_reason : undefined, blockTypes, '/stop_reason');
}
