import { parsePointer } from '../core/field-specs.js';
import { protocolIdFields } from '../protocols/catalog.js';
import type { IdLogEntry, OrderWatch } from './id-roles.js';
import { replaceVolatileTokens } from './volatile-tokens.js';

/**
 * Generated-id fields, made canonical rather than dropped: the first value seen becomes `runId#1`,
 * the next new one `runId#2`, and every later appearance of the same value (under any key) the same
 * label. Equal id structure then compares equal across runs, while a broken correlation (a
 * TOOL_CALL_END naming another call) still shows. Names of ids common to agent APIs, labelled in
 * every exchange whatever its protocol (one of no known protocol too), then the fields each protocol
 * declares.
 */
export const ID_FIELDS: readonly string[] = [
  'toolCallId', 'parentMessageId', 'activeRequestId', 'sessionId', 'piSessionId', 'conversationId', 'connectionId',
  'hostInstanceId', 'cursor', 'ticketId', 'blobId', 'fileId', 'responseId', 'callId', 'correlationId', 'parentId', 'leafId',
  'currentLeafId', 'entryId', 'summaryEntryId', 'subagentRunId', 'leaseId', 'recordId', 'inventoryId', 'sourceInventoryId',
  'scheduleId',
  // Each protocol's own (the fields it declares ids, and its write-only fields, stored as digests
  // keyed per recording session: two recordings of the same run differ in them, but equal values
  // within each share one label).
  ...protocolIdFields(),
];

/**
 * Timestamps and measured durations: `timestamp`, `date`, `time`, any key ending in `At` (createdAt,
 * updatedAt, …) and any ending in `Ms` (idleForMs, durationMs …) holding a string or number.
 */
export function isTimeKey(key: string): boolean {
  return key === 'timestamp' || key === 'date' || key === 'time' || /[a-z]At$/.test(key) || /[a-z]Ms$/.test(key);
}

/** Ids learnt shorter than this are not replaced where they appear as plain values (too likely to match by accident). */
export const MIN_ECHO_LENGTH = 6;

const CURSOR_KEY = /[a-z]Cursor$/;
const IGNORED_TEXT = '"<ignored>"';

/**
 * A set of JSON fields in the notation of FieldSpecs (a key name: that key at any depth; a JSON
 * pointer, `*` for any one key or index), with the same `matches`, made for hot loops: pointers are
 * grouped by length, so most paths are answered with one set lookup.
 */
export class FieldMatcher {
  private readonly names = new Set<string>();
  private readonly pointers = new Map<number, string[][]>();

  constructor(specs: readonly string[]) {
    for (const spec of specs) {
      if (spec.startsWith('/')) {
        const segments = parsePointer(spec);
        let list = this.pointers.get(segments.length);
        if (!list) this.pointers.set(segments.length, (list = []));
        list.push(segments);
      } else if (spec.length > 0) {
        this.names.add(spec);
      }
    }
  }

  /** Does the field at `path` (the key or index last) belong to the set? */
  matches(path: readonly string[]): boolean {
    const n = path.length;
    if (n > 0 && this.names.has(path[n - 1])) return true;
    const list = this.pointers.get(n);
    if (list === undefined) return false;
    outer: for (const p of list) {
      for (let i = 0; i < n; i++) if (p[i] !== '*' && p[i] !== path[i]) continue outer;
      return true;
    }
    return false;
  }
}

/** Per key name: is it a time key, and its JSON text (bounded memo: keys repeat in every message). */
const KEY_MEMO_LIMIT = 50_000;
const timeKeys = new Map<string, boolean>();
const keyTexts = new Map<string, string>();
const INDEX_TEXTS: string[] = Array.from({ length: 256 }, (_, i) => String(i));

function isTimeKeyMemo(key: string): boolean {
  let time = timeKeys.get(key);
  if (time === undefined) {
    time = isTimeKey(key);
    if (timeKeys.size < KEY_MEMO_LIMIT) timeKeys.set(key, time);
  }
  return time;
}

function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (keyTexts.size < KEY_MEMO_LIMIT) keyTexts.set(key, text);
  }
  return text;
}

/** One side's id memory: value → canonical label, in order of first appearance. */
export class IdCanonicalizer {
  private strings = new Map<string, string>();
  private numbers = new Map<number, string>();
  private counters = new Map<string, number>();
  /** Every id learnt, in order (checkpoints for `restore`). */
  private learnt: IdLogEntry[] = [];
  private readonly specs: FieldMatcher;
  /** Strings the whole recording uses as ids, with the name each was learnt under (idRolesOf). */
  private roles: ReadonlyMap<string, string> = new Map();
  private watch: OrderWatch | undefined;
  private readonly tokenLabel = (kind: string, token: string) => this.label(kind, token);

