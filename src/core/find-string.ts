import { pointerToken } from './finding.js';

/**
 * The pointer of the first string (or key) that contains `needle`, in document order. Walks with its
 * own stack: a peer decides how deep the value nests.
 */
export function findString(value: unknown, needle: string): string | undefined {
  if (typeof value === 'string') return value.includes(needle) ? '' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  const stack: Array<{ container: object; keys?: string[]; next: number; pointer: string }> = [];
  const open = (container: object, pointer: string) =>
    stack.push({ container, keys: Array.isArray(container) ? undefined : Object.keys(container), next: 0, pointer });
  open(value, '');
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const size = frame.keys ? frame.keys.length : (frame.container as unknown[]).length;
    if (frame.next >= size) {
      stack.pop();
      continue;
    }
    const i = frame.next++;
    const key = frame.keys ? frame.keys[i] : i;
    const pointer = `${frame.pointer}/${typeof key === 'string' ? pointerToken(key) : key}`;
    if (typeof key === 'string' && key.includes(needle)) return pointer;
    const child = (frame.container as Record<string | number, unknown>)[key];
    if (typeof child === 'string') {
      if (child.includes(needle)) return pointer;
    } else if (child !== null && typeof child === 'object') {
      open(child, pointer);
    }
  }
  return undefined;
}
