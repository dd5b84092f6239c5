import { error, warning, type Finding } from '../../core/finding.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { ANTHROPIC_RULES as RULES } from './rules.js';

interface BlockState {
  type: string;
  open: boolean;
  /** A tool_use block's `partial_json` deltas, concatenated. */
  json: string;
  /** Its name, for a tool_use block. */
  name?: string;
}

/** The delta types that fit each block type; a block or delta type not listed is not judged. */
const DELTA_FITS: Readonly<Record<string, readonly string[]>> = {
  text_delta: ['text'],
  citations_delta: ['text'],
  input_json_delta: ['tool_use', 'server_tool_use', 'mcp_tool_use'],
  thinking_delta: ['thinking'],
  signature_delta: ['thinking'],
};

/** Block types whose input streams as `input_json_delta`. */
const INPUT_BLOCKS = new Set(DELTA_FITS.input_json_delta);

/** Stop reasons that say the model finished on its own, which a client tool call contradicts. */
const NATURAL_STOPS = new Set(['end_turn', 'stop_sequence']);

/**
 * The stream rules of one streamed Messages answer (shared/docs/llm-api-notes.md): `message_start`
 * first and `message_stop` last (`ping` anywhere, an `error` event ends it), content blocks started,
 * given their deltas and stopped one at a time in index order, each delta of a type its block takes
 * (a tool_use block's `partial_json` concatenating to JSON), a `message_delta` with a `stop_reason`
 * that fits the blocks, and cumulative output token counts that never go down. The SDK's
 * MessageStream (`messages.stream(...).finalMessage()`) throws or loses content on most of these.
 */
export class MessageStream {
  private started = false;
  private ended?: 'message_stop' | 'error';
  private events = 0;
  private readonly blocks = new Map<number, BlockState>();
  private stopReason?: string;
  private outputTokens?: number;

  /** Findings of one event. */
  event(value: JsonObject): Finding[] {
    const type = typeof value.type === 'string' ? value.type : '';
    if (type === 'ping') return [];
    this.events++;
    const findings: Finding[] = [];
    if (this.ended !== undefined) findings.push(error(RULES.eventAfterEnd, '/type', `'${type}' after '${this.ended}', which ends the stream`));
    if (type === 'error') {
      this.ended ??= 'error';
      return findings;
    }
    if (type === 'message_start') {
      if (this.started) findings.push(error(RULES.startNotFirst, '/type', "a second 'message_start'; the SDK's MessageStream throws \"Unexpected event order\""));
      else if (this.events > 1) findings.push(error(RULES.startNotFirst, '/type', "'message_start' after other events; it comes first"));
      this.started = true;
      const usage = isJsonObject(value.message) && isJsonObject(value.message.usage) ? value.message.usage : undefined;
      if (usage && typeof usage.output_tokens === 'number') this.outputTokens = usage.output_tokens;
      return findings;
    }
    if (!this.started && this.events === 1) findings.push(error(RULES.startNotFirst, '/type', `the stream begins with '${type}'; a Messages stream begins with 'message_start', and the SDK ignores what comes before it`));
    switch (type) {
      case 'content_block_start':
        findings.push(...this.blockStart(value));
        break;
      case 'content_block_delta':
        findings.push(...this.blockDelta(value));
        break;
      case 'content_block_stop':
        findings.push(...this.blockStop(value));
        break;
      case 'message_delta':
        findings.push(...this.openBlocks(`'message_delta'`), ...this.messageDelta(value));
        break;
      case 'message_stop':
        findings.push(...this.openBlocks(`'message_stop'`));
        if (this.stopReason === undefined) findings.push(error(RULES.stopReasonMissing, '/type', "'message_stop' with no 'message_delta' before it giving the stop_reason; the SDK's final message keeps stop_reason null"));
        this.ended ??= 'message_stop';
        break;
    }
    return findings;
  }

  /** Stream-level findings once it ended. */
  end(how: 'complete' | 'aborted'): Finding[] {
    if (how !== 'complete' || this.ended !== undefined || !this.started) return [];
    return [...this.openBlocks('the end of the stream', ''), error(RULES.stopMissing, '', "the stream ended without 'message_stop' (or an 'error' event); the SDK's finalMessage() throws")];
  }

