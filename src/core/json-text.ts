import { isCompactJson } from './compact-json-text.js';

/**
 * JSON.stringify for values of any depth, with the same output. The native one is tried first; it
 * throws a RangeError a few thousand levels down (fewer on a worker's stack), and then the value is
 * written again by a loop with a stack of its own. For what is stored and printed (a recorded
 * message, an export line), where a peer decides how deep the value is.
 */
export function stringifyJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) throw error;
  }
  return stringifyIteratively(value);
}

/** An open array or object being written: its items (or keys) and how far it got. */
interface Frame {
  container: unknown[] | Record<string, unknown>;
  /** Keys of an object; undefined for an array. */
  keys?: string[];
  next: number;
  /** Whether an item was written yet (objects skip members whose value has no JSON form). */
  wrote: boolean;
}

/** What `JSON.stringify(value)` writes for a value that is no array or plain object; undefined when it has no JSON form. */
function leafText(value: unknown): string | undefined {
  return JSON.stringify(value);
}

/** Arrays and objects without a toJSON of their own are opened by the loop; everything else is a leaf. */
function isOpenable(value: unknown): value is unknown[] | Record<string, unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

function stringifyIteratively(root: unknown): string | undefined {
  if (!isOpenable(root)) return leafText(root);
  const parts: string[] = [];
  const stack: Frame[] = [];
  const open = (container: unknown[] | Record<string, unknown>) => {
    const isArray = Array.isArray(container);
    parts.push(isArray ? '[' : '{');
    stack.push({ container, keys: isArray ? undefined : Object.keys(container), next: 0, wrote: false });
  };
  open(root);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.keys === undefined) {
      const items = frame.container as unknown[];
      if (frame.next >= items.length) {
        parts.push(']');
        stack.pop();
        continue;
      }
      const item = items[frame.next++];
      if (frame.wrote) parts.push(',');
      frame.wrote = true;
      if (isOpenable(item)) open(item);
      // In an array, a value with no JSON form (undefined, a function) is written as null.
      else parts.push(leafText(item) ?? 'null');
      continue;
    }
    if (frame.next >= frame.keys.length) {
      parts.push('}');
      stack.pop();
      continue;
    }
    const key = frame.keys[frame.next++];
    const item = (frame.container as Record<string, unknown>)[key];
    const text = isOpenable(item) ? undefined : leafText(item);
    // In an object, a member whose value has no JSON form is left out.
    if (!isOpenable(item) && text === undefined) continue;
    parts.push(frame.wrote ? ',' : '', JSON.stringify(key), ':');
    frame.wrote = true;
    if (isOpenable(item)) open(item);
    else parts.push(text!);
  }
  return parts.join('');
}

/**
 * A JSON text written as JSON.stringify writes its value (no spacing, numbers and escapes in their
 * shortest form), at any depth: what two texts of the same value have in common. A text already in
 * that form is returned as it is, without being parsed and written again.
 */
export function compactJson(text: string): string {
  return isCompactJson(text) ? text : stringifyJson(JSON.parse(text))!;
}
