const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Does this JSON text nest arrays and objects more than `max` levels deep? A scan of the bytes,
 * without parsing or recursion: JSON.parse takes any depth, but the recursive walks that come after
 * it (normalizing, comparing, JSON.stringify itself) overflow the stack a few thousand levels down.
 * Text shorter than two bytes per level cannot be that deep and is not scanned.
 */
export function nestsDeeperThan(text: Uint8Array, max: number): boolean {
  if (text.length <= 2 * max) return false;
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
