import type { Headers } from './store-types.js';

/** A header of a stored exchange by its lower-case name; repeated values joined as one line (`a, b`). */
export function storedHeader(headers: Headers | null, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}
