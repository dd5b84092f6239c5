import vm from 'node:vm';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';

/**
 * How long one match of a risky tool-schema `pattern` may run. A tool's schema comes from the server
 * (untrusted) and its `pattern`s run on the traffic: one with nested quantifiers (`(a+)+$`) can
 * backtrack for hours on a short string, so such patterns run in a context with a time limit.
 */
export const PATTERN_TIME_LIMIT_MS = 100;

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
export const guardedRegExp: RegExpEngine = Object.assign(
  (source: string, flags: string): RegExpLike => {
    const native = new RegExp(source, flags);
    if (!hasNestedQuantifier(source)) return native;
    return {
      test(input: string): boolean {
        sandbox ??= { context: vm.createContext({}), match: new vm.Script('pattern.test(input)') };
        const { context, match } = sandbox;
        context.pattern = native;
        context.input = input;
        try {
          return match.runInContext(context, { timeout: PATTERN_TIME_LIMIT_MS }) === true;
        } catch {
          timedOut = true;
          return true;
        } finally {
          context.input = '';
        }
      },
    };
  },
  { code: 'new RegExp' },
);

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
