import { error, pointerOf, warning, type Finding } from '../../core/finding.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { MadeToolCall } from './chat-stream.js';
import type { OpenAiEndpoint } from './routes.js';
import { OPENAI_RULES as RULES } from './rules.js';

/**
 * The tool calls every answer of a recording made, by the checker of its exchange: a later request
 * of the agent echoes them back with their results (RecordingScope entry of this protocol).
 */
export class AnswersMade {
  /** By what they called (names and arguments, ids aside): each answer's calls, by its exchange. */
  private readonly bySignature = new Map<string, Map<object, MadeToolCall[]>>();
  private readonly signatureOf = new Map<object, string>();

  /** The calls `exchange`'s answer made (replacing what it said before). */
  made(exchange: object, calls: MadeToolCall[]): void {
    if (calls.length === 0) return;
    const before = this.signatureOf.get(exchange);
    if (before !== undefined) this.bySignature.get(before)?.delete(exchange);
    const signature = signatureOf(calls);
    this.signatureOf.set(exchange, signature);
    let answers = this.bySignature.get(signature);
    if (!answers) this.bySignature.set(signature, (answers = new Map()));
    answers.set(exchange, calls);
  }

  /**
   * The ids the recorded answers that made these calls (same names and arguments, ids aside) gave
   * them; undefined when no answer of the recording made them.
   */
  idsMadeFor(calls: readonly MadeToolCall[]): Set<string> | undefined {
    const answers = this.bySignature.get(signatureOf(calls));
    if (!answers || answers.size === 0) return undefined;
    return new Set([...answers.values()].flatMap((made) => made.map((call) => call.id)));
  }
}

function signatureOf(calls: readonly MadeToolCall[]): string {
  return JSON.stringify(calls.map((call) => [call.name, call.arguments]));
}

export const ANSWERS_SCOPE_KEY = 'openai.answers-made';

/** The findings of a request body's own rules: tool results that answer a call, a tool_choice that names an offered tool. */
export function requestFindings(endpoint: OpenAiEndpoint, body: JsonObject, answers: AnswersMade | undefined): Finding[] {
  if (endpoint === 'chat') return [...chatToolResults(body, answers), ...chatToolChoice(body)];
  if (endpoint === 'responses') return [...responsesToolResults(body), ...responsesToolChoice(body)];
  return [];
}

/** The tool calls of an assistant message of a chat request. */
function assistantCalls(message: JsonObject): MadeToolCall[] {
  if (!Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.filter(isJsonObject).map((call) => {
    const fn = isJsonObject(call.function) ? call.function : {};
    return { id: typeof call.id === 'string' ? call.id : '', name: typeof fn.name === 'string' ? fn.name : '', arguments: typeof fn.arguments === 'string' ? fn.arguments : '' };
  });
}

function chatToolResults(body: JsonObject, answers: AnswersMade | undefined): Finding[] {
  if (!Array.isArray(body.messages)) return [];
  const findings: Finding[] = [];
  const called = new Set<string>();
  body.messages.forEach((message, at) => {
    if (!isJsonObject(message)) return;
    if (message.role === 'assistant') {
      const calls = assistantCalls(message);
      for (const call of calls) called.add(call.id);
      const made = calls.length > 0 ? answers?.idsMadeFor(calls) : undefined;
      const foreign = made ? calls.filter((call) => !made.has(call.id)) : [];
      if (foreign.length > 0) {
        const ids = foreign.map((c) => `'${c.id}'`).join(', ');
        const madeIds = [...made!].map((id) => `'${id}'`).join(', ');
        findings.push(warning(RULES.toolCallIdNotFromAnswer, pointerOf('messages', at, 'tool_calls'), `this assistant message repeats the tool calls of a recorded answer with ids ${ids}, which no such answer made (they made ${madeIds}); tool results then answer calls the model did not make`));
      }
    } else if (message.role === 'tool' && typeof message.tool_call_id === 'string' && !called.has(message.tool_call_id)) {
      findings.push(error(RULES.toolResultUnknownCall, pointerOf('messages', at, 'tool_call_id'), `tool message answers '${message.tool_call_id}', which no earlier assistant message of the request called; the API refuses it (400)`));
    }
  });
  return findings;
}

/** The names of a chat request's offered tools (functions and custom tools). */
function chatToolNames(body: JsonObject): Set<string> {
  const names = new Set<string>();
  if (!Array.isArray(body.tools)) return names;
  for (const tool of body.tools) {
    if (!isJsonObject(tool)) continue;
    for (const part of [tool.function, tool.custom]) if (isJsonObject(part) && typeof part.name === 'string') names.add(part.name);
  }
  return names;
}

function chatToolChoice(body: JsonObject): Finding[] {
  const choice = body.tool_choice;
  if (!isJsonObject(choice)) return [];
  const named = [choice.function, choice.custom].find(isJsonObject);
  const name = named && typeof named.name === 'string' ? named.name : undefined;
  if (name === undefined || chatToolNames(body).has(name)) return [];
  return [unknownTool(name, pointerOf('tool_choice', isJsonObject(choice.function) ? 'function' : 'custom', 'name'))];
}

function responsesToolResults(body: JsonObject): Finding[] {
  // With server-side state the calls are in the earlier response, not in this input.
  if (!Array.isArray(body.input) || body.previous_response_id != null || body.conversation != null) return [];
  const findings: Finding[] = [];
  const called = new Set<string>();
  body.input.forEach((item, at) => {
    if (!isJsonObject(item) || typeof item.call_id !== 'string') return;
    if (item.type === 'function_call' || item.type === 'custom_tool_call') called.add(item.call_id);
    else if ((item.type === 'function_call_output' || item.type === 'custom_tool_call_output') && !called.has(item.call_id)) {
      findings.push(error(RULES.toolResultUnknownCall, pointerOf('input', at, 'call_id'), `${item.type} answers '${item.call_id}', which no earlier call of the input made; the API refuses it (400)`));
    }
  });
  return findings;
}

function responsesToolChoice(body: JsonObject): Finding[] {
  const choice = body.tool_choice;
  if (!isJsonObject(choice) || (choice.type !== 'function' && choice.type !== 'custom') || typeof choice.name !== 'string') return [];
  const offered = Array.isArray(body.tools) && body.tools.some((tool) => isJsonObject(tool) && tool.type === choice.type && tool.name === choice.name);
  return offered ? [] : [unknownTool(choice.name, '/tool_choice/name')];
}

function unknownTool(name: string, pointer: string): Finding {
  return error(RULES.toolChoiceUnknownTool, pointer, `tool_choice names '${name}', which tools does not offer; the API refuses it (400)`);
}

/** Does a chat request's tool_choice name one function (whose answer may finish with `stop`)? */
export function namesOneTool(body: unknown): boolean {
  return isJsonObject(body) && isJsonObject(body.tool_choice) && (isJsonObject(body.tool_choice.function) || isJsonObject(body.tool_choice.custom) || typeof body.tool_choice.name === 'string');
}
