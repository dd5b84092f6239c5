import { headerValue, type HeaderMap } from '../core/header-value.js';
import { substituteOnce, type CorrelationPair } from './token-substitution.js';
import { factsOf, type ProtocolId } from '../protocols/catalog.js';
import { echoFieldsOf as declaredEchoFields } from '../protocols/field-roles.js';
import { parsePointer } from '../core/field-specs.js';

/** Where echo values are looked up: a request's parsed body and its headers (or one client frame). */
export interface EchoSource {
  body?: unknown;
  headers?: HeaderMap | null;
}

/** The request fields a protocol's responses echo, or none for an unknown protocol. */
export function echoFieldsOf(protocol: ProtocolId | undefined): readonly string[] {
  return protocol === undefined ? [] : declaredEchoFields(factsOf(protocol));
}

/**
 * "Correlation substitution", step 1: for each echo field, pairs the value the recorded request
 * had with the value the live request has. Values that are equal, missing on either side, or not
 * a string or number make no pair.
 */
export function learnCorrelation(echoFields: readonly string[], recorded: EchoSource, live: EchoSource): CorrelationPair[] {
  const pairs: CorrelationPair[] = [];
  for (const field of echoFields) {
    const before = valuesAt(field, recorded);
    const after = valuesAt(field, live);
    for (let i = 0; i < Math.min(before.length, after.length); i++) {
      const r = before[i];
      const l = after[i];
      if (r.value === l.value || !isScalar(r.value) || !isScalar(l.value)) continue;
      pairs.push({ field, key: r.key, recorded: r.value, live: l.value });
    }
  }
  return pairs;
}

/**
 * "Correlation substitution", step 2: rewrites recorded response bytes so they echo the live
 * request's values. A string is replaced as its exact JSON token (`"run-old"` → `"run-new"`), a
 * number only where it is the value of the key it was learnt from (`"id":1`); every other byte
 * stays as recorded. Mutable: a WebSocket player adds pairs as client frames arrive.
 */
export class Substitution {
  private readonly pairs: CorrelationPair[] = [];
  /** The pairs that have replaced something so far: what a served line counts. */
  private readonly usedPairs = new Set<CorrelationPair>();
  private readonly markUsed = (pair: CorrelationPair) => void this.usedPairs.add(pair);

  constructor(pairs: readonly CorrelationPair[] = []) {
    this.add(pairs);
  }

  /** Adds pairs; a recorded value that already has a replacement keeps its first one. */
  add(pairs: readonly CorrelationPair[]): void {
    for (const pair of pairs) {
      if (!this.pairs.some((p) => p.recorded === pair.recorded && p.key === pair.key)) this.pairs.push(pair);
    }
  }

  get size(): number {
    return this.pairs.length;
  }

  /** How many ids were actually replaced in what this substitution rewrote (not merely in force). */
  get used(): number {
    return this.usedPairs.size;
  }

  /** The pairs in force, for logs and tests. */
  list(): readonly CorrelationPair[] {
    return this.pairs;
  }

  /** A recorded message (SSE frame, body, WebSocket text frame) with the live values in place. */
  apply(raw: Buffer): Buffer {
    return this.pairs.length === 0 ? raw : substituteOnce(raw, this.pairs, this.markUsed);
  }

  /** A parsed value with the live values in place (for messages re-encoded from their value, like protobuf). */
  applyValue(value: unknown, key?: string): unknown {
    if (this.pairs.length === 0) return value;
    if (Array.isArray(value)) return value.map((v) => this.applyValue(v, key));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.applyValue(v, k)]));
    }
    const pair = this.pairs.find((p) => p.recorded === value && (typeof value === 'string' || p.key === key));
    if (!pair) return value;
    this.usedPairs.add(pair);
    return pair.live;
  }

  /** A header value or close reason: replaced only when it is exactly a recorded string. */
  applyText(text: string): string {
    const pair = this.pairs.find((p) => p.recorded === text);
    if (!pair) return text;
    this.usedPairs.add(pair);
    return String(pair.live);
  }
}

interface Found {
  key: string | undefined;
  value: unknown;
}

function valuesAt(field: string, source: EchoSource): Found[] {
  if (field.startsWith('header:')) {
    const value = headerValue(source.headers, field.slice('header:'.length));
    return value === undefined ? [] : [{ key: undefined, value }];
  }
  if (field.startsWith('/')) return atPointer(source.body, parsePointer(field));
  const out: Found[] = [];
  collectKey(source.body, field, out);
  return out;
}

function atPointer(value: unknown, path: string[]): Found[] {
  let current: Found[] = [{ key: undefined, value }];
  for (const segment of path) {
    const next: Found[] = [];
    for (const { value: v } of current) {
      if (v === null || typeof v !== 'object') continue;
      const entries = segment === '*' ? Object.entries(v) : Object.hasOwn(v, segment) ? [[segment, (v as Record<string, unknown>)[segment]] as const] : [];
      for (const [k, child] of entries) next.push({ key: k, value: child });
    }
    current = next;
  }
  return path.length === 0 ? [] : current;
}

function collectKey(value: unknown, name: string, out: Found[]): void {
  if (value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    if (k === name) out.push({ key: k, value: v });
    else collectKey(v, name, out);
  }
}

function isScalar(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * The pairs learnt so far in one replay, so a later response echoes an earlier request's id too
 * (a Pi ticket polled without headers still names the requestId and Idempotency-Key of the POST
 * that created it). An exchange's own pairs take precedence; a later pairing of the same recorded
 * value replaces an earlier one.
 */
export class CorrelationMemory {
  private readonly learnt = new Map<string, CorrelationPair>();

  /** Remembers `pairs` and returns the substitution for the exchange they were learnt from. */
  substitutionFor(pairs: readonly CorrelationPair[]): Substitution {
    const substitution = new Substitution(pairs);
    substitution.add([...this.learnt.values()]);
    for (const pair of pairs) this.learnt.set(`${pair.key ?? ''}\u0000${typeof pair.recorded}:${pair.recorded}`, pair);
    return substitution;
  }
}
