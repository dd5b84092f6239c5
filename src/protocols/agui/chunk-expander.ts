import type { FindingSink, Origin } from './finding-sink.js';
import { RULES } from './rules.js';
import { show } from './shapes.js';
import type { JsonObject } from '../../core/json.js';

type Kind = 'text' | 'tool' | 'reasoning';

/** Returned by laneFor when the chunk cannot be placed. */
const DROP: unique symbol = Symbol('drop');

/** One open chunk stream: the item a lane is assembling and the fields its first chunk established. */
interface Lane {
  kind: Kind;
  id: unknown;
  /** The opener chunk's `subagentRunId`; a null one is reported (N1) on the opener and then read as absent. */
  tag: unknown;
  role?: unknown;
  name?: unknown;
  toolCallName?: unknown;
  parentMessageId?: unknown;
}

/**
 * Receives each synthesised event, to be verified as if it had come from the wire; returns false when
 * the verifier ignores it as outside any run (L2/L3).
 */
export type Emit = (event: JsonObject, type: string, origin: Origin) => boolean;

const END_OF: Record<Kind, string> = { text: 'TEXT_MESSAGE_END', tool: 'TOOL_CALL_END', reasoning: 'REASONING_MESSAGE_END' };
const ID_FIELD: Record<Kind, string> = { text: 'messageId', tool: 'toolCallId', reasoning: 'messageId' };
const KIND_NAME: Record<Kind, string> = { text: 'text message', tool: 'tool call', reasoning: 'reasoning message' };

/** Events that close their own lane's chunk stream (notes §2.3). RAW, ACTIVITY_*, REASONING_ENCRYPTED_VALUE and SUBAGENT_STARTED do not. */
const CLOSES_OWN_LANE: ReadonlySet<string> = new Set([
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'TOOL_CALL_START',
  'TOOL_CALL_ARGS',
  'TOOL_CALL_END',
  'TOOL_CALL_RESULT',
  'STATE_SNAPSHOT',
  'STATE_DELTA',
  'CUSTOM',
  'STEP_STARTED',
  'STEP_FINISHED',
  'REASONING_START',
  'REASONING_MESSAGE_START',
  'REASONING_MESSAGE_CONTENT',
  'REASONING_MESSAGE_END',
  'REASONING_END',
]);

/** Events that close every lane. */
const CLOSES_ALL_LANES: ReadonlySet<string> = new Set(['RUN_STARTED', 'RUN_FINISHED', 'RUN_ERROR', 'MESSAGES_SNAPSHOT']);

export function isChunkType(type: string): boolean {
  return type === 'TEXT_MESSAGE_CHUNK' || type === 'TOOL_CALL_CHUNK' || type === 'REASONING_MESSAGE_CHUNK';
}

/**
 * A port of `transformChunks` (`@ag-ui/client@1.0.0` `src/chunks/transform.ts`; notes §2.3). Chunks
 * expand into START/CONTENT/END; there is one pending chunk stream per owner lane (the parent agent,
 * keyed `undefined`, and each `subagentRunId`). Its errors are findings; after one, expansion continues
 * the way the producer evidently meant (a conflicting restatement still continues the item).
 */
export class ChunkExpander {
  private readonly lanes = new Map<unknown, Lane>();
  /** Set by laneFor when the chunk's tag contradicts the lane it continues (K4). */
  private tagConflict = false;

  /** Closes the lanes a non-chunk event closes, emitting their END first, as the client does. */
  before(type: string, ev: JsonObject, emit: Emit): void {
    if (this.lanes.size === 0) return;
    if (CLOSES_OWN_LANE.has(type)) this.close(ev.subagentRunId ?? undefined, emit);
    else if (CLOSES_ALL_LANES.has(type)) this.closeAll(emit);
    else if (type === 'SUBAGENT_FINISHED' || type === 'SUBAGENT_ERROR') {
      const tag = ev.subagentRunId;
      if (tag !== undefined && tag !== null) this.close(tag, emit);
    }
  }

