import { CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, stringLiteralEnd } from '../core/json-scan.js';
import { isStoredRedaction, REDACTED_JSON } from '../core/redacted.js';
import type { FieldRules, RuleState } from './field-rules.js';

/** A value's place in a text: [start, end) in UTF-16 code units. */
export type Span = readonly [start: number, end: number];

/**
 * Where the values of secret fields are in a JSON text, in order: the spans that `spliceSpans`
 * replaces with `"<redacted>"`, leaving every other character as it was (spacing, escapes, number
 * spelling, duplicate keys). Values that cannot carry a secret (`null`, booleans) and values already
 * `"<redacted>"` are left alone.
 *
 * A scanner, not a parser: it keeps its own stack (any nesting depth is fine) and stops quietly at
 * the end of the text, so a message stored truncated still has the secrets in its kept start found;
 * a secret cut off by the end is replaced up to the end. With `keys`, the key (or array index) of
 * each span's value is pushed there, in the same order.
 */
export function secretFieldSpans(text: string, rules: FieldRules, from = 0, keys?: string[]): Span[] {
  const spans: Span[] = [];
  /** Per open container: the key it is the value of ('' at the top). */
  const containerKeys: string[] = [];
  /** The key (or index) of the value being read, for `keys`. */
  let key = '';
  const n = text.length;
  /** Per open container: is it an array, its rule state, its next index. */
  const arrays: boolean[] = [];
  const states: RuleState[] = [];
  const indices: number[] = [];
  let i = skipSpace(text, from);
  let state = rules.root;
  let secret = false;
  for (;;) {
    // At a value.
    if (i >= n) return spans;
    const c = text.charCodeAt(i);
    if (secret && c !== 0x6e /* n */ && c !== 0x74 /* t */ && c !== 0x66 /* f */ && !(c === OPEN_OBJECT && SCHEMA_MAPS.has(containerKeys[containerKeys.length - 1]))) {
      const end = skipValue(text, i);
      if (!isStoredLiteral(text, i, end)) {
        spans.push([i, end]);
        keys?.push(key);
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const isArray = c === OPEN_ARRAY;
      i = skipSpace(text, i + 1);
      if (text.charCodeAt(i) === (isArray ? CLOSE_ARRAY : CLOSE_OBJECT)) i++;
      else {
        arrays.push(isArray);
        states.push(state);
        indices.push(0);
        containerKeys.push(key);
        const next = isArray ? rules.step(state, 0) : objectMember(text, i, rules, state);
        if (next === undefined) return spans;
        ({ state, secret } = next);
        key = isArray ? '0' : (next as Member).key;
        if (!isArray) i = (next as Member).at;
        continue;
      }
    } else {
      i = c === QUOTE ? skipString(text, i) : skipScalar(text, i);
    }
    // After a value: close containers, or move on to the next member.
    for (;;) {
      i = skipSpace(text, i);
      const top = arrays.length - 1;
      if (top < 0 || i >= n) return spans;
      const d = text.charCodeAt(i);
      if (d === CLOSE_OBJECT || d === CLOSE_ARRAY) {
        i++;
        arrays.pop();
        states.pop();
        indices.pop();
        containerKeys.pop();
        continue;
      }
      if (d !== COMMA) return spans;
      i = skipSpace(text, i + 1);
      if (arrays[top]) {
        ({ state, secret } = rules.step(states[top], ++indices[top]));
        key = String(indices[top]);
      } else {
        const member = objectMember(text, i, rules, states[top]);
        if (member === undefined) return spans;
        ({ state, secret, key } = member);
        i = member.at;
      }
      break;
    }
  }
}

/**
 * The JSON Schema keywords whose members are named by the properties they describe: under them an
 * object is a property's schema (`"apiKey": {"type": "string"}` in a tool's inputSchema), not a
 * secret's value, and replacing it would take the schema from every later reader (validate would
 * find the tool's schema broken where record did not). A scalar there is still replaced.
 */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

interface Member {
  state: RuleState;
  secret: boolean;
  key: string;
  /** Where the member's value starts. */
  at: number;
}

/** Reads `"key" :` at `i`; undefined when the text is not that (malformed or cut off). */
function objectMember(text: string, i: number, rules: FieldRules, parent: RuleState): Member | undefined {
  if (text.charCodeAt(i) !== QUOTE) return undefined;
  const end = skipString(text, i);
  if (end > text.length || text.charCodeAt(end - 1) !== QUOTE) return undefined;
  const literal = text.slice(i, end);
  let key: string;
  try {
    key = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
  } catch {
    return undefined;
  }
  const colon = skipSpace(text, end);
  if (text.charCodeAt(colon) !== COLON) return undefined;
  const { state, secret } = rules.step(parent, key);
  return { state, secret, key, at: skipSpace(text, colon + 1) };
}

/** A string literal that is already a stored redaction (the marker, a keyed digest): nothing to replace. */
function isStoredLiteral(text: string, start: number, end: number): boolean {
  return text.charCodeAt(start) === QUOTE && end - start <= 80 && text.charCodeAt(end - 1) === QUOTE && isStoredRedaction(text.slice(start + 1, end - 1));
}

/** The end of the string literal opening at `i` (after its closing quote), or the text's length. */
function skipString(text: string, i: number): number {
  const end = stringLiteralEnd(text, i);
  return end < 0 ? text.length : end;
}

/** The end of the value starting at `i`, nested containers included, or the text's length. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return skipString(text, i);
  if (c !== OPEN_OBJECT && c !== OPEN_ARRAY) return skipScalar(text, i);
  let depth = 0;
  for (let j = i; j < text.length; ) {
    const d = text.charCodeAt(j);
    if (d === QUOTE) {
      j = skipString(text, j);
      continue;
    }
    if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
    else if ((d === CLOSE_OBJECT || d === CLOSE_ARRAY) && --depth === 0) return j + 1;
    j++;
  }
  return text.length;
}

function skipScalar(text: string, i: number): number {
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c)) break;
    j++;
  }
  return j === i ? i + 1 : j;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** `text` with each span replaced by `"<redacted>"`. */
export function spliceSpans(text: string, spans: readonly Span[]): string {
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    out += text.slice(from, start) + REDACTED_JSON;
    from = end;
  }
  return out + text.slice(from);
}
