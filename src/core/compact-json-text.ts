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
  return isCompactJsonIn(text, 0, text.length);
}

/**
 * isCompactJson of text[start, end), read in place: a reader's row holds a message's JSON text inside
 * its raw text, and a character of a flat string is read faster than one of a slice of it (a slice
 * finds its parent for every character), so the text is not sliced to be scanned.
 */
export function isCompactJsonIn(text: string, start: number, end: number): boolean {
  let depth = 0;
  // What a deeply nested text grew is let go; the usual few levels are kept.
  if (open.length > KEPT_LEVELS) open.length = 0;
  keys.clear();
  let at = start;
  for (;;) {
    // A value starts at `at`.
    const c = text.charCodeAt(at);
    if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      const close = c === OPEN_ARRAY ? CLOSE_ARRAY : CLOSE_OBJECT;
      if (text.charCodeAt(at + 1) === close) at += 2;
      else {
        open[depth++] = c;
        at++;
        if (c === OPEN_OBJECT) {
          keys.open();
          at = memberValueStart(text, at, end, keys);
          if (at < 0) return false;
        }
        continue;
      }
    } else {
      at = scalarEnd(text, at, end);
      if (at < 0) return false;
    }
    // A value ended at `at`: close what it ends, then the next item, or the end of the text.
    for (;;) {
      if (depth === 0) return at === end;
      const top = open[depth - 1];
      const c = text.charCodeAt(at);
      if (c === COMMA) {
        at++;
        if (top === OPEN_OBJECT) {
          at = memberValueStart(text, at, end, keys);
          if (at < 0) return false;
        }
        break;
      }
      if (c !== (top === OPEN_ARRAY ? CLOSE_ARRAY : CLOSE_OBJECT)) return false;
      at++;
      depth--;
      if (top === OPEN_OBJECT) keys.close();
    }
  }
}

/**
 * The open arrays and objects, innermost last, up to the scan's depth (one for every scan: this runs
 * once per message of an export; a depth counter, not the array's length, which is a slow write).
 */
const open: number[] = [];
const KEPT_LEVELS = 1024;

/**
 * Reads a member's `"key":` at `at` and returns where its value starts, or -1: the key is not in
 * JSON.stringify's form, is all digits (an array index, which JSON.parse puts first), or repeats one
 * of the innermost object's keys (JSON.parse keeps the last value, in the first one's place).
 */
function memberValueStart(text: string, at: number, textEnd: number, keys: ObjectKeys): number {
  if (text.charCodeAt(at) !== QUOTE) return -1;
  const end = stringEnd(text, at, textEnd);
  if (end < 0 || text.charCodeAt(end) !== COLON) return -1;
  if (isDigits(text, at + 1, end - 1) || !keys.add(text, at + 1, end - 1)) return -1;
  return end + 1;
}

function isDigits(text: string, start: number, end: number): boolean {
  if (start === end) return false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * The keys of the open objects, to tell a repeated one, kept as where they are in the text (a key
 * is compared as written: JSON.stringify's form of a key is the only one this scan takes), so that
 * most keys cost no string of their own: an object of a few keys compares a new key with each, and
 * one of more keeps a set of them.
 */
class ObjectKeys {
  /** Start and end of each key of the open objects, innermost object's last, up to `used`. */
  private readonly offsets: number[] = [];
  private used = 0;
  /** Per open object, up to `objects`: where its keys start in `offsets`, and its set once it has more than FEW_KEYS. */
  private readonly bases: number[] = [];
  private readonly sets: Array<Set<string> | undefined> = [];
  private objects = 0;

  clear(): void {
    this.used = 0;
    // A set an earlier scan left is let go (most scans make none).
    for (let i = 0; i < this.objects; i++) this.sets[i] = undefined;
    this.objects = 0;
    if (this.bases.length > KEPT_LEVELS) this.bases.length = this.sets.length = 0;
  }

  open(): void {
    this.bases[this.objects] = this.used;
    this.sets[this.objects++] = undefined;
  }

  close(): void {
    this.used = this.bases[--this.objects]!;
    this.sets[this.objects] = undefined;
  }

  /** Adds the innermost object's key text[start, end); false when the object has it already. */
  add(text: string, start: number, end: number): boolean {
    const top = this.objects - 1;
    const set = this.sets[top];
    if (set !== undefined) {
      const key = text.slice(start, end);
      if (set.has(key)) return false;
      set.add(key);
      return true;
    }
    const base = this.bases[top];
    const offsets = this.offsets;
    for (let i = base; i < this.used; i += 2) if (sameText(text, offsets[i], offsets[i + 1], start, end)) return false;
    offsets[this.used++] = start;
    offsets[this.used++] = end;
    if (this.used - base > 2 * FEW_KEYS) {
      const all = new Set<string>();
      for (let i = base; i < this.used; i += 2) all.add(text.slice(offsets[i], offsets[i + 1]));
      this.sets[top] = all;
      this.used = base;
    }
    return true;
  }
}

const keys = new ObjectKeys();

/** Up to this many keys an object's new key is compared with each; past it, looked up in a set. */
const FEW_KEYS = 16;

function sameText(text: string, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let i = 0; i < aEnd - aStart; i++) if (text.charCodeAt(aStart + i) !== text.charCodeAt(bStart + i)) return false;
  return true;
}

/** Where the literal, number or string at `at` ends (before `textEnd`), when JSON.stringify would write it so; else -1. */
function scalarEnd(text: string, at: number, textEnd: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return stringEnd(text, at, textEnd);
  if (c === 0x74) return at + 4 <= textEnd && text.startsWith('true', at) ? at + 4 : -1;
  if (c === 0x66) return at + 5 <= textEnd && text.startsWith('false', at) ? at + 5 : -1;
  if (c === 0x6e) return at + 4 <= textEnd && text.startsWith('null', at) ? at + 4 : -1;
  let end = at;
  let digitsOnly = true;
  for (; end < textEnd; end++) {
    const d = text.charCodeAt(end);
    if (d >= 0x30 && d <= 0x39) continue;
    if (d === 0x2d && end === at) continue;
    if (d === 0x2b || d === 0x2d || d === 0x2e || d === 0x45 || d === 0x65) digitsOnly = false;
    else break;
  }
  if (end === at) return -1;
  // An integer of up to 15 digits and no leading zero is written back as it is; anything else is
  // checked the long way: what Number() reads and String() writes back the same is a JSON number in
  // its shortest form (-0, 1.0, 1e400 and non-numbers come back otherwise).
  const first = c === 0x2d ? at + 1 : at;
  const digits = end - first;
  if (digitsOnly && digits > 0 && digits <= 15 && (text.charCodeAt(first) !== 0x30 ? true : digits === 1 && c !== 0x2d)) return end;
  const token = text.slice(at, end);
  return String(Number(token)) === token ? end : -1;
}

/**
 * Where the string literal at `at` ends (after its closing quote, before `textEnd`) when JSON.stringify
 * would write it so, else -1: no control character or lone surrogate written as it is, and only the
 * escapes it uses (\" \\ \b \f \n \r \t, and \u00xx in lower case for the other control characters).
 */
function stringEnd(text: string, at: number, textEnd: number): number {
  for (let i = at + 1; i < textEnd; i++) {
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
