import { FieldSpecs } from '../replay/field-specs.js';

/**
 * Generated-id fields, made canonical rather than dropped: the first value seen becomes `runId#1`,
 * the next new one `runId#2`, and every later appearance of the same value (under any key) the same
 * label. Equal id structure then compares equal across runs, while a broken correlation (a
 * TOOL_CALL_END naming another call) still shows.
 */
export const ID_FIELDS: readonly string[] = [
  'messageId', 'toolCallId', 'runId', 'threadId', 'parentRunId', 'parentMessageId', 'requestId', 'activeRequestId',
  'sessionId', 'piSessionId', 'conversationId', 'connectionId', 'hostInstanceId', 'cursor', 'ticketId', 'blobId', 'fileId',
  'idempotencyKey', 'responseId', 'callId', 'correlationId', 'parentId', 'leafId', 'currentLeafId', 'entryId',
  'summaryEntryId', 'subagentRunId', 'leaseId', 'recordId', 'inventoryId', 'sourceInventoryId', 'scheduleId',
  // JSON-RPC ids and Pi command/response ids; ids of the messages in an AG-UI RunAgentInput.
  '/id', '/command/id', '/response/id', '/messages/*/id',
];

/** Is a protocol's volatile field (ReplayHints.volatileFields) an id, to canonicalize rather than drop? */
export function isIdSpec(spec: string): boolean {
  const last = spec.split('/').pop() ?? spec;
  return last === 'id' || last === 'cursor' || /(Id|ID|Key)$/.test(last);
}

/**
 * Timestamps and measured durations: `timestamp`, `date`, `time`, any key ending in `At` (createdAt,
 * updatedAt, …) and any ending in `Ms` (idleForMs, durationMs …) holding a string or number.
 */
export function isTimeKey(key: string): boolean {
  return key === 'timestamp' || key === 'date' || key === 'time' || /[a-z]At$/.test(key) || /[a-z]Ms$/.test(key);
}

/** Ids learnt shorter than this are not replaced where they appear as plain values (too likely to match by accident). */
const MIN_ECHO_LENGTH = 6;

/** One side's id memory: value → canonical label, in order of first appearance. */
export class IdCanonicalizer {
  private readonly labels = new Map<string, string>();
  private readonly counters = new Map<string, number>();
  private readonly specs: FieldSpecs;

  constructor(extraIdSpecs: readonly string[] = []) {
    this.specs = new FieldSpecs([...ID_FIELDS, ...extraIdSpecs]);
  }

  /** The canonical label of an id value, learning it under `name` when new. */
  label(name: string, value: string | number): string {
    const key = typeof value === 'number' ? `n:${value}` : `s:${value}`;
    let label = this.labels.get(key);
    if (label === undefined) {
      const n = (this.counters.get(name) ?? 0) + 1;
      this.counters.set(name, n);
      label = `${name}#${n}`;
      this.labels.set(key, label);
    }
    return label;
  }

  /** The label of a value learnt before, if any (for ids echoed in plain fields, headers and paths). */
  known(value: string): string | undefined {
    return value.length >= MIN_ECHO_LENGTH ? this.labels.get(`s:${value}`) : undefined;
  }

  /**
   * A copy of `value` with id fields replaced by labels, timestamps removed, and strings equal to a
   * known id replaced by its label. Walks in document order, so labels follow first appearance.
   */
  canonicalize(value: unknown, path: string[] = []): unknown {
    if (Array.isArray(value)) return value.map((item, i) => this.canonicalize(item, [...path, String(i)]));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const at = [...path, key];
        if (isTimeKey(key) && (typeof item === 'string' || typeof item === 'number')) continue;
        if ((typeof item === 'string' || typeof item === 'number') && (this.specs.matches(at) || /[a-z]Cursor$/.test(key))) {
          out[key] = this.label(key === 'id' ? idName(path) : key, item);
        } else {
          out[key] = this.canonicalize(item, at);
        }
      }
      return out;
    }
    if (typeof value === 'string') return this.known(value) ?? value;
    return value;
  }
}

/** A readable label base for an `id` key: `id` for JSON-RPC, `commandId` under /command, `messages.id` … */
function idName(parent: string[]): string {
  const named = parent.filter((s) => !/^\d+$/.test(s) && s !== '*');
  return named.length === 0 ? 'id' : `${named[named.length - 1]}.id`;
}
