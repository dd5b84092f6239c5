import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { MAX_JSON_DEPTH, valueNestsDeeperThan } from '../../core/json-depth.js';
import type { FindingSink } from './finding-sink.js';
import { RULES } from './rules.js';
import { documentFailure } from './patch-failure.js';
import { show } from './shapes.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';

// fast-json-patch is CommonJS under node and ESM under vite; both expose applyPatch on the default export.
const { applyPatch, applyOperation, deepClone } = fastJsonPatch;

interface Activity {
  activityType: unknown;
  content: unknown;
}

/**
 * Applies STATE_* and ACTIVITY_* the way the client's apply stage does (`src/apply/default.ts`;
 * notes §2.5): snapshots replace, deltas are RFC 6902 patches applied with
 * `applyPatch(doc, ops, true, false)`, which validates and works on a copy, so a failing patch
 * leaves the tracked value as it was. A failure is a warning: the client warns and the run goes on.
 */
export class StateTracker {
  private stateValue: unknown;
  private readonly activities = new Map<unknown, Activity>();

  /** `baseline` is the input's `state`; absent means `{}`, as in the client. */
  constructor(baseline?: unknown) {
    this.stateValue = baseline === undefined ? {} : baseline;
  }

  /** The tracked agent state (treat as read-only). */
  get state(): unknown {
    return this.stateValue;
  }

  /** The tracked content of an activity message, or undefined when none was seen. */
  activity(messageId: string): { activityType: unknown; content: unknown } | undefined {
    return this.activities.get(messageId);
  }

  /** Resets the state to an input's baseline (when the request arrives through judge()). */
  setBaseline(baseline: unknown): void {
    this.stateValue = baseline === undefined ? {} : baseline;
  }

  apply(type: string, ev: JsonObject, sink: FindingSink): void {
    switch (type) {
      case 'STATE_SNAPSHOT':
        this.stateValue = ev.snapshot;
        return;
      case 'STATE_DELTA': {
        const result = patched(this.stateValue, ev.delta);
        if (result.ok) this.stateValue = result.value;
        else sink.warning(RULES.P1, opPointer('/delta', ev.delta, result.index), `Failed to apply state patch: ${result.reason}; the state stays as it was`);
        return;
      }
      case 'ACTIVITY_SNAPSHOT': {
        const existing = this.activities.get(ev.messageId);
        // replace:false only creates; it leaves an existing activity (content and type) untouched.
        if (existing === undefined || ev.replace !== false) this.activities.set(ev.messageId, { activityType: ev.activityType, content: ev.content });
        return;
      }
      case 'ACTIVITY_DELTA': {
        const existing = this.activities.get(ev.messageId);
        if (existing === undefined) {
          // The 1.0.0 reducer skips it silently; the spec says a consumer SHOULD warn (notes §2.5).
          sink.warning(RULES.P3, sink.at('messageId'), `ACTIVITY_DELTA for activity '${show(ev.messageId)}', which no ACTIVITY_SNAPSHOT or MESSAGES_SNAPSHOT on this stream created; the client skips it`);
          return;
        }
        const result = patched(existing.content ?? {}, ev.patch ?? []);
        if (result.ok) this.activities.set(ev.messageId, { activityType: ev.activityType, content: result.value });
        else sink.warning(RULES.P2, opPointer('/patch', ev.patch, result.index), `Failed to apply activity patch for '${show(ev.messageId)}': ${result.reason}; the content stays as it was`);
        return;
      }
      case 'MESSAGES_SNAPSHOT':
        this.reconcileActivities(ev);
        return;
      case 'RUN_STARTED': {
        // The reducer appends echoed input messages it does not have yet.
        const input = ev.input;
        if (!isJsonObject(input) || !Array.isArray(input.messages)) return;
        for (const message of input.messages) {
          if (isJsonObject(message) && message.role === 'activity' && !this.activities.has(message.id)) {
            this.activities.set(message.id, { activityType: message.activityType, content: message.content });
          }
        }
        return;
      }
      default:
        return;
    }
  }