  /** Expands one `*_CHUNK` wire event. */
  expand(type: string, chunk: JsonObject, sink: FindingSink, emit: Emit): void {
    const kind: Kind = type === 'TEXT_MESSAGE_CHUNK' ? 'text' : type === 'TOOL_CALL_CHUNK' ? 'tool' : 'reasoning';
    const idField = ID_FIELD[kind];
    const id = chunk[idField];
    this.tagConflict = false;
    const lane = this.laneFor(kind, id, chunk.subagentRunId ?? undefined, type, sink);
    if (lane === DROP) return;
    const open = this.lanes.get(lane);
    let fields: Lane;
    let emitted = false;
    if (open !== undefined && open.kind === kind && (id === undefined || id === open.id)) {
      fields = open;
      if (kind === 'text') {
        this.conflict(kind, open.id, 'role', chunk.role, open.role, sink);
        this.conflict(kind, open.id, 'name', chunk.name, open.name, sink);
      } else if (kind === 'tool') {
        this.conflict(kind, open.id, 'toolCallName', chunk.toolCallName, open.toolCallName, sink);
        this.conflict(kind, open.id, 'parentMessageId', chunk.parentMessageId, open.parentMessageId, sink);
      }
    } else {
      this.close(lane, emit);
      if (id === undefined) {
        sink.error(RULES.K1, sink.at(idField), `First ${type} must have a ${idField}`);
        return;
      }
      if (kind === 'tool' && chunk.toolCallName === undefined) {
        sink.error(RULES.K2, sink.at('toolCallName'), `First TOOL_CALL_CHUNK must have a toolCallName`);
        return;
      }
      fields = { kind, id, tag: chunk.subagentRunId ?? undefined };
      const start: JsonObject = { [idField]: id };
      if (kind === 'text') {
        fields.role = chunk.role === undefined ? 'assistant' : chunk.role;
        fields.name = chunk.name;
        start.type = 'TEXT_MESSAGE_START';
        start.role = fields.role;
        if (chunk.name !== undefined) start.name = chunk.name;
      } else if (kind === 'tool') {
        fields.toolCallName = chunk.toolCallName;
        fields.parentMessageId = chunk.parentMessageId;
        start.type = 'TOOL_CALL_START';
        start.toolCallName = chunk.toolCallName;
        if (chunk.parentMessageId !== undefined) start.parentMessageId = chunk.parentMessageId;
      } else {
        start.type = 'REASONING_MESSAGE_START';
        start.role = 'reasoning';
      }
      if (chunk.subagentRunId !== undefined) start.subagentRunId = chunk.subagentRunId;
      this.lanes.set(lane, fields);
      if (!emit(start, start.type as string, 'chunk')) {
        // Outside any run: the item never opened, so no END is owed for it later.
        this.lanes.delete(lane);
        return;
      }
      emitted = true;
    }
    // A chunk with a delta (or a rawEvent) continues the item; a bare chunk carrying only
    // metadata or a null tag still yields an empty continuation, so nothing it says is lost.
    const carries = chunk.delta !== undefined || chunk.rawEvent !== undefined;
    if (carries || (!emitted && (chunk.metadata !== undefined || chunk.subagentRunId === null))) {
      const contentType = kind === 'text' ? 'TEXT_MESSAGE_CONTENT' : kind === 'tool' ? 'TOOL_CALL_ARGS' : 'REASONING_MESSAGE_CONTENT';
      const content: JsonObject = { type: contentType, [idField]: fields.id, delta: chunk.delta === undefined ? '' : chunk.delta };
      // After K4 the chunk continues its lane under the lane's owner, so O1 does not report it again.
      const tag = chunk.subagentRunId === undefined || this.tagConflict ? fields.tag : chunk.subagentRunId;
      if (tag !== undefined) content.subagentRunId = tag;
      emit(content, contentType, 'chunk');
    }
  }

  /**
   * Which lane a chunk belongs to (transform.ts `c`): the lane already assembling its id; else its tag;
   * else the parent lane or the only lane of that kind. DROP after an ambiguity finding.
   */
  private laneFor(kind: Kind, id: unknown, tag: unknown, type: string, sink: FindingSink): unknown {
    if (id !== undefined) {
      for (const [owner, lane] of this.lanes) {
        if (lane.kind !== kind || lane.id !== id) continue;
        if (tag !== undefined && tag !== owner) {
          this.tagConflict = true;
          sink.error(RULES.K4, sink.at('subagentRunId'), `Cannot continue ${KIND_NAME[kind]} '${show(id)}': chunk subagentRunId '${show(tag)}' does not match the open stream's subagent '${owner === undefined ? '(the parent agent)' : show(owner)}'.`);
        }
        return owner;
      }
      return tag;
    }
    if (tag !== undefined) return tag;
    if (this.lanes.get(undefined)?.kind === kind) return undefined;
    let found: unknown;
    let count = 0;
    for (const [owner, lane] of this.lanes) {
      if (lane.kind !== kind) continue;
      found = owner;
      count++;
    }
    if (count > 1) {
      sink.error(RULES.K5, '', `Ambiguous ${type}: it carries neither a ${ID_FIELD[kind]} nor a subagentRunId, but ${count} lanes have an open ${KIND_NAME[kind]}. Attribute the chunk to the subagent it belongs to.`);
      return DROP;
    }
    return count === 1 ? found : undefined;
  }

  private conflict(kind: Kind, id: unknown, field: string, value: unknown, established: unknown, sink: FindingSink): void {
    if (value === undefined || value === established) return;
    const est = established === undefined ? '(absent)' : `'${show(established)}'`;
    sink.error(RULES.K3, sink.at(field), `Cannot continue ${KIND_NAME[kind]} '${show(id)}': chunk ${field} '${show(value)}' does not match the open stream's ${field} ${est}.`);
  }

  private close(owner: unknown, emit: Emit): void {
    const lane = this.lanes.get(owner);
    if (lane === undefined) return;
    this.lanes.delete(owner);
    const type = END_OF[lane.kind];
    const end: JsonObject = { type, [ID_FIELD[lane.kind]]: lane.id };
    if (lane.tag !== undefined) end.subagentRunId = lane.tag;
    emit(end, type, 'closing');
  }

  private closeAll(emit: Emit): void {
    for (const owner of [...this.lanes.keys()]) this.close(owner, emit);
  }
}
