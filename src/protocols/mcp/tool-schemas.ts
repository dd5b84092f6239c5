import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import { codeGenerationAllowed } from '../../core/code-generation.js';
import type { Finding } from '../../core/finding.js';
import { isJsonObject } from '../../core/json.js';
import { findingsFromAjv } from '../../schema/ajv-errors.js';
import { guardedRegExp, withPatternGuard } from './guarded-patterns.js';

/**
 * A tool's `inputSchema` or `outputSchema`, compiled to check values against: or why it cannot be.
 * The schemas come from the server, so they are untrusted: bounded in size and depth, no `$ref`
 * outside the schema (nothing is ever fetched), risky patterns run with a time limit, values
 * checked up to their first error.
 */
export type ToolSchemaCheck = { ok: true; validate(value: unknown): Finding[] | 'timed-out' } | { ok: false; reason: string };

/**
 * A tool schema of more JSON values than this is not compiled: ajv's compile time grows faster than
 * the schema (a thousand properties take a few hundred milliseconds), while real tools' schemas have
 * tens to hundreds of values.
 */
export const MAX_TOOL_SCHEMA_VALUES = 4_000;
/** Nor one nested deeper than this. */
export const MAX_TOOL_SCHEMA_DEPTH = 64;
/** Compiled tool schemas kept (by a hash of their text); past this, the least recently used go. */
export const TOOL_SCHEMA_CACHE_SIZE = 500;

/** Why no tool schema is checked in a process run with `--disallow-code-generation-from-strings`. */
export const CODE_GENERATION_REFUSED = 'it is not compiled: this process refuses code generation from strings (--disallow-code-generation-from-strings), which the schema compiler needs';

type Dialect = '2020-12' | '2019-09' | 'draft-07';

/**
 * The `$schema` values of the dialects ajv checks, without a trailing `#` and with either scheme
 * (schema generators write both); a schema without one is 2020-12 (MCP 2025-11-25's default).
 */
const DIALECTS: ReadonlyMap<string, Dialect> = new Map([
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
  ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
  ['https://json-schema.org/draft-07/schema', 'draft-07'],
]);

const AJV_MODULES: Record<Dialect, string> = { '2020-12': 'ajv/dist/2020.js', '2019-09': 'ajv/dist/2019.js', 'draft-07': 'ajv' };

type AjvLike = { compile(schema: object): ValidateFunction; validateSchema(schema: object): boolean | Promise<unknown>; errorsText(errors?: unknown): string; errors?: unknown };
type AjvClass = new (options: Options) => AjvLike;
const classes = new Map<Dialect, AjvClass>();
/** One per dialect, holding its meta-schema: it checks schemas and compiles none. */
const metaCheckers = new Map<Dialect, AjvLike>();

function ajvClass(dialect: Dialect): AjvClass {
  let Ajv = classes.get(dialect);
  if (!Ajv) {
    const module = createRequire(import.meta.url)(AJV_MODULES[dialect]) as { default?: AjvClass };
    Ajv = (module.default ?? module) as AjvClass;
    classes.set(dialect, Ajv);
  }
  return Ajv;
}

/**
 * A compiler for one schema: its own, so that what a server's schema registers (its `$id`s) never
 * meets another's, and nothing is kept once the schema's check is dropped from the cache.
 */
function compilerFor(dialect: Dialect): AjvLike {
  const Ajv = ajvClass(dialect);
  return new Ajv({
    // Tool schemas carry keywords of their own, and `format` is an annotation in 2020-12: only the
    // assertions every validator agrees on are checked.
    strict: false,
    validateFormats: false,
    allErrors: false,
    allowUnionTypes: true,
    logger: false,
    // Checked against the meta-schema beforehand, once (metaCheckerFor).
    validateSchema: false,
    // No loadSchema: a `$ref` to anything outside is refused before compiling, never fetched.
    // ajv's optimising passes cost more than they save on a schema compiled for a few checks.
    code: { regExp: guardedRegExp, optimize: false },
  });
}

function metaCheckerFor(dialect: Dialect): AjvLike {
  let ajv = metaCheckers.get(dialect);
  if (!ajv) {
    ajv = new (ajvClass(dialect))({ strict: false, logger: false, validateFormats: false });
    metaCheckers.set(dialect, ajv);
  }
  return ajv;
}

const cache = new Map<string, ToolSchemaCheck>();

/** The check for a tool schema, compiled once per distinct schema text. */
export function toolSchemaCheck(schema: unknown): ToolSchemaCheck {
  if (!isJsonObject(schema)) return { ok: false, reason: 'it is not a JSON object' };
  const refused = boundsBroken(schema);
  if (refused !== undefined) return { ok: false, reason: refused };
  const key = createHash('sha256').update(JSON.stringify(schema)).digest('hex');
  const cached = cache.get(key);
  if (cached) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const check = compile(schema);
  cache.set(key, check);
  if (cache.size > TOOL_SCHEMA_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return check;
}

function compile(schema: Record<string, unknown>): ToolSchemaCheck {
  const named = schema.$schema;
  const dialect = named === undefined ? '2020-12' : typeof named === 'string' ? DIALECTS.get(named.replace(/#$/, '').replace(/^https?:/, 'https:')) : undefined;
  if (dialect === undefined) return { ok: false, reason: `its $schema ${JSON.stringify(named)} names a dialect not checked here (JSON Schema 2020-12, 2019-09 and draft-07 are)` };
  // The dialect is chosen above; its compiler needs no `$schema` (a trailing `#` would not be found).
  const { $schema: _, ...body } = schema;
  const meta = metaCheckerFor(dialect);
  let validate: ValidateFunction;
  try {
    if (meta.validateSchema(body) !== true) return { ok: false, reason: `it is not a valid JSON Schema ${dialect}: ${meta.errorsText(meta.errors).slice(0, 200)}` };
    validate = compilerFor(dialect).compile(body);
  } catch (e) {
    // The schema compiler makes its code from strings; this process may refuse that (it does not go around the refusal).
    if (e instanceof EvalError && !codeGenerationAllowed()) return { ok: false, reason: CODE_GENERATION_REFUSED };
    return { ok: false, reason: `it does not compile: ${(e as Error).message.slice(0, 200)}` };
  }
  return {
    ok: true,
    /** The value's first error (ajv's findings, rule `schema`), or 'timed-out' when a guarded pattern ran out of time. */
    validate(value) {
      const { value: valid, timedOut } = withPatternGuard(() => validate(value));
      if (timedOut) return 'timed-out';
      if (valid) return [];
      return findingsFromAjv(validate.errors as ErrorObject[]);
    },
  };
}

/** Why a schema is too large, too deep or refers outside itself; undefined when it is none of these. */
function boundsBroken(schema: Record<string, unknown>): string | undefined {
  const stack: Array<[unknown, number]> = [[schema, 1]];
  let values = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (++values > MAX_TOOL_SCHEMA_VALUES) return `it has more than ${MAX_TOOL_SCHEMA_VALUES} values`;
    if (depth > MAX_TOOL_SCHEMA_DEPTH) return `it is nested deeper than ${MAX_TOOL_SCHEMA_DEPTH} levels`;
    if (Array.isArray(value)) {
      for (const item of value) stack.push([item, depth + 1]);
    } else if (isJsonObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        if ((key === '$ref' || key === '$dynamicRef' || key === '$recursiveRef') && typeof item === 'string' && !item.startsWith('#')) {
          return `it refers outside itself (${key} ${JSON.stringify(item.slice(0, 100))}), which is never fetched`;
        }
        stack.push([item, depth + 1]);
      }
    }
  }
  return undefined;
}
