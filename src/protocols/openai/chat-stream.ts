import { error, pointerOf, warning, type Finding } from '../../core/finding.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { OPENAI_RULES as RULES } from './rules.js';

/** What the request asked of the stream. */
export interface ChatStreamRequest {
  /** `stream_options.include_usage`: the last chunk carries usage. */
  includeUsage: boolean;
  /** `tool_choice` named one function: the API may end such an answer with `stop`. */
  namedToolChoice: boolean;
}

interface ToolCallState {
  id?: string;
  type?: string;
  name?: string;
  arguments: string;
}

interface ChoiceState {
  role: boolean;
  finishReason?: string;
  toolCalls: Map<number, ToolCallState>;
}

/** A tool call an answer made, for the request rules of later exchanges. */
export interface MadeToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The stream rules of one streamed chat completion (shared/docs/llm-api-notes.md): one id for every
 * chunk, per choice one role and one finish_reason after its content, a tool call's identity fixed by
 * its first fragment and its arguments JSON once concatenated, usage on the last chunk only, and
 * `[DONE]` last. The openai SDK's `finalChatCompletion()` throws on most of what they find.
 */
export class ChatStream {
  private id?: string;
  private readonly choices = new Map<number, ChoiceState>();
  private chunks = 0;
  /** A chunk carried usage (any: vLLM's `continuous_usage_stats` puts it on every chunk). */
  private usageSeen = false;
  /** The usage chunk OpenAI ends a stream with, `choices` empty, came: only `[DONE]` follows it. */
  private finalUsageSeen = false;
  private done = false;
  private failed = false;

  constructor(private readonly request: ChatStreamRequest) {}

  /** Findings of one `data:` chunk (a chat.completion.chunk, or an error object the server streamed). */
  chunk(value: JsonObject): Finding[] {
    const findings = this.afterEnd();
    if (isJsonObject(value.error)) {
      this.failed = true;
      return findings;
    }
    this.chunks++;
    if (this.finalUsageSeen) findings.push(error(RULES.usageNotLast, '', 'a chunk follows the one that carried `usage`; usage comes on the last chunk only, before `[DONE]`'));
    // Azure's first chunk (its prompt filter results) has an empty id: no id to hold the others to.
    if (typeof value.id === 'string' && value.id !== '') {
      if (this.id === undefined) this.id = value.id;
      else if (value.id !== this.id) findings.push(error(RULES.chunkIdChanged, '/id', `the chunk id '${value.id}' differs from the stream's first, '${this.id}'; every chunk of a completion has its id`));
    }
    if (Array.isArray(value.choices)) value.choices.forEach((choice, at) => findings.push(...this.choice(choice, at)));
    // Usage on a chunk with choices (vLLM's running counts, llama.cpp's on the finishing chunk) ends nothing: the openai SDK takes it.
    if (value.usage !== undefined && value.usage !== null) {
      this.usageSeen = true;
      if (Array.isArray(value.choices) && value.choices.length === 0) this.finalUsageSeen = true;
    }
    return findings;
  }

  /** Findings of `data: [DONE]`. */
  doneMarker(): Finding[] {
    const findings = this.afterEnd();
    this.done = true;
    return findings;
  }

  /** Stream-level findings once it ended. */
  end(how: 'complete' | 'aborted'): Finding[] {
    if (how !== 'complete' || this.failed || this.chunks === 0) return [];
    const findings: Finding[] = [];
    for (const [index, choice] of this.choices) {
      if (choice.finishReason === undefined) findings.push(error(RULES.finishReasonMissing, '', `choice ${index} never got a finish_reason; the SDK's finalChatCompletion() throws "missing finish_reason for choice ${index}"`));
      if (!choice.role) findings.push(error(RULES.roleMissing, '', `no delta of choice ${index} gave its role; the SDK's finalChatCompletion() throws "missing role for choice ${index}"`));
    }
    if (this.request.includeUsage && !this.usageSeen) findings.push(warning(RULES.usageMissing, '', 'the request asked for usage (stream_options.include_usage) and no chunk carried it'));
    if (!this.done) findings.push(warning(RULES.doneMissing, '', 'the stream ended without `data: [DONE]`'));
    return findings;
  }

  /** The tool calls each choice made, once the stream is over. */
  madeToolCalls(): MadeToolCall[] {
    const made: MadeToolCall[] = [];
    for (const choice of this.choices.values()) {
      for (const call of choice.toolCalls.values()) if (call.id !== undefined) made.push({ id: call.id, name: call.name ?? '', arguments: call.arguments });
    }
    return made;
  }