  constructor(extraIdSpecs: readonly string[] = []) {
    this.specs = new FieldMatcher([...ID_FIELDS, ...extraIdSpecs]);
  }

  /**
   * Ids of the whole recording by role (idRolesOf): a string equal to one of them is labelled
   * wherever it appears first, not only once it has been seen in an id field.
   */
  useRoles(roles: ReadonlyMap<string, string>): void {
    this.roles = roles;
  }

  /** Reports to `watch` the strings left as they are and the ids learnt (does labelling depend on order?). */
  watchOrder(watch: OrderWatch): void {
    this.watch = watch;
  }

  /** The canonical label of an id value, learning it under `name` when new. */
  label(name: string, value: string | number): string {
    let label = typeof value === 'number' ? this.numbers.get(value) : this.strings.get(value);
    if (label === undefined) {
      const n = (this.counters.get(name) ?? 0) + 1;
      this.counters.set(name, n);
      label = `${name}#${n}`;
      this.remember(value, label);
      this.learnt.push([value, label]);
      if (this.watch !== undefined && typeof value === 'string' && value.length >= MIN_ECHO_LENGTH) this.watch.learnt(value);
    }
    return label;
  }

  private remember(value: string | number, label: string): void {
    if (typeof value === 'number') this.numbers.set(value, label);
    else this.strings.set(value, label);
  }

  /** How many ids have been learnt so far: a checkpoint that `restore` can come back to. */
  get size(): number {
    return this.learnt.length;
  }

  /** Every id learnt so far, in order (shared, not copied: do not change it). */
  log(): readonly IdLogEntry[] {
    return this.learnt;
  }

  /**
   * Puts this canonicalizer in the state another one had at checkpoint `n` (its first `n` log
   * entries). Moving forward from an earlier checkpoint of the same log only adds the entries in
   * between; anything else starts over.
   */
  restore(log: readonly IdLogEntry[], n: number): void {
    const size = this.learnt.length;
    if (size > n || (size > 0 && !Object.is(this.learnt[size - 1][0], log[size - 1]?.[0]))) {
      this.strings = new Map();
      this.numbers = new Map();
      this.counters = new Map();
      this.learnt = [];
    }
    for (let i = this.learnt.length; i < n; i++) {
      const entry = log[i];
      const [value, label] = entry;
      const hash = label.lastIndexOf('#');
      this.remember(value, label);
      this.counters.set(label.slice(0, hash), Number(label.slice(hash + 1)));
      this.learnt.push(entry);
    }
  }

  /**
   * The label of a value learnt before, or used as an id anywhere in the recording (then learnt
   * now), if any: for ids echoed in plain fields, headers and paths.
   */
  known(value: string): string | undefined {
    if (value.length < MIN_ECHO_LENGTH) return undefined;
    const label = this.strings.get(value);
    if (label !== undefined) return label;
    const role = this.roles.get(value);
    return role === undefined ? undefined : this.label(role, value);
  }

  /**
   * `text` with its volatile tokens (uuids, ULIDs, timestamps) labelled. A token that is all of
   * `text` gives the bare label (`{label}` when `braced`, for paths).
   */
  tokens(text: string, braced = false): string {
    const out = replaceVolatileTokens(text, this.tokenLabel);
    // Labels hold no `{`: a changed text without one was a single token.
    const whole = out !== text && !out.includes('{');
    // Otherwise the text itself stays, and may turn out to be an id later (the order watch).
    if (!whole) this.leftAsIs(text);
    return whole && braced ? `{${out}}` : out;
  }

  /**
   * A string in a plain (not an id) field: its label when it is an id; a path naming ids (a link,
   * a Location: `/v1/ticket/<ticketId>`) with those segments labelled; else the string with its
   * volatile tokens labelled.
   */
  plain(value: string): string {
    return this.known(value) ?? this.pathOfIds(value) ?? this.tokens(value);
  }

  /** `value` as a path whose segments that are known ids are labelled, if it is such a path. */
  private pathOfIds(value: string): string | undefined {
    // Most plain strings are no path: one comparison answers for them.
    if (value.charCodeAt(0) !== 47 || value.length < MIN_ECHO_LENGTH + 1 || /\s/.test(value)) return undefined;
    let named = false;
    const segments = value.split('/').map((segment) => {
      const label = this.known(segment);
      if (label === undefined) return segment;
      named = true;
      return `{${label}}`;
    });
    return named ? segments.join('/') : undefined;
  }

