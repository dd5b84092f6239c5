import { UsageError } from '../../core/errors.js';

/**
 * What a fault does to one answer. `after` counts what the client was sent first: server events
 * (SSE, protobuf frames) of an HTTP stream, server frames of a WebSocket, agent lines of a stdio or
 * NDJSON-socket session.
 */
export type FaultAction =
  /**
   * Hold the answer this long before its first byte (HTTP head, WebSocket handshake, first line); with
   * `after`, an HTTP stream's head and first `after` events go at once and the hold comes before the
   * next one (`after=0`: a slow first token).
   */
  | { kind: 'latency'; ms: number; after?: number }
  /** Add this long before every event, frame or line after the first. */
  | { kind: 'gap'; ms: number }
  /**
   * Answer with this HTTP status instead of the recorded answer, in the protocol's error shape, with
   * `retry-after` when `retryAfterMs` is given and `x-should-retry` when `shouldRetry` is.
   */
  | { kind: 'status'; status: number; retryAfterMs?: number; shouldRetry?: boolean }
  /** After `after` events of a stream, the protocol's error event for this status, and the stream ends. */
  | { kind: 'error'; status: number; after: number }
  /** End the stream after `after` messages: cleanly (as the agent would), or by resetting the connection. */
  | { kind: 'cut'; after: number; how: 'clean' | 'reset' }
  /** Close a WebSocket with this code after `after` server frames. */
  | { kind: 'close'; code: number; after: number }
  /** A replayed stdio agent exits with this code after writing `after` lines. */
  | { kind: 'exit'; code: number; after: number };

export type FaultKind = FaultAction['kind'];

/** Which requests a fault applies to: all three must hold. */
export interface FaultFilter {
  /** Only the `from`-th to `to`-th request this fault's other filters select (1-based, inclusive; `to` absent: no end). */
  nth?: { from: number; to?: number };
  /** Only requests whose path matches this pattern: `*` stands for any run of characters but `/`, `**` for any. */
  path?: string;
  /** Only requests with this method (upper case); WebSocket upgrades are `GET`. */
  method?: string;
}

/** One parsed `--fault`: the text as given (what reports show), what to do, and to which requests. */
export interface FaultSpec extends FaultFilter {
  text: string;
  action: FaultAction;
}

/** The grammar, shown in every parse error so a wrong spec can be fixed from the message alone. */
export const FAULT_GRAMMAR =
  'latency=<duration> | gap=<duration> | status=<code> | error=<code> | cut=clean|reset | close=<code> | exit=<code>, ' +
  'then options: after=<n> (latency, error, cut, close, exit), retry-after=<duration> and should-retry=true|false (status), nth=<n>[-[<m>]], path=<pattern>, method=<METHOD>';

const ACTIONS = new Set<FaultKind>(['latency', 'gap', 'status', 'error', 'cut', 'close', 'exit']);
const WITH_AFTER = new Set<FaultKind>(['latency', 'error', 'cut', 'close', 'exit']);

/**
 * Parses one `--fault` spec: an action, then comma-separated options, e.g. `status=503,nth=3`,
 * `cut=reset,after=5,path=/agent`, `close=1011,after=2`, `latency=1.5s`, `exit=3,after=10`.
 * Throws a UsageError that quotes the spec and the grammar.
 */
export function parseFault(text: string): FaultSpec {
  const fail = (why: string): never => {
    throw new UsageError(`--fault '${text}': ${why} (expected ${FAULT_GRAMMAR})`);
  };
  const parts = text.split(',').map((part) => part.trim());
  const [kind, value] = splitPair(parts[0], fail);
  if (!ACTIONS.has(kind as FaultKind)) fail(`'${kind}' is not a fault`);
  const options = new Map<string, string>();
  for (const part of parts.slice(1)) {
    const [key, optionValue] = splitPair(part, fail);
    if (options.has(key)) fail(`'${key}' is given twice`);
    options.set(key, optionValue);
  }
  const spec: FaultSpec = { text, action: actionOf(kind as FaultKind, value, options, fail) };
  for (const [key, optionValue] of options) {
    if (key === 'after') {
      if (!WITH_AFTER.has(spec.action.kind)) fail(`'after' applies to latency, error, cut, close and exit only`);
    } else if (key === 'retry-after' || key === 'should-retry') {
      if (spec.action.kind !== 'status') fail(`'${key}' applies to status only`);
    } else if (key === 'nth') spec.nth = rangeOf(optionValue, fail);
    else if (key === 'path') {
      if (!optionValue.startsWith('/')) fail(`path '${optionValue}' must start with /`);
      spec.path = optionValue;
    } else if (key === 'method') {
      if (!/^[A-Za-z]+$/.test(optionValue)) fail(`method '${optionValue}' is not an HTTP method`);
      spec.method = optionValue.toUpperCase();
    } else fail(`'${key}' is not an option`);
  }
  return spec;
}

