import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';

// fast-json-patch is CommonJS under node and ESM under vite; both expose these on the default export.
const { validator, unescapePathComponent, _areEquals } = fastJsonPatch;

/**
 * The message fast-json-patch 3.1.1 would throw for `operation` against `document` when the failure
 * depends on the document (a path that does not resolve, an index out of bounds, a failing `test`),
 * found without letting the library throw: its PatchError pretty-prints the whole document into its
 * message twice, which for a large agent state costs more than everything else a failed delta does.
 *
 * Mirrors core.js `applyOperation(document, operation, true, true, true)` and its `validator`, check
 * for check and in their order. Undefined means "no prediction": the operation applies, or it fails
 * in a way whose error does not print the document (a malformed operation, a banned `__proto__`
 * key, a non-object document), and the caller lets the library apply it and report any error itself.
 */
export function documentFailure(document: unknown, operation: unknown): string | undefined {
  if (typeof document !== 'object' || document === null || !wellFormed(operation)) return undefined;
  if (operation.path === '') return operation.op === 'test' && !_areEquals(document, operation.value) ? TEST_FAILED : undefined;
  const verdict = walk(document, operation);
  return typeof verdict === 'string' ? verdict : undefined;
}

const TEST_FAILED = 'Test operation failed';
const CANNOT_ADD = 'Cannot perform an `add` operation at the desired path';
const PATH_MISSING = 'Cannot perform the operation at a path that does not exist';
const FROM_MISSING = 'Cannot perform the operation from a path that does not exist';
const PATH_UNRESOLVABLE = 'Cannot perform operation at the desired path';
const ILLEGAL_ARRAY_INDEX = 'Expected an unsigned base-10 integer value, making the new referenced value the array element with the zero-based index';
const OUT_OF_BOUNDS = 'The specified index MUST NOT be greater than the number of elements in the array';

/** An operation the library's own shape check accepts: one of the six RFC 6902 ops, or the `_get` its `from` check walks. */
interface WellFormed {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test' | '_get';
  path: string;
  from?: string;
  value?: unknown;
}

const RFC_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

function wellFormed(operation: unknown): operation is WellFormed {
  try {
    // Without a document its error prints only the operation; the library raises the same one first.
    validator(operation as Operation, 0);
  } catch {
    return false;
  }
  return RFC_OPS.has((operation as WellFormed).op);
}

/** `NO_PREDICTION` stops the walk where the library would throw something other than a PatchError. */
const NO_PREDICTION = Symbol('no prediction');
type Verdict = string | typeof NO_PREDICTION | undefined;

/** applyOperation's walk down a non-root path with validation on (core.js, `while (true)`). */
function walk(document: object, operation: WellFormed): Verdict {
  const keys = operation.path.split('/');
  const len = keys.length;
  let obj = document as Record<string | number, unknown>;
  let existingPathFragment: string | undefined;
  for (let t = 1; ; ) {
    let key: string | number = keys[t] as string;
    if (key && key.indexOf('~') !== -1) key = unescapePathComponent(key);
    if (key === '__proto__' || (key === 'prototype' && keys[t - 1] === 'constructor')) return NO_PREDICTION;
    if (existingPathFragment === undefined) {
      if (obj[key] === undefined) existingPathFragment = keys.slice(0, t).join('/');
      else if (t === len - 1) existingPathFragment = operation.path;
      if (existingPathFragment !== undefined) {
        const verdict = againstDocument(document, operation, existingPathFragment);
        if (verdict !== undefined) return verdict;
      }
    }
    t++;
    if (Array.isArray(obj)) {
      if (key === '-') key = obj.length;
      else if (!isInteger(key)) return ILLEGAL_ARRAY_INDEX;
      else key = ~~key;
      if (t >= len) {
        if (operation.op === 'add' && key > obj.length) return OUT_OF_BOUNDS;
        return operation.op === 'test' && !_areEquals(obj[key], operation.value) ? TEST_FAILED : undefined;
      }
    } else if (t >= len) {
      return operation.op === 'test' && !_areEquals(obj[key], operation.value) ? TEST_FAILED : undefined;
    }
    const next = obj[key];
    if (t < len && (!next || typeof next !== 'object')) return PATH_UNRESOLVABLE;
    obj = next as Record<string | number, unknown>;
  }
}

/** The document half of core.js `validator`, called once the walk knows how much of the path exists. */
function againstDocument(document: object, operation: WellFormed, existingPathFragment: string): Verdict {
  switch (operation.op) {
    case 'add': {
      const pathLen = operation.path.split('/').length;
      const existingPathLen = existingPathFragment.split('/').length;
      return pathLen !== existingPathLen + 1 && pathLen !== existingPathLen ? CANNOT_ADD : undefined;
    }
    case 'replace':
    case 'remove':
    case '_get':
      return operation.path !== existingPathFragment ? PATH_MISSING : undefined;
    case 'move':
    case 'copy':
      return fromVerdict(document, operation.from as string);
    default:
      return undefined;
  }
}

/**
 * The library checks `from` by running `validate([{ op: '_get', path: from }], document)` and
 * reports only its OPERATION_PATH_UNRESOLVABLE; any other PatchError there means "resolves".
 */
function fromVerdict(document: object, from: string): Verdict {
  if (from === '') return undefined;
  if (from.indexOf('/') !== 0) return undefined; // a malformed `from` is OPERATION_PATH_INVALID, which the check ignores
  const verdict = walk(document, { op: '_get', path: from });
  if (verdict === NO_PREDICTION) return NO_PREDICTION;
  return verdict === PATH_MISSING || verdict === PATH_UNRESOLVABLE ? FROM_MISSING : undefined;
}

/** helpers.js `isInteger`: digits only, and the empty string counts. */
function isInteger(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}