  /** A string that stays as it is where it was seen (a plain field, a path segment): for the order watch. */
  leftAsIs(value: string): void {
    if (this.watch !== undefined && value.length >= MIN_ECHO_LENGTH) this.watch.sawPlain(value);
  }

  /**
   * A copy of `value` with id fields replaced by labels, timestamps removed, and strings equal to a
   * known id replaced by its label. Walks in document order, so labels follow first appearance.
   */
  canonicalize(value: unknown, path: string[] = []): unknown {
    if (Array.isArray(value)) return value.map((item, i) => this.canonicalize(item, [...path, String(i)]));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      const node = isTreeNode(value as Record<string, unknown>);
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const at = [...path, key];
        if (isTimeKey(key) && (typeof item === 'string' || typeof item === 'number')) continue;
        if ((typeof item === 'string' || typeof item === 'number') && (this.specs.matches(at) || CURSOR_KEY.test(key) || (node && key === 'id'))) {
          out[key] = this.label(key === 'id' ? idName(path) : key, item);
        } else {
          out[key] = this.canonicalize(item, at);
        }
      }
      return out;
    }
    if (typeof value === 'string') return this.plain(value);
    return value;
  }

  /**
   * `canonicalJson(normalizeJson(this.canonicalize(value), drop))` in a single walk that builds no
   * intermediate values: the same ids are learnt in the same order (dropped subtrees included), and
   * two values give the same text exactly when their normalized forms are equal. The text is for
   * comparing (keys sorted, dropped array elements as "<ignored>"), not for display.
   */
  canonicalText(value: unknown, drop: FieldMatcher): string {
    return this.text(value, [], drop);
  }

  private text(value: unknown, path: string[], drop: FieldMatcher): string {
    if (typeof value === 'string') return JSON.stringify(this.plain(value));
    if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
    if (Array.isArray(value)) {
      let out = '[';
      for (let i = 0; i < value.length; i++) {
        if (i > 0) out += ',';
        path.push(i < INDEX_TEXTS.length ? INDEX_TEXTS[i] : String(i));
        if (drop.matches(path)) {
          this.canonicalize(value[i], path.slice());
          out += IGNORED_TEXT;
        } else {
          out += this.text(value[i], path, drop);
        }
        path.pop();
      }
      return out + ']';
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    const node = isTreeNode(record);
    const parts: string[] = [];
    let sorted = true;
    let last = '';
    for (const key of keys) {
      const item = record[key];
      const scalar = typeof item === 'string' || typeof item === 'number';
      if (scalar && isTimeKeyMemo(key)) continue;
      path.push(key);
      let part: string | undefined;
      if (scalar && (this.specs.matches(path) || CURSOR_KEY.test(key) || (node && key === 'id'))) {
        const label = this.label(key === 'id' ? idName(path.slice(0, -1)) : key, item);
        if (!drop.matches(path)) part = JSON.stringify(label);
      } else if (drop.matches(path)) {
        this.canonicalize(item, path.slice());
      } else {
        part = this.text(item, path, drop);
      }
      path.pop();
      if (part === undefined) continue;
      if (parts.length > 0 && key < last) sorted = false;
      last = key;
      parts.push(key, part);
    }
    if (!sorted) sortPairs(parts);
    let out = '{';
    for (let i = 0; i < parts.length; i += 2) out += `${i > 0 ? ',' : ''}${keyText(parts[i])}:${parts[i + 1]}`;
    return out + '}';
  }
}

/**
 * A node of a tree of generated records (Pi session entries: `{id, parentId, …}`): its `id` is an
 * id even where nothing else refers to it, such as a leaf off the current branch.
 */
function isTreeNode(record: Record<string, unknown>): boolean {
  return record.parentId !== undefined && record.id !== undefined;
}

/** Sorts a flat [key, value, key, value …] list by key, in place (insertion sort: objects are small). */
function sortPairs(flat: string[]): void {
  for (let i = 2; i < flat.length; i += 2) {
    const key = flat[i];
    const value = flat[i + 1];
    let j = i - 2;
    while (j >= 0 && flat[j] > key) {
      flat[j + 2] = flat[j];
      flat[j + 3] = flat[j + 1];
      j -= 2;
    }
    flat[j + 2] = key;
    flat[j + 3] = value;
  }
}

/** A readable label base for an `id` key: `id` for JSON-RPC, `commandId` under /command, `messages.id` … */
function idName(parent: string[]): string {
  const named = parent.filter((s) => !/^\d+$/.test(s) && s !== '*');
  return named.length === 0 ? 'id' : `${named[named.length - 1]}.id`;
}
