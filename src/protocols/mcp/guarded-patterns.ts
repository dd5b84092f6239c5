import vm from 'node:vm';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';

/**
 * How long one match of a risky tool-schema `pattern` may run. A tool's schema comes from the server
 * (untrusted) and its `pattern`s run on the traffic: one with nested quantifiers (`(a+)+$`) can
 * backtrack for hours on a short string, so such patterns run in a context with a time limit.
 */
export const PATTERN_TIME_LIMIT_MS = 100;

/**
 * The limit of a second try after a match ran out of time. The limit is wall time, so on a loaded
 * machine a match of microseconds can lose it by waiting for a core; without a second, longer try the
 * same message would be checked on one run and "not checked" on the next. A pattern whose second try
 * also runs out is slow for real, and its later matches get one try only, so a hostile schema costs
 * this once, not per message.
 */
export const PATTERN_RETRY_LIMIT_MS = 1_000;

/** The time limits of a guarded match (tests shorten them). */
export interface PatternLimits {
  readonly firstMs: number;
  readonly retryMs: number;
}

/** Made when a risky pattern first runs: most sessions never need it. */
let sandbox: { context: vm.Context; match: vm.Script } | undefined;

/** Set when a guarded match ran out of time (treated as a match: nothing is reported as broken). */
let timedOut = false;

/** Runs `check` and says whether a guarded pattern ran out of time during it. */
export function withPatternGuard<T>(check: () => T): { value: T; timedOut: boolean } {
  timedOut = false;
  try {
    return { value: check(), timedOut };
  } finally {
    timedOut = false;
  }
}

/**
 * ajv's regular-expression engine for tool schemas: the native RegExp, with a time limit for
 * patterns with a quantified group that itself holds a quantifier (star height above one, the
 * shape of catastrophic backtracking); others run as they are.
 */
export function guardedRegExpEngine(limits: PatternLimits): RegExpEngine {
  return Object.assign(
    (source: string, flags: string): RegExpLike => {
      const native = new RegExp(source, flags);
      if (!hasNestedQuantifier(source)) return native;
      let slowForReal = false;
      return {
        test(input: string): boolean {
          const first = matchWithin(native, input, limits.firstMs);
          if (first !== 'timed-out') return first;
          if (slowForReal) return timeOut();
          const second = matchWithin(native, input, limits.retryMs);
          if (second !== 'timed-out') return second;
          slowForReal = true;
          return timeOut();
        },
      };
    },
    { code: 'new RegExp' },
  );
}

export const guardedRegExp: RegExpEngine = guardedRegExpEngine({ firstMs: PATTERN_TIME_LIMIT_MS, retryMs: PATTERN_RETRY_LIMIT_MS });

function matchWithin(pattern: RegExp, input: string, limitMs: number): boolean | 'timed-out' {
  sandbox ??= { context: vm.createContext({}), match: new vm.Script('pattern.test(input)') };
  const { context, match } = sandbox;
  context.pattern = pattern;
  context.input = input;
  try {
    return match.runInContext(context, { timeout: limitMs }) === true;
  } catch {
    return 'timed-out';
  } finally {
    context.input = '';
  }
}

/** A match that ran out of time counts as a match: nothing is reported as broken, and the check says it timed out. */
function timeOut(): boolean {
  timedOut = true;
  return true;
}

/** Whether a quantified group (`*`, `+`, `{n,}`, `{n,m}`) of `source` holds a quantifier. */
export function hasNestedQuantifier(source: string): boolean {
  // For each open group: whether it holds a quantifier.
  const groups: boolean[] = [false];
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      // A class is one atom: skip to its unescaped end.
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++;
      continue;
    }
    if (c === '(') {
      groups.push(false);
      continue;
    }
    if (c === ')') {
      const inner = groups.length > 1 ? groups.pop()! : false;
      const quantified = quantifierAt(source, i + 1);
      if (inner && quantified) return true;
      if (inner || quantified) groups[groups.length - 1] = true;
      continue;
    }
    if (quantifierAt(source, i)) groups[groups.length - 1] = true;
  }
  return false;
}

/** Whether an unbounded or ranged quantifier starts at `i`. */
function quantifierAt(source: string, i: number): boolean {
  const c = source[i];
  if (c === '*' || c === '+') return true;
  return c === '{' && /^\{\d+,\d*\}/.test(source.slice(i, i + 24));
}
