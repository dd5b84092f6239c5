import type { CorrelationPair } from '../match/token-substitution.js';

/** Ids shorter than this are not carried forward: too likely to turn up in a request by accident. */
const MIN_ID_LENGTH = 6;

/** A key that names an id: `id`, `…Id`, `…_id`, `…ID`, and the cursors a client pages with. */
function isIdKey(key: string): boolean {
  return key === 'id' || /[a-z0-9](Id|ID|_id)$/.test(key) || key === 'cursor' || /[a-z]Cursor$/.test(key);
}

/**
 * Keys that say what kind of message (or part of one) a value is. Where the recorded and live
 * values name different kinds (an event came where a response was), they are not the same message,
 * and pairing their ids would carry a wrong value into later requests.
 */
const KIND_KEYS = ['type', 'kind', 'event', 'method', 'operation', 'sessionUpdate'];

/**
 * The ids a server minted afresh, as pairs of the recorded answer's value and the live answer's:
 * the recorded and live answers are walked side by side (the n-th JSON value of each, by key and
 * index), and a string under an id key that differs makes a pair. Objects of different kinds
 * (KIND_KEYS) are not walked. These are what the replay's
 * correlation learns from a request, learnt here from an answer: the same pairs, applied by the same
 * substitution to the later requests that used the recorded value.
 */
export function learnMintedIds(recorded: readonly unknown[], live: readonly unknown[]): CorrelationPair[] {
  const pairs: CorrelationPair[] = [];
  for (let i = 0; i < Math.min(recorded.length, live.length); i++) walk(recorded[i], live[i], '', undefined, pairs);
  return pairs;
}

/** A response header that names an id the client sends back: `Mcp-Session-Id`, `X-Session-Id`, `…-ID`. */
function isIdHeader(name: string): boolean {
  return /-id$/i.test(name);
}

/**
 * The ids a server minted afresh in its answer's headers (MCP's `Mcp-Session-Id`, issued on
 * initialize and sent back on every later request), as pairs of the recorded value and the live
 * one, keyed by the header's name (lower case). Later request headers, paths and queries that
 * carried the recorded value carry the live one.
 */
export function learnMintedHeaderIds(recorded: Record<string, string | string[]> | null | undefined, live: Record<string, string | string[] | undefined>): CorrelationPair[] {
  const pairs: CorrelationPair[] = [];
  const liveByName = new Map(Object.entries(live).map(([name, value]) => [name.toLowerCase(), value]));
  for (const [name, value] of Object.entries(recorded ?? {})) {
    const lower = name.toLowerCase();
    const now = liveByName.get(lower);
    if (!isIdHeader(lower) || typeof value !== 'string' || typeof now !== 'string') continue;
    if (value !== now && value.length >= MIN_ID_LENGTH && now.length > 0) pairs.push({ field: `header:${lower}`, key: undefined, recorded: value, live: now });
  }
  return pairs;
}

/**
 * The ids a server minted in the URL it named for its client to post to (the older MCP HTTP+SSE
 * transport's `endpoint` event, `/message?sessionId=…`), as pairs of the recorded URL's query value
 * and the live one's under the same name. Later requests that carried the recorded value (in their
 * query, a path segment, a header or the body) carry the live one.
 */
export function learnEndpointIds(recorded: string, live: string): CorrelationPair[] {
  const pairs: CorrelationPair[] = [];
  const [was, now] = [queryOf(recorded), queryOf(live)];
  for (const [name, value] of was) {
    const liveValue = now.get(name);
    if (liveValue !== null && value !== liveValue && value.length >= MIN_ID_LENGTH && liveValue.length > 0) pairs.push({ field: `query:${name}`, key: undefined, recorded: value, live: liveValue });
  }
  return pairs;
}

function queryOf(url: string): URLSearchParams {
  try {
    return new URL(url, 'http://endpoint.invalid').searchParams;
  } catch {
    return new URLSearchParams();
  }
}

function walk(a: unknown, b: unknown, pointer: string, key: string | undefined, pairs: CorrelationPair[]): void {
  if (typeof a === 'string' && typeof b === 'string') {
    if (key !== undefined && isIdKey(key) && a !== b && a.length >= MIN_ID_LENGTH && b.length > 0) pairs.push({ field: pointer, key, recorded: a, live: b });
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) walk(a[i], b[i], `${pointer}/${i}`, key, pairs);
    return;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const recorded = a as Record<string, unknown>;
    const live = b as Record<string, unknown>;
    if (KIND_KEYS.some((k) => typeof recorded[k] === 'string' && typeof live[k] === 'string' && recorded[k] !== live[k])) return;
    for (const [k, v] of Object.entries(a)) {
      if (Object.hasOwn(live, k)) walk(v, live[k], `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, k, pairs);
    }
  }
}