/** Parses every `--fault` given, in order. */
export function parseFaults(texts: readonly string[]): FaultSpec[] {
  return texts.map(parseFault);
}

function splitPair(part: string, fail: (why: string) => never): [string, string] {
  const at = part.indexOf('=');
  if (at <= 0 || at === part.length - 1) fail(`'${part}' is not <name>=<value>`);
  return [part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim()];
}

function actionOf(kind: FaultKind, value: string, options: Map<string, string>, fail: (why: string) => never): FaultAction {
  const after = () => countOf(options.get('after') ?? '0', 'after', fail);
  switch (kind) {
    case 'latency':
      return options.has('after') ? { kind, ms: durationOf(value, fail), after: after() } : { kind, ms: durationOf(value, fail) };
    case 'gap':
      return { kind, ms: durationOf(value, fail) };
    case 'status': {
      const status = countOf(value, 'status', fail);
      // A 1xx is no answer: a client would wait on for the final one (101 would even claim an upgrade).
      if (status < 200 || status > 599) fail(`status ${value} is not an HTTP status a fault can answer with (200-599)`);
      const action: Extract<FaultAction, { kind: 'status' }> = { kind: 'status', status };
      const retryAfter = options.get('retry-after');
      // A bare number is seconds, as the header counts them.
      if (retryAfter !== undefined) action.retryAfterMs = durationOf(/^\d+(\.\d+)?$/.test(retryAfter) ? `${retryAfter}s` : retryAfter, fail);
      const shouldRetry = options.get('should-retry');
      if (shouldRetry !== undefined) {
        if (shouldRetry !== 'true' && shouldRetry !== 'false') fail(`should-retry must be true or false, not '${shouldRetry}'`);
        action.shouldRetry = shouldRetry === 'true';
      }
      return action;
    }
    case 'error': {
      const status = countOf(value, 'error', fail);
      // The status the error event stands for: a failure, as a provider's stream reports one.
      if (status < 400 || status > 599) fail(`error ${value} is not an HTTP error status (400-599)`);
      return { kind, status, after: after() };
    }
    case 'cut':
      if (value !== 'clean' && value !== 'reset') fail(`cut must be clean or reset, not '${value}'`);
      return { kind, how: value as 'clean' | 'reset', after: after() };
    case 'close': {
      const code = countOf(value, 'close', fail);
      // The codes an endpoint may send in a close frame (RFC 6455 §7.4): 1005, 1006 and 1015 are never sent.
      const sendable = (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
      if (!sendable) fail(`close code ${value} cannot be sent in a close frame (1000-1003, 1007-1014, 3000-4999)`);
      return { kind, code, after: after() };
    }
    case 'exit': {
      const code = countOf(value, 'exit', fail);
      if (code > 255) fail(`exit code ${value} is not 0-255`);
      return { kind, code, after: after() };
    }
  }
}

function countOf(text: string, name: string, fail: (why: string) => never): number {
  if (!/^\d+$/.test(text)) fail(`${name} '${text}' is not a whole number`);
  return safeInteger(text, name, fail);
}

/** A count past 2^53 would be rounded to another number: refuse it rather than count to the wrong one. */
function safeInteger(text: string, name: string, fail: (why: string) => never): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) fail(`${name} '${text}' is larger than ${Number.MAX_SAFE_INTEGER}`);
  return value;
}

function rangeOf(text: string, fail: (why: string) => never): { from: number; to?: number } {
  const match = /^(\d+)(-(\d*))?$/.exec(text);
  if (!match) fail(`nth '${text}' is not n, n-m or n- (counting from 1)`);
  const from = safeInteger(match![1], 'nth', fail);
  if (from < 1) fail(`nth '${text}' is not n, n-m or n- (counting from 1)`);
  if (!match![2]) return { from, to: from };
  if (!match![3]) return { from };
  const to = safeInteger(match![3], 'nth', fail);
  if (to < from) fail(`nth '${text}' ends before it starts`);
  return { from, to };
}

/** `250`, `250ms`, `1.5s`: milliseconds. */
function durationOf(text: string, fail: (why: string) => never): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text);
  if (!match) fail(`'${text}' is not a duration such as 250ms or 1.5s`);
  const ms = Number(match![1]) * (match![2] === 's' ? 1000 : 1);
  if (ms > 3_600_000) fail(`'${text}' is longer than an hour`);
  return Math.round(ms);
}
