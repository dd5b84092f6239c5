import { factsOf, type ProtocolId } from '../protocols/catalog.js';
import { matchIgnoredFieldsOf, matchLabelledFieldsOf, writeOnlyFieldsOf as declaredWriteOnly } from '../protocols/field-roles.js';
import { FieldSpecs, formatPointer } from '../core/field-specs.js';
import { isJsonObject } from '../core/json.js';

/** Stands in for an ignored array element, so the positions of the others stay put. */
const IGNORED = '<ignored>';

/** The fields matching ignores for a protocol (the ids its client mints, timestamps), or none for an unknown protocol. */
export function volatileFieldsOf(protocol: ProtocolId | undefined): readonly string[] {
  return protocol === undefined ? [] : matchIgnoredFieldsOf(factsOf(protocol));
}

/** The fields matching compares by where their values recur (ids an earlier answer minted), or none for an unknown protocol. */
export function placeMatchedFieldsOf(protocol: ProtocolId | undefined): readonly string[] {
  return protocol === undefined ? [] : matchLabelledFieldsOf(factsOf(protocol));
}

/** The fields a protocol stores only as digests (its write-only fields): a recorded value there matches any. */
export function writeOnlyFieldsOf(protocol: ProtocolId | undefined): readonly string[] {
  return protocol === undefined ? [] : declaredWriteOnly(factsOf(protocol));
}

/**
 * The canonical form of a JSON value for matching: the fields in `drop` removed (array elements
 * replaced by a placeholder) and object keys sorted, so equal requests normalize to equal values.
 * A string or number at a place in `label` is replaced by `#1`, `#2` … in the order the walk
 * first meets each value, so two values match when they recur at the same places, whatever they are.
 */
export function normalizeJson(value: unknown, drop: FieldSpecs, label?: FieldSpecs): unknown {
  return walk(value, [], drop, label === undefined || label.empty ? undefined : { specs: label, labels: new Map() });
}

/** Normalizes with the protocol's volatile fields plus the user's `--ignore` specs, and labels its answer-minted ids. */
export function normalizerFor(protocol: ProtocolId | undefined, ignore: readonly string[]): (value: unknown) => unknown {
  const drop = new FieldSpecs([...volatileFieldsOf(protocol), ...ignore]);
  const label = new FieldSpecs(placeMatchedFieldsOf(protocol));
  return (value) => normalizeJson(value, drop, label);
}

/** The places whose values are labelled, and the labels given so far in one value. */
interface Labelling {
  specs: FieldSpecs;
  labels: Map<string | number, string>;
}

/** JSON text with sorted keys: equal for values that normalize equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'undefined';
}

/**
 * Where two JSON values differ, as JSON pointers (`''` = the whole value), in document order.
 * Stops after `limit` entries; a miss report needs the first few, not all.
 */
export function jsonDifferences(a: unknown, b: unknown, limit = 20): string[] {
  const out: string[] = [];
  diff(a, b, [], out, limit);
  // A key can be megabytes long: a miss report names where, it does not quote the key in full.
  return out.map((pointer) => (pointer.length <= MAX_POINTER_CHARS ? pointer : pointer.slice(0, MAX_POINTER_CHARS) + '…'));
}

/** Longest JSON pointer a miss report prints. */
const MAX_POINTER_CHARS = 200;

function walk(value: unknown, path: string[], drop: FieldSpecs, label: Labelling | undefined): unknown {
  if (Array.isArray(value)) {
    return value.map((item, i) => {
      const at = [...path, String(i)];
      return drop.matches(at) ? IGNORED : walk(item, at, drop, label);
    });
  }
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const at = [...path, key];
      if (!drop.matches(at)) out[key] = walk(value[key], at, drop, label);
    }
    return out;
  }
  if (label !== undefined && (typeof value === 'string' || typeof value === 'number') && label.specs.matches(path)) {
    let name = label.labels.get(value);
    if (name === undefined) label.labels.set(value, (name = `#${label.labels.size + 1}`));
    return name;
  }
  return value;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
    return out;
  }
  return value;
}

function diff(a: unknown, b: unknown, path: string[], out: string[], limit: number): void {
  if (out.length >= limit) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) out.push(formatPointer([...path, String(i)]));
      else diff(a[i], b[i], [...path, String(i)], out, limit);
      if (out.length >= limit) return;
    }
    return;
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      if (!(key in a) || !(key in b)) out.push(formatPointer([...path, key]));
      else diff(a[key], b[key], [...path, key], out, limit);
      if (out.length >= limit) return;
    }
    return;
  }
  if (!Object.is(a, b)) out.push(formatPointer(path));
}

