import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-scan.js';

/**
 * Is this a JSON text that JSON.stringify(JSON.parse(text)) writes back unchanged? One scan of the
 * text with a stack of its own, at any depth: a message nested 100,000 levels deep is usually in that
 * form already, and parsing it only to write it again through stringifyJson's loop costs a hundred
 * times more. True only for a valid JSON text; false whenever the round trip might change it, also
 * where it would not (a key of digits, which JSON.parse may move ahead of the others; an escape
 * JSON.stringify would not write; a lone surrogate): then the caller takes the long way.
 */
export function isCompactJson(text: string): boolean {
  /** The open arrays and objects, innermost last. */
  const open: number[] = [];
  /** Per open object: the keys it has so far (none, one, or more). */
  const keys: Array<string | Set<string> | undefined> = [];
  let at = 0;
  for (;;) {
    // A value starts at `at`.
    const c = text.charCodeAt(at);
    if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      const close = c === OPEN_ARRAY ? CLOSE_ARRAY : CLOSE_OBJECT;
      if (text.charCodeAt(at + 1) === close) at += 2;
      else {
        open.push(c);
        at++;
        if (c === OPEN_OBJECT) {
          keys.push(undefined);
          at = memberValueStart(text, at, keys);
          if (at < 0) return false;
        }
        continue;
      }
    } else {
      at = scalarEnd(text, at);
      if (at < 0) return false;
    }
    // A value ended at `at`: close what it ends, then the next item, or the end of the text.
    for (;;) {
      if (open.length === 0) return at === text.length;
      const top = open[open.length - 1];
      const c = text.charCodeAt(at);
      if (c === COMMA) {
        at++;
        if (top === OPEN_OBJECT) {
          at = memberValueStart(text, at, keys);
          if (at < 0) return false;
        }
        break;
      }
      if (c !== (top === OPEN_ARRAY ? CLOSE_ARRAY : CLOSE_OBJECT)) return false;
      at++;
      open.pop();
      if (top === OPEN_OBJECT) keys.pop();
    }
  }
}

/**
 * Reads a member's `"key":` at `at` and returns where its value starts, or -1: the key is not in
 * JSON.stringify's form, is all digits (an array index, which JSON.parse puts first), or repeats one
 * of the innermost object's keys (JSON.parse keeps the last value, in the first one's place).
 */
function memberValueStart(text: string, at: number, keys: Array<string | Set<string> | undefined>): number {
  if (text.charCodeAt(at) !== QUOTE) return -1;
  const end = stringEnd(text, at);
  if (end < 0 || text.charCodeAt(end) !== COLON) return -1;
  const key = text.slice(at + 1, end - 1);
  if (isDigits(key)) return -1;
  const top = keys.length - 1;
  const seen = keys[top];
  if (seen === undefined) keys[top] = key;
  else if (typeof seen === 'string') {
    if (seen === key) return -1;
    keys[top] = new Set([seen, key]);
  } else {
    if (seen.has(key)) return -1;
    seen.add(key);
  }
  return end + 1;
}

function isDigits(key: string): boolean {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** Where the literal, number or string at `at` ends, when JSON.stringify would write it so; else -1. */
function scalarEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return stringEnd(text, at);
  for (const word of WORDS) if (text.startsWith(word, at)) return at + word.length;
  let end = at;
  while (end < text.length && NUMBER_CHARS.includes(text[end])) end++;
  if (end === at) return -1;
  // What Number() reads and String() writes back the same is a JSON number in its shortest form
  // (-0, 1.0, 1e400 and non-numbers come back otherwise).
  const token = text.slice(at, end);
  return String(Number(token)) === token ? end : -1;
}

const WORDS = ['true', 'false', 'null'];
const NUMBER_CHARS = '-+.0123456789eE';

/**
 * Where the string literal at `at` ends (after its closing quote) when JSON.stringify would write it
 * so, else -1: no control character or lone surrogate written as it is, and only the escapes it uses
 * (\" \\ \b \f \n \r \t, and \u00xx in lower case for the other control characters).
 */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      const escaped = text[i + 1];
      if (escaped === 'u') {
        const code = text.slice(i + 2, i + 6);
        if (!/^00[01][0-9a-f]$/.test(code) || SHORT_ESCAPES.has(Number.parseInt(code, 16))) return -1;
        i += 5;
      } else if (SIMPLE_ESCAPES.includes(escaped)) i++;
      else return -1;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // A pair is written as it is; a lone surrogate is escaped.
      const next = text.charCodeAt(i + 1);
      if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return -1;
      i++;
    }
  }
  return -1;
}

const SIMPLE_ESCAPES = '"\\bfnrt';
/** Control characters JSON.stringify writes with a short escape (\b \t \n \f \r), never as \u00xx. */
const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);