  private blockStart(value: JsonObject): Finding[] {
    if (typeof value.index !== 'number') return [];
    const block = isJsonObject(value.content_block) ? value.content_block : {};
    const findings: Finding[] = [];
    const open = [...this.blocks].find(([, state]) => state.open);
    const next = this.blocks.size;
    if (this.blocks.has(value.index)) findings.push(error(RULES.blockOutOfOrder, '/index', `content block ${value.index} starts a second time`));
    else if (value.index !== next) findings.push(error(RULES.blockOutOfOrder, '/index', `content block ${value.index} starts where block ${next} comes next; blocks start in index order from 0`));
    else if (open) findings.push(error(RULES.blockOutOfOrder, '/index', `content block ${value.index} starts while block ${open[0]} is still open; blocks do not overlap`));
    if (!this.blocks.has(value.index)) {
      this.blocks.set(value.index, { type: String(block.type), open: true, json: '', name: typeof block.name === 'string' ? block.name : undefined });
    }
    return findings;
  }

  private blockDelta(value: JsonObject): Finding[] {
    if (typeof value.index !== 'number') return [];
    const state = this.blocks.get(value.index);
    if (!state?.open) return [this.notOpen('content_block_delta', value.index, state)];
    const delta = isJsonObject(value.delta) ? value.delta : {};
    const type = String(delta.type);
    const fits = DELTA_FITS[type];
    if (fits && !fits.includes(state.type) && knownBlock(state.type)) {
      return [error(RULES.deltaTypeMismatch, '/delta/type', `a '${type}' for content block ${value.index}, a ${state.type} block; ${type} belongs to ${fits.join(' or ')} blocks, and the SDK drops it`)];
    }
    if (type === 'input_json_delta' && typeof delta.partial_json === 'string') state.json += delta.partial_json;
    return [];
  }

  private blockStop(value: JsonObject): Finding[] {
    if (typeof value.index !== 'number') return [];
    const state = this.blocks.get(value.index);
    if (!state?.open) return [this.notOpen('content_block_stop', value.index, state)];
    state.open = false;
    if (!INPUT_BLOCKS.has(state.type) || state.json === '' || isJson(state.json)) return [];
    return [warning(RULES.toolInputNotJson, '/index', `the input_json_delta fragments of ${state.type} block ${value.index} (${state.name ?? 'unnamed'}) do not parse as JSON once concatenated: ${clip(state.json)}`)];
  }

  private notOpen(type: string, index: number, state: BlockState | undefined): Finding {
    const why = state ? 'which already stopped' : 'which never started';
    return error(RULES.blockNotOpen, '/index', `'${type}' for content block ${index}, ${why}`);
  }

  private openBlocks(at: string, pointer = '/type'): Finding[] {
    const open = [...this.blocks].filter(([, state]) => state.open).map(([index]) => index);
    if (open.length === 0) return [];
    for (const index of open) this.blocks.get(index)!.open = false;
    return [error(RULES.blockNotStopped, pointer, `content block ${open.join(', ')} still open at ${at}; each block ends with 'content_block_stop'`)];
  }

  private messageDelta(value: JsonObject): Finding[] {
    const findings: Finding[] = [];
    const delta = isJsonObject(value.delta) ? value.delta : {};
    if (typeof delta.stop_reason === 'string') {
      this.stopReason = delta.stop_reason;
      findings.push(...stopReasonFindings(this.stopReason, [...this.blocks.values()].map((block) => block.type), '/delta/stop_reason'));
    }
    const usage = isJsonObject(value.usage) ? value.usage : {};
    if (typeof usage.output_tokens === 'number') {
      if (this.outputTokens !== undefined && usage.output_tokens < this.outputTokens) {
        findings.push(warning(RULES.usageDecreasing, '/usage/output_tokens', `output_tokens ${usage.output_tokens} is lower than the stream's earlier ${this.outputTokens}; the counts are cumulative, and the SDK keeps the last`));
      }
      this.outputTokens = usage.output_tokens;
    }
    return findings;
  }
}

/** Does a stop reason fit the answer's blocks: `tool_use` only with a tool_use block, and a tool_use block not ended as if it were not there. */
export function stopReasonFindings(stopReason: string | undefined, blockTypes: readonly string[], pointer: string): Finding[] {
  const toolUse = blockTypes.includes('tool_use');
  if (stopReason === 'tool_use' && !toolUse) return [error(RULES.stopReasonMismatch, pointer, "stop_reason is 'tool_use' but the answer has no tool_use block; an agent waits for a tool call it never gets")];
  if (stopReason !== undefined && toolUse && NATURAL_STOPS.has(stopReason)) return [warning(RULES.stopReasonMismatch, pointer, `the answer has a tool_use block but stop_reason '${stopReason}', not 'tool_use'; an agent may not run the tool`)];
  return [];
}

function knownBlock(type: string): boolean {
  return Object.values(DELTA_FITS).some((types) => types.includes(type)) || type === 'redacted_thinking';
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
