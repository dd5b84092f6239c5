/**
 * What the scanners that read JSON text without parsing it share (the depth check, the secret-field
 * spans, the parse-cost estimate): the structural characters, and where a string literal ends.
 */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;

/**
 * Where the string literal opening at `open` ends: just after its closing quote, or -1 when the text
 * ends first. Quotes are found with indexOf, which matters for text-heavy messages; one is closing
 * when an even number of backslashes stands before it.
 */
export function stringLiteralEnd(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let b = quote - 1; b > open && text.charCodeAt(b) === BACKSLASH; b--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}
