import { SerialisedJson } from '../core/serialised-json.js';

/** RFC 9110 §7.6.1 hop-by-hop headers: they describe one connection and are never forwarded. */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

/** Lengths of the hop-by-hop names: a name of another length needs no lower-casing to be kept. */
const HOP_BY_HOP_LENGTHS = lengthsOf(HOP_BY_HOP);

/**
 * Copies raw headers (name/value pairs, original case and order) minus hop-by-hop headers,
 * including any the Connection header names. `host` is replaced when `host` is given.
 */
export function endToEndHeaders(rawHeaders: string[], options: { host?: string; drop?: readonly string[] } = {}): string[] {
  // Runs twice per proxied request: the shared sets are copied only when something is added to them.
  let dropped = HOP_BY_HOP;
  let lengths = HOP_BY_HOP_LENGTHS;
  const add = (name: string) => {
    if (dropped.has(name)) return;
    if (dropped === HOP_BY_HOP) {
      dropped = new Set(HOP_BY_HOP);
      lengths = new Set(HOP_BY_HOP_LENGTHS);
    }
    (dropped as Set<string>).add(name);
    (lengths as Set<number>).add(name.length);
  };
  for (const name of options.drop ?? []) add(name);
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (isNamed(rawHeaders[i], 'connection')) {
      for (const token of rawHeaders[i + 1].split(',')) add(token.trim().toLowerCase());
    }
  }
  const replaceHost = options.host !== undefined;
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    // Most names are kept as they are: lower-case only those whose length could match.
    if (lengths.has(name.length) && dropped.has(name.toLowerCase())) continue;
    out.push(name, replaceHost && isNamed(name, 'host') ? options.host! : rawHeaders[i + 1]);
  }
  return out;
}

/** Replaces header values that must not be stored (HeaderRedactor). */
export interface HeaderValueFilter {
  /** `name`: the header name in any case. */
  storedValue(name: string, value: string): string;
}

/**
 * Raw header pairs as a record for storage: repeated names become arrays; names keep their first
 * spelling. `filter` replaces values on the way, so redacting needs no copy of the list.
 */
export function headerRecord(rawHeaders: string[], filter?: HeaderValueFilter): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const byLower = rawHeaders.length > 2 * MAX_COMPARED_HEADERS ? new Map<string, string>() : undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const raw = rawHeaders[i];
    const value = filter ? filter.storedValue(raw, rawHeaders[i + 1]) : rawHeaders[i + 1];
    const name = byLower ? firstSpellingIn(byLower, raw) : firstSpellingBefore(rawHeaders, i);
    if (name === raw && !Object.hasOwn(out, raw)) {
      // A header may be called `__proto__`: it must become a field, not the record's prototype.
      if (raw === '__proto__') Object.defineProperty(out, '__proto__', { value, enumerable: true, writable: true, configurable: true });
      else out[raw] = value;
      continue;
    }
    const existing = out[name];
    out[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/**
 * Raw header pairs as stored (redacted by capture), standing for their record: its JSON text and the
 * record itself are made from the pairs when first asked for. Capture hands the recorder headers so:
 * the pairs cross to the recording worker as they are (cheaper to serialise than the record or its
 * text), the worker's store writes the text, and only a checker that reads a header makes the record.
 */
export class HeaderPairs extends SerialisedJson<Record<string, string | string[]>> {
  private madeText: string | undefined;
  private made: Record<string, string | string[]> | undefined;

  constructor(readonly pairs: string[]) {
    super();
  }

  get text(): string {
    return (this.madeText ??= headerRecordJson(this.pairs));
  }

  get value(): Record<string, string | string[]> {
    return (this.made ??= headerRecord(this.pairs));
  }
}

/**
 * `JSON.stringify(headerRecord(rawHeaders, filter))`, the same text, written from the pairs without
 * making the record first: HeaderPairs writes its text so. Pairs
 * whose record would differ from them in order or shape (a repeated name, a name that is an array
 * index, which an object lists first, or `__proto__`) take the record's way.
 */
export function headerRecordJson(rawHeaders: string[], filter?: HeaderValueFilter): string {
  let out = '{';
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    const first = name.charCodeAt(0);
    if ((first >= 0x30 && first <= 0x39) || name === '__proto__') return JSON.stringify(headerRecord(rawHeaders, filter));
    for (let j = 0; j < i; j += 2) if (sameName(rawHeaders[j], name)) return JSON.stringify(headerRecord(rawHeaders, filter));
    const value = filter ? filter.storedValue(name, rawHeaders[i + 1]) : rawHeaders[i + 1];
    // One concatenation per pair when neither needs escaping (the usual header): the recorder
    // writes this text for both sides of every exchange, and each quoted piece is a string to collect.
    if (!NOT_PLAIN.test(name) && !NOT_PLAIN.test(value)) out += (i === 0 ? '"' : ',"') + name + '":"' + value + '"';
    else out += `${i === 0 ? '' : ','}${jsonString(name)}:${jsonString(value)}`;
  }
  return out + '}';
}

/** Characters JSON.stringify writes otherwise than as themselves, and any beyond ASCII (left to it). */
const NOT_PLAIN = /["\\\x00-\x1f\x7f-\uffff]/;

/** A string as JSON.stringify writes it; most header names and values need no escaping. */
function jsonString(text: string): string {
  return NOT_PLAIN.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** Past this many headers (a hostile client), first spellings are found through a map, not by comparing with each earlier name. */
const MAX_COMPARED_HEADERS = 32;

/**
 * The first spelling of the name at `i` among the pairs before it (itself, the first time). A request
 * has a dozen headers or so: comparing with the earlier names, lengths first, is cheaper than
 * lower-casing every name into a map.
 */
function firstSpellingBefore(rawHeaders: readonly string[], i: number): string {
  const name = rawHeaders[i];
  for (let j = 0; j < i; j += 2) if (sameName(rawHeaders[j], name)) return rawHeaders[j];
  return name;
}

/** The first spelling of `name` in `byLower` (its own, recorded, the first time). */
function firstSpellingIn(byLower: Map<string, string>, name: string): string {
  const lower = name.toLowerCase();
  const first = byLower.get(lower);
  if (first !== undefined) return first;
  byLower.set(lower, name);
  return name;
}

/** Two header names equal in any case, compared without lower-casing either when both are ASCII (as names are). */
function sameName(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  if (a === b) return true;
  for (let k = 0; k < a.length; k++) {
    const x = a.charCodeAt(k);
    const y = b.charCodeAt(k);
    if (x === y) continue;
    if (x >= 0x80 || y >= 0x80) return a.toLowerCase() === b.toLowerCase();
    if ((x | 0x20) !== (y | 0x20) || (x | 0x20) < 0x61 || (x | 0x20) > 0x7a) return false;
  }
  return true;
}

/** Case-insensitive lookup of the first value of a header in a raw header list. */
export function rawHeader(rawHeaders: string[], name: string): string | undefined {
  const lower = name.toLowerCase();
  for (let i = 0; i < rawHeaders.length; i += 2) if (isNamed(rawHeaders[i], lower)) return rawHeaders[i + 1];
  return undefined;
}

/** True when header `name` is `lower` in any case; compares lengths first, so most names cost no allocation. */
function isNamed(name: string, lower: string): boolean {
  return name.length === lower.length && (name === lower || name.toLowerCase() === lower);
}

/** The lengths of `names`: a name of any other length is none of them, with no need to lower-case it. */
export function lengthsOf(names: Iterable<string>): ReadonlySet<number> {
  return new Set([...names].map((name) => name.length));
}
