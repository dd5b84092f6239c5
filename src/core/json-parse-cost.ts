import { BACKSLASH, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-scan.js';

/** What one character of JSON can count for at most, in heap bytes (a `{`: see below). */
const MAX_COST_PER_CHAR = 97;

/**
 * About how much JS heap `JSON.parse(text)` would take, in bytes, erring high; or 0 when even the
 * worst text of this length stays within `budget`, which is then not looked at.
 *
 * Parsed JSON can take thirty times its text: `[[[[…]]]]` is an array per two characters,
 * `[{},{},…]` an object per three, each tens of bytes. So a legal ten-megabyte message can need
 * more memory than the recorder has. The estimate counts, outside strings, what V8 allocates for:
 * 96 bytes per object, 80 per array, 32 per element (a `,`), 64 per member (a `:`, which may bring
 * a new key and a new hidden class), 48 per string, plus the characters themselves. Measured on V8
 * (Node 20) it is 1.2 to 8 times the real size of the shapes that cost the most per character.
 */
export function jsonParseCost(text: string, budget: number): number {
  if (text.length * MAX_COST_PER_CHAR <= budget) return 0;
  let cost = text.length;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++; // the next character is escaped
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      cost += 48;
    } else if (c === OPEN_OBJECT) cost += 96;
    else if (c === OPEN_ARRAY) cost += 80;
    else if (c === COLON) cost += 64;
    else if (c === COMMA) cost += 32;
  }
  return cost;
}
