/**
 * Whether this process may compile code from strings (`new Function`, `eval`). Node run with
 * `--disallow-code-generation-from-strings` (a hardening some users set, also through NODE_OPTIONS)
 * refuses it with an EvalError; the few places that compile a function from text for speed (the
 * store's row binders, a validator linked from its own statements) then take a path that needs none,
 * with the same results.
 */
let allowed: boolean | undefined;

export function codeGenerationAllowed(): boolean {
  if (allowed === undefined) {
    try {
      allowed = typeof new Function('return 1') === 'function';
    } catch (error) {
      if (!(error instanceof EvalError)) throw error;
      allowed = false;
    }
  }
  return allowed;
}
