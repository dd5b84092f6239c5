import { error, warning, type Finding } from '../../core/finding.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { OPENAI_RULES as RULES } from './rules.js';

const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);

/** The field of each `.done` event that holds what its deltas concatenate to. */
const DONE_FIELDS: Readonly<Record<string, string>> = {
  'response.output_text': 'text',
  'response.refusal': 'refusal',
  'response.function_call_arguments': 'arguments',
  'response.reasoning_text': 'text',
  'response.reasoning_summary_text': 'text',
  'response.custom_tool_call_input': 'input',
  'response.mcp_call_arguments': 'arguments',
  'response.code_interpreter_call_code': 'code',
};

/** Content-part events: their part must have been added (`response.content_part.added`). */
const PART_KINDS = new Set(['response.output_text', 'response.refusal']);

/**
 * The stream rules of one streamed Response (shared/docs/llm-api-notes.md): sequence numbers that
 * increase, `response.created` first, an output item and content part added before their deltas,
 * each `.done` equal to its concatenated deltas, and exactly one terminal event, usage on `completed`.
 */
export class ResponsesStream {
  private lastSequence?: number;
  private events = 0;
  private terminal?: string;
  private readonly items = new Set<string>();
  private readonly parts = new Set<string>();
  private readonly deltas = new Map<string, string>();

  event(value: JsonObject): Finding[] {
    const type = typeof value.type === 'string' ? value.type : '';
    const findings: Finding[] = [];
    if (this.events === 0 && type !== 'response.created' && type !== 'error') {
      findings.push(error(RULES.createdNotFirst, '/type', `the stream begins with '${type}'; a Response stream begins with 'response.created'`));
    }
    this.events++;
    if (this.terminal !== undefined) findings.push(error(RULES.terminalRepeated, '/type', `'${type}' after the terminal event '${this.terminal}', which ends the stream`));
    else if (TERMINAL.has(type)) this.terminal = type;
    if (type === 'response.completed' && isJsonObject(value.response) && (value.response.usage === undefined || value.response.usage === null)) {
      findings.push(warning(RULES.completedWithoutUsage, '/response/usage', 'the completed response carries no usage; the token counts of the answer are lost'));
    }
    if (typeof value.sequence_number === 'number') {
      if (this.lastSequence !== undefined && value.sequence_number <= this.lastSequence) {
        findings.push(error(RULES.sequenceNotIncreasing, '/sequence_number', `sequence_number ${value.sequence_number} does not rise above the previous event's ${this.lastSequence}`));
      }
      this.lastSequence = value.sequence_number;
    }
    findings.push(...this.itemEvent(type, value));
    return findings;
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    if (how !== 'complete' || this.events === 0 || this.terminal !== undefined) return [];
    return [error(RULES.terminalMissing, '', "the stream ended without a terminal event ('response.completed', 'response.failed', 'response.incomplete' or 'error')")];
  }

  private itemEvent(type: string, value: JsonObject): Finding[] {
    if (type === 'response.output_item.added') {
      if (isJsonObject(value.item) && typeof value.item.id === 'string') this.items.add(value.item.id);
      return [];
    }
    const itemId = typeof value.item_id === 'string' ? value.item_id : undefined;
    if (itemId === undefined) return [];
    const findings: Finding[] = [];
    if (!this.items.has(itemId)) findings.push(error(RULES.deltaBeforeAdded, '/item_id', `'${type}' for item '${itemId}', which no 'response.output_item.added' announced before`));
    const index = typeof value.content_index === 'number' ? value.content_index : typeof value.summary_index === 'number' ? value.summary_index : '';
    if (type === 'response.content_part.added') {
      this.parts.add(`${itemId}|${String(index)}`);
      return findings;
    }
    const dot = type.lastIndexOf('.');
    const kind = type.slice(0, dot);
    const phase = type.slice(dot + 1);
    const key = `${kind}|${itemId}|${String(index)}`;
    if (PART_KINDS.has(kind) && this.items.has(itemId) && !this.parts.has(`${itemId}|${String(index)}`)) {
      findings.push(error(RULES.deltaBeforeAdded, '/content_index', `'${type}' for content part ${String(index)} of item '${itemId}', which no 'response.content_part.added' announced before`));
    }
    const field = DONE_FIELDS[kind];
    if (field === undefined) return findings;
    if (phase === 'delta' && typeof value.delta === 'string') this.deltas.set(key, (this.deltas.get(key) ?? '') + value.delta);
    if (phase === 'done' && typeof value[field] === 'string' && this.deltas.has(key) && this.deltas.get(key) !== value[field]) {
      findings.push(error(RULES.doneDiffersFromDeltas, `/${field}`, `'${type}' says ${clip(value[field])}, but its deltas concatenate to ${clip(this.deltas.get(key)!)}`));
    }
    return findings;
  }
}

function clip(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
