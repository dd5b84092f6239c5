import { REDACTED, REDACTED_IN_QUERY } from '../core/redacted.js';
import type { FieldSpecs } from '../core/field-specs.js';

/**
 * A recording keeps no secret: a redacted query parameter value, JSON field or write-only value
 * (a Pi session env digest) is stored in place of what the client sent. Such a recorded value
 * matches any live value: before comparing, the live value at the same place is replaced by the
 * recorded one, and counted, so the served line can say how many redacted values matched any.
 */

/** The names of the query parameters whose recorded value is the redaction marker. */
export function redactedQueryNames(query: string): string[] {
  const names: string[] = [];
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    if (equals > 0 && isRedactedQueryValue(pair.slice(equals + 1))) names.push(pair.slice(0, equals));
  }
  return names;
}

function isRedactedQueryValue(value: string): boolean {
  return value === REDACTED_IN_QUERY || value.toUpperCase() === REDACTED_IN_QUERY.toUpperCase() || value === REDACTED;
}

/** A query with the values of `names` (as spelled) replaced by the marker, and how many were. */
export function maskQuery(query: string, names: ReadonlySet<string>): { query: string; masked: number } {
  if (names.size === 0 || query === '') return { query, masked: 0 };
  let masked = 0;
  const pairs = query.split('&').map((pair) => {
    const equals = pair.indexOf('=');
    if (equals <= 0 || !names.has(pair.slice(0, equals))) return pair;
    masked++;
    return `${pair.slice(0, equals + 1)}${REDACTED_IN_QUERY}`;
  });
  return { query: masked === 0 ? query : pairs.join('&'), masked };
}

interface MaskNode {
  children: Map<string, MaskNode>;
  /** The value here is redacted. */
  here: boolean;
}

/**
 * The places (JSON paths) where recorded values were redacted. Applied to a live value, it puts the
 * marker at those places, so the comparison that follows sees them equal whatever the client sent.
 */
export class RedactionMask {
  private readonly root: MaskNode = { children: new Map(), here: false };
  private size = 0;

  get empty(): boolean {
    return this.size === 0;
  }

  /** Adds the redacted places of a recorded value: `<redacted>` strings, and strings at write-only fields. */
  addRecorded(recorded: unknown, writeOnly: FieldSpecs): this {
    if (recorded === null || typeof recorded !== 'object') return this;
    // Its own stack: a deeply nested recorded value must not overflow this one.
    const stack: Array<[unknown, string[]]> = [[recorded, []]];
    while (stack.length > 0) {
      const [value, path] = stack.pop()!;
      const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value as object);
      for (const [key, item] of entries) {
        const at = [...path, key];
        if (item === REDACTED || (typeof item === 'string' && writeOnly.matches(at))) this.add(at);
        else if (item !== null && typeof item === 'object') stack.push([item, at]);
      }
    }
    return this;
  }

  private add(path: readonly string[]): void {
    let node = this.root;
    for (const segment of path) {
      let next = node.children.get(segment);
      if (!next) node.children.set(segment, (next = { children: new Map(), here: false }));
      node = next;
    }
    if (!node.here) this.size++;
    node.here = true;
  }

  /** A copy of `live` with the marker at every masked place it has (the input when none), and how many. */
  apply(live: unknown): { value: unknown; masked: number } {
    if (this.size === 0) return { value: live, masked: 0 };
    const counter = { masked: 0 };
    return { value: applyNode(live, this.root, counter), masked: counter.masked };
  }
}

function applyNode(value: unknown, node: MaskNode, counter: { masked: number }): unknown {
  if (value === null || typeof value !== 'object' || node.children.size === 0) return value;
  const isArray = Array.isArray(value);
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const [segment, child] of node.children) {
    if (!Object.hasOwn(value, segment) || (isArray && !/^\d+$/.test(segment))) continue;
    const item = (value as Record<string, unknown>)[segment];
    const next = child.here ? REDACTED : applyNode(item, child, counter);
    if (child.here) counter.masked++;
    if (next === item) continue;
    copy ??= isArray ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) };
    // Defined, not assigned: a key may be `__proto__`.
    Object.defineProperty(copy, segment, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? value;
}