  private afterEnd(): Finding[] {
    return this.done ? [error(RULES.dataAfterDone, '', 'an event after `data: [DONE]`, which ends the stream')] : [];
  }

  private choice(choice: unknown, at: number): Finding[] {
    if (!isJsonObject(choice) || typeof choice.index !== 'number') return [];
    let state = this.choices.get(choice.index);
    if (!state) {
      state = { role: false, toolCalls: new Map() };
      this.choices.set(choice.index, state);
    }
    const findings: Finding[] = [];
    const delta = isJsonObject(choice.delta) ? choice.delta : {};
    if (typeof delta.role === 'string') state.role = true;
    const carries = (typeof delta.content === 'string' && delta.content !== '') || (typeof delta.refusal === 'string' && delta.refusal !== '') || (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0);
    if (carries && state.finishReason !== undefined) {
      findings.push(error(RULES.contentAfterFinish, pointerOf('choices', at, 'delta'), `choice ${choice.index} goes on after its finish_reason '${state.finishReason}'`));
    }
    if (Array.isArray(delta.tool_calls)) delta.tool_calls.forEach((call, i) => findings.push(...this.toolCall(state, call, pointerOf('choices', at, 'delta', 'tool_calls', i))));
    if (typeof choice.finish_reason === 'string') {
      if (state.finishReason !== undefined) {
        findings.push(error(RULES.finishReasonRepeated, pointerOf('choices', at, 'finish_reason'), `choice ${choice.index} got a second finish_reason ('${choice.finish_reason}' after '${state.finishReason}')`));
      } else {
        state.finishReason = choice.finish_reason;
        findings.push(...this.finished(choice.index, state, pointerOf('choices', at, 'finish_reason')));
      }
    }
    return findings;
  }

  private toolCall(state: ChoiceState, call: unknown, pointer: string): Finding[] {
    if (!isJsonObject(call) || typeof call.index !== 'number') return [];
    const fn = isJsonObject(call.function) ? call.function : {};
    const id = typeof call.id === 'string' ? call.id : undefined;
    const type = typeof call.type === 'string' ? call.type : undefined;
    const name = typeof fn.name === 'string' && fn.name !== '' ? fn.name : undefined;
    const fragment = typeof fn.arguments === 'string' ? fn.arguments : '';
    const known = state.toolCalls.get(call.index);
    if (!known) {
      state.toolCalls.set(call.index, { id, type, name, arguments: fragment });
      const missing = [id === undefined ? 'id' : '', type === undefined ? 'type' : '', name === undefined ? 'function.name' : ''].filter(Boolean);
      if (missing.length === 0) return [];
      return [error(RULES.toolCallIncomplete, pointer, `the first fragment of tool call ${call.index} lacks ${missing.join(', ')}; it names the call, and later fragments only add arguments`)];
    }
    known.arguments += fragment;
    const changed: string[] = [];
    if (id !== undefined && known.id !== undefined && id !== known.id) changed.push(`id '${known.id}' → '${id}'`);
    if (type !== undefined && known.type !== undefined && type !== known.type) changed.push(`type '${known.type}' → '${type}'`);
    if (name !== undefined && known.name !== undefined && name !== known.name) changed.push(`function.name '${known.name}' → '${name}'`);
    if (changed.length === 0) return [];
    return [error(RULES.toolCallIdentityChanged, pointer, `tool call ${call.index} changed identity (${changed.join(', ')}); its first fragment fixes it`)];
  }

  /** What a choice's finish_reason settles: its tool calls' arguments, and whether it says tool_calls rightly. */
  private finished(index: number, state: ChoiceState, pointer: string): Finding[] {
    const findings: Finding[] = [];
    for (const [callIndex, call] of state.toolCalls) {
      if (isJson(call.arguments)) continue;
      findings.push(warning(RULES.toolArgumentsNotJson, pointer, `the arguments of tool call ${callIndex} (${call.name ?? 'unnamed'}) do not parse as JSON once concatenated: ${clip(call.arguments)}`));
    }
    const calls = state.toolCalls.size > 0;
    if (state.finishReason === 'tool_calls' && !calls) findings.push(warning(RULES.finishReasonToolCalls, pointer, `choice ${index} finished with 'tool_calls' but streamed no tool call`));
    if (calls && state.finishReason !== 'tool_calls' && !this.request.namedToolChoice) {
      findings.push(warning(RULES.finishReasonToolCalls, pointer, `choice ${index} streamed tool calls but finished with '${state.finishReason}', not 'tool_calls'`));
    }
    return findings;
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function clip(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
