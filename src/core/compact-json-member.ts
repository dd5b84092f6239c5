import { CLOSE_ARRAY, CLOSE_OBJECT, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, stringLiteralEnd } from './json-scan.js';

/**
 * A member of a JSON object read from its text without parsing it: the text of the value of `key` in
 * the outermost object, or undefined when the text is no object or has no such member. Only for a text
 * isCompactJson accepts (valid, no white space, no repeated key, every key as JSON.stringify writes
 * it): so a key is compared as written, and a value's text is the one JSON.stringify gives of its
 * value (two equal strings have the same text). `key` must need no escape.
 *
 * It reads the outermost object's members in turn, skipping nested values with a count of brackets:
 * it tells a few top-level fields of a message (its type) for less than parsing all of it.
 */
export function compactJsonMember(text: string, key: string): string | undefined {
  return findMember(text, key) ? text.slice(found.start, found.end) : undefined;
}

/** Does the outermost object of a text isCompactJson accepts have a member `key`? (compactJsonMember, with no slice made.) */
export function hasCompactJsonMember(text: string, key: string): boolean {
  return findMember(text, key);
}

/**
 * compactJsonString of compactJsonMember: the string the member's value stands for, or undefined when
 * there is none or it is no string; sliced once from the text (a message's type, read once per message).
 */
export function compactJsonStringMember(text: string, key: string): string | undefined {
  if (!findMember(text, key) || text.charCodeAt(found.start) !== QUOTE) return undefined;
  const { start, end } = found;
  const escape = text.indexOf('\\', start);
  return escape >= 0 && escape < end ? (JSON.parse(text.slice(start, end)) as string) : text.slice(start + 1, end - 1);
}

/** Where findMember found the value's text (one for every call: this runs once per message of an export). */
const found = { start: 0, end: 0 };

/** Finds the member `key` of the outermost object (compactJsonMember): true, with its value's text at `found`; else false. */
function findMember(text: string, key: string): boolean {
  if (text.charCodeAt(0) !== OPEN_OBJECT || text.charCodeAt(1) === CLOSE_OBJECT) return false;
  // A member is `"key":` in the text: where that is nowhere (one native search), it has none, and
  // its members are not read (a lookup of one a message lacks, `error` in a token chunk, reads them
  // all). Found, it may still be a nested member's, or inside a string (`\"key\":`).
  if (!text.includes(memberHead(key))) return false;
  for (let at = 1; ; ) {
    // A key starts at `at`, its value after the closing quote and the colon.
    const keyEnd = stringLiteralEnd(text, at);
    const start = keyEnd + 1;
    const end = valueEnd(text, start);
    if (keyEnd - at - 2 === key.length && text.startsWith(key, at + 1)) {
      found.start = start;
      found.end = end;
      return true;
    }
    if (text.charCodeAt(end) !== COMMA) return false;
    at = end + 1;
  }
}

/**
 * The string a member's value text (compactJsonMember) stands for, or undefined when it is no string:
 * as JSON.parse reads it, without parsing when it holds no escape.
 */
export function compactJsonString(value: string | undefined): string | undefined {
  if (value === undefined || value.charCodeAt(0) !== QUOTE) return undefined;
  return value.includes('\\') ? (JSON.parse(value) as string) : value.slice(1, -1);
}

/** `"key":`, made once per key (a few are looked up, once per message). */
function memberHead(key: string): string {
  let head = memberHeads.get(key);
  if (head === undefined) {
    head = `"${key}":`;
    if (memberHeads.size < 100) memberHeads.set(key, head);
  }
  return head;
}

const memberHeads = new Map<string, string>();

/** Where the value starting at `at` ends, in a compact JSON text. */
function valueEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return stringLiteralEnd(text, at);
  if (c !== OPEN_OBJECT && c !== OPEN_ARRAY) {
    // A number or literal: up to the comma or bracket that follows it.
    let end = at + 1;
    for (let d = text.charCodeAt(end); d !== COMMA && d !== CLOSE_OBJECT && d !== CLOSE_ARRAY; d = text.charCodeAt(++end));
    return end;
  }
  let depth = 0;
  for (let i = at; ; i++) {
    const d = text.charCodeAt(i);
    if (d === QUOTE) i = stringLiteralEnd(text, i) - 1;
    else if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
    else if ((d === CLOSE_OBJECT || d === CLOSE_ARRAY) && --depth === 0) return i + 1;
  }
}