  /**
   * MESSAGES_SNAPSHOT reconciles by id: activities it carries replace ours; local activities it does
   * not carry survive unless the snapshot carries activities of its own (or the client's
   * `authoritativeActivityTypes` metadata says otherwise).
   */
  private reconcileActivities(ev: JsonObject): void {
    if (!Array.isArray(ev.messages)) return;
    const byId = new Map<unknown, JsonObject>();
    let carriesActivities = false;
    for (const message of ev.messages) {
      if (!isJsonObject(message)) continue;
      byId.set(message.id, message);
      if (message.role === 'activity') carriesActivities = true;
    }
    const authoritative = authoritativeActivityTypes(ev.metadata);
    const keepLocal = (activity: Activity) =>
      Array.isArray(authoritative) ? !authoritative.includes(activity.activityType as string) : authoritative !== null && !carriesActivities;
    for (const [id, activity] of [...this.activities]) {
      const replacement = byId.get(id);
      if (replacement === undefined) {
        if (!keepLocal(activity)) this.activities.delete(id);
      } else if (replacement.role === 'activity') {
        this.activities.set(id, { activityType: replacement.activityType, content: replacement.content });
      } else {
        this.activities.delete(id);
      }
    }
    for (const [id, message] of byId) {
      if (message.role === 'activity' && !this.activities.has(id)) this.activities.set(id, { activityType: message.activityType, content: message.content });
    }
  }
}

export type PatchResult = { ok: true; value: unknown } | { ok: false; reason: string; index?: number };

/**
 * The patched document, or why the patch failed: what `applyPatch(document, patch, true, false)`
 * does (clone once, then each operation validated and applied in turn), and on failure the first
 * sentence of the library's error and the index of the operation that raised it. A failure that
 * depends on the document is found by `documentFailure` before the library would throw it, because
 * its error prints the whole document (twice); any other error still comes from the library. A
 * result nested deeper than MAX_JSON_DEPTH counts as a failure: patches can make a state deeper
 * than any one message is (`copy` a value into itself, again and again), and whatever walks the
 * state later (the next patch's copy, `diff --semantic`, the inspector) is recursive.
 */
export function patched(document: unknown, patch: unknown): PatchResult {
  if (!Array.isArray(patch)) {
    try {
      applyPatch(document, patch as Operation[], true, false); // throws "Patch sequence must be an array"
    } catch (cause) {
      return { ok: false, reason: firstSentence(cause) };
    }
  }
  const operations = patch as unknown[];
  // The library clones the document first; cloned only once an operation is to be applied, a delta
  // whose first operation fails costs nothing proportional to the state.
  let value = document;
  let cloned = false;
  for (let i = 0; i < operations.length; i++) {
    const predicted = documentFailure(value, operations[i]);
    if (predicted !== undefined) return { ok: false, reason: predicted, index: i };
    if (!cloned) {
      value = deepClone(value);
      cloned = true;
    }
    try {
      value = applyOperation(value, operations[i] as Operation, true, true, true, i).newDocument;
    } catch (cause) {
      return { ok: false, reason: firstSentence(cause), index: i };
    }
  }
  if (!cloned) value = deepClone(value);
  if (valueNestsDeeperThan(value, MAX_JSON_DEPTH)) return { ok: false, reason: `the patched document would nest deeper than ${MAX_JSON_DEPTH} levels` };
  return { ok: true, value };
}

/** fast-json-patch appends the operation and the whole document on later lines; keep the sentence. */
function firstSentence(cause: unknown): string {
  const message = (cause as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? (message.split('\n')[0] as string) : String(cause);
}

function opPointer(base: string, patch: unknown, index: number | undefined): string {
  return index !== undefined && Array.isArray(patch) && index < patch.length ? `${base}/${index}` : base;
}

/** `metadata['@ag-ui/client'].authoritativeActivityTypes` as the client reads it (agent.ts `he`). */
export function authoritativeActivityTypes(metadata: unknown): string[] | null | undefined {
  if (!isJsonObject(metadata) || !Object.prototype.hasOwnProperty.call(metadata, '@ag-ui/client')) return undefined;
  const own = metadata['@ag-ui/client'];
  if (!isJsonObject(own)) return [];
  if (!Object.prototype.hasOwnProperty.call(own, 'authoritativeActivityTypes')) return undefined;
  const types = own.authoritativeActivityTypes;
  if (types === null) return null;
  return Array.isArray(types) && types.every((t) => typeof t === 'string') ? types : [];
}
