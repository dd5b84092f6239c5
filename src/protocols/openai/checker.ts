import { error, type Finding } from '../../core/finding.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { InboundMessage } from '../../core/message.js';
import { unchecked, verdictFrom, type Verdict } from '../../core/verdict.js';
import type { CheckerContext, ProtocolChecker } from '../protocol.js';
import { ChatStream } from './chat-stream.js';
import { tolerateCompatibleDrift } from './compatible-drift.js';
import { ResponsesStream } from './responses-stream.js';
import { AnswersMade, ANSWERS_SCOPE_KEY, namesOneTool, requestFindings } from './request-rules.js';
import { routeOf, routeOfPath, type OpenAiEndpoint } from './routes.js';
import { answerDef, chatChunkDef, refOf, requestDef, responseEventDef, type DefChoice } from './schema-choice.js';
import { endpointOfValue, isChatChunk, isResponseEvent } from './shapes.js';
import { OPENAI_SCHEMA_ID } from './schemas.js';

/** The text of the marker that ends a chat completion stream. */
export const DONE_MARKER = '[DONE]';

/**
 * One exchange with an OpenAI-compatible API: its request judged by its route's schema and the
 * request rules, its answer by the route's schema, and a streamed answer event by event by its
 * kind's schema and the stream rules of chat completions or Responses.
 */
export class OpenAiChecker implements ProtocolChecker {
  private endpoint?: OpenAiEndpoint;
  private request?: JsonObject;
  private chat?: ChatStream;
  private responses?: ResponsesStream;
  private readonly answers?: AnswersMade;
  /** The compatible drifts this exchange reported: each once, not once per chunk. */
  private readonly driftsReported = new Set<string>();

  constructor(private readonly context: CheckerContext) {
    this.answers = context.scope?.entry(ANSWERS_SCOPE_KEY, () => new AnswersMade());
    if (context.channel?.path !== undefined) this.endpoint = routeOfPath(context.channel.path)?.endpoint;
    if (isJsonObject(context.requestBody)) this.request = context.requestBody;
  }

  judge(message: InboundMessage): Verdict {
    const value = message.value;
    const endpoint = this.endpointFor(message);
    if (message.sender === 'client') return this.judgeRequest(endpoint, value);
    if (isChatChunk(value) || (message.carrier === 'event' && endpoint === 'chat')) return this.judgeChunk(value);
    if (isResponseEvent(value) || (message.carrier === 'event' && endpoint === 'responses')) return this.judgeEvent(value);
    if (endpoint === undefined) return unchecked('not a request or answer of the OpenAI routes this checker knows (chat completions, responses, embeddings, models)');
    const findings = this.answerFindings(endpoint, value);
    return this.schemaVerdict(answerDef(endpoint, message.http?.status, value), value, findings);
  }

  /** `data: [DONE]` ends a chat stream; any other text that is not JSON is left to the generic verdict. */
  judgeText(message: InboundMessage): Verdict | undefined {
    if (message.sender !== 'server' || message.carrier !== 'event' || message.text === undefined || dataOf(message.text) !== DONE_MARKER) return undefined;
    return verdictFrom(this.chatStream().doneMarker());
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    return [...(this.chat?.end(how) ?? []), ...(this.responses?.end(how) ?? [])];
  }

  private endpointFor(message: InboundMessage): OpenAiEndpoint | undefined {
    if (this.endpoint === undefined && message.http) this.endpoint = routeOf(message.http.method, message.http.path)?.endpoint;
    if (this.endpoint === undefined) this.endpoint = endpointOfValue(message.value);
    return this.endpoint;
  }

  private judgeRequest(endpoint: OpenAiEndpoint | undefined, value: unknown): Verdict {
    if (endpoint === undefined) return unchecked('a request of no OpenAI route this checker knows (chat completions, responses, embeddings)');
    if (isJsonObject(value)) this.request = value;
    const findings = isJsonObject(value) ? requestFindings(endpoint, value, this.answers) : [];
    return this.schemaVerdict(requestDef(endpoint), value, findings);
  }

  private judgeChunk(value: unknown): Verdict {
    const findings = isJsonObject(value) ? this.chatStream().chunk(value) : [];
    // A choice's tool calls are whole once it finishes: then the answer has made them.
    if (this.answers && this.chat && finishes(value)) this.answers.made(this, this.chat.madeToolCalls());
    return this.schemaVerdict(chatChunkDef(value), value, findings);
  }

  private judgeEvent(value: unknown): Verdict {
    this.responses ??= new ResponsesStream();
    const findings = isJsonObject(value) ? this.responses.event(value) : [];
    if (!isJsonObject(value) || typeof value.type !== 'string') {
      return verdictFrom([error('schema', isJsonObject(value) ? '/type' : '', 'a Responses stream event is an object whose `type` names its kind'), ...findings]);
    }
    return this.schemaVerdict(responseEventDef(this.context.registry, value), value, findings);
  }

  private chatStream(): ChatStream {
    this.chat ??= new ChatStream({
      includeUsage: isJsonObject(this.request?.stream_options) && this.request.stream_options.include_usage === true,
      namedToolChoice: namesOneTool(this.request),
    });
    return this.chat;
  }

  /** A plain chat answer's tool calls are made then, for the requests that answer them. */
  private answerFindings(endpoint: OpenAiEndpoint, value: unknown): Finding[] {
    if (endpoint !== 'chat' || !isJsonObject(value) || !Array.isArray(value.choices) || !this.answers) return [];
    const calls = value.choices.flatMap((choice) => {
      const message = isJsonObject(choice) && isJsonObject(choice.message) ? choice.message : undefined;
      const toolCalls = message && Array.isArray(message.tool_calls) ? message.tool_calls : [];
      return toolCalls.filter(isJsonObject).flatMap((call) => {
        const fn = isJsonObject(call.function) ? call.function : {};
        return typeof call.id === 'string' ? [{ id: call.id, name: typeof fn.name === 'string' ? fn.name : '', arguments: typeof fn.arguments === 'string' ? fn.arguments : '' }] : [];
      });
    });
    this.answers.made(this, calls);
    return [];
  }

  private schemaVerdict(choice: DefChoice, value: unknown, findings: Finding[]): Verdict {
    if ('none' in choice) return unchecked(choice.none, findings);
    const check = this.context.registry.def(OPENAI_SCHEMA_ID, choice.def);
    if (!check.ok) return unchecked(check.reason, findings, refOf(choice.def));
    return verdictFrom([...tolerateCompatibleDrift(check.validate(value), value, choice.def, this.driftsReported), ...findings], check.ref);
  }
}

/** Does a chunk finish one of its choices? */
function finishes(value: unknown): boolean {
  return isJsonObject(value) && Array.isArray(value.choices) && value.choices.some((choice) => isJsonObject(choice) && typeof choice.finish_reason === 'string');
}

/**
 * An event's data: the text itself as the framer hands it, or the `data:` lines of the whole SSE
 * block as a recording stores it.
 */
/** Is this event `data: [DONE]`, which ends a chat stream? */
export function isDoneEvent(text: string): boolean {
  return dataOf(text) === DONE_MARKER;
}

function dataOf(text: string): string {
  if (!/^(data|event|id|retry):/m.test(text)) return text.trim();
  const lines = text.split(/\r\n|\r|\n/).filter((line) => line.startsWith('data:'));
  return lines.map((line) => line.slice(5).replace(/^ /, '')).join('\n').trim();
}
