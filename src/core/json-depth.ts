import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, OPEN_ARRAY, OPEN_OBJECT, QUOTE, stringLiteralEnd } from './json-scan.js';

/**
 * How deep a JSON message may nest arrays and objects and still be walked: judged, redacted by
 * value, normalized, compared, materialized, shown. JSON.parse takes any depth, but the recursive
 * walks that come after it (JSON.stringify itself among them) overflow the stack a few thousand
 * levels down, fewer on a worker's smaller stack. No real message nests anywhere near this deep; one
 * that does is kept and passed on as its text, byte for byte, and never walked.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * Does this JSON text nest arrays and objects more than `max` levels deep? A scan of the text,
 * without parsing or recursion. Text shorter than two characters per level cannot be that deep and
 * is not scanned.
 */
export function nestsDeeperThan(text: Uint8Array | string, max: number): boolean {
  if (text.length <= 2 * max) return false;
  return typeof text === 'string' ? stringNestsDeeperThan(text, max) : bytesNestDeeperThan(text, max);
}

/** Is this JSON text too deep to walk (deeper than MAX_JSON_DEPTH)? */
export function tooDeepToWalk(text: Uint8Array | string): boolean {
  return nestsDeeperThan(text, MAX_JSON_DEPTH);
}

/**
 * Does this parsed value nest arrays and objects more than `max` levels deep? For values that came
 * without their text (a decoded protobuf event, a state built by patches). Walks with its own stack.
 */
export function valueNestsDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [container, depth] = stack.pop()!;
    if (depth > max) return true;
    const items = Array.isArray(container) ? container : Object.values(container);
    for (const item of items) if (item !== null && typeof item === 'object') stack.push([item, depth + 1]);
  }
  return false;
}

function bytesNestDeeperThan(text: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** The same over a string; strings are skipped with indexOf, which matters for text-heavy messages. */
function stringNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringLiteralEnd(text, i);
      if (end < 0) return false;
      i = end - 1;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/**
 * A copy of a parsed value cut at `max` levels: arrays and objects that would nest deeper are null.
 * What a recursive walk can take of a message too deep to walk whole: its top, where ids, types and
 * methods are. Copies with its own stack.
 */
export function cutBelow(value: unknown, max: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  const emptyLike = (source: object) => (Array.isArray(source) ? [] : {}) as Record<string, unknown>;
  const root = emptyLike(value);
  const stack: Array<[source: object, copy: Record<string, unknown>, depth: number]> = [[value, root, 1]];
  while (stack.length > 0) {
    const [source, copy, depth] = stack.pop()!;
    for (const key of Object.keys(source)) {
      const item = (source as Record<string, unknown>)[key];
      if (item === null || typeof item !== 'object') copy[key] = item;
      else if (depth >= max) copy[key] = null;
      else {
        const child = emptyLike(item);
        copy[key] = child;
        stack.push([item, child, depth + 1]);
      }
    }
  }
  return root;
}
