import { UsageError } from './errors.js';

/**
 * A set of JSON fields, each named either by key (`runId`: that key at any depth) or by an RFC 6901
 * pointer (`/messages/0/id`), where a `*` segment matches any one key or array index.
 * The roles of a protocol's fields and `--ignore` use this same notation.
 */
export class FieldSpecs {
  private readonly names = new Set<string>();
  private readonly pointers: string[][] = [];

  constructor(specs: readonly string[]) {
    for (const spec of specs) {
      if (spec.startsWith('/')) this.pointers.push(parsePointer(spec));
      else if (spec.length > 0) this.names.add(spec);
    }
  }

  get empty(): boolean {
    return this.names.size === 0 && this.pointers.length === 0;
  }

  /** Does the field at `path` (the key or index last) belong to the set? */
  matches(path: readonly string[]): boolean {
    if (path.length > 0 && this.names.has(path[path.length - 1])) return true;
    return this.pointers.some((p) => p.length === path.length && p.every((s, i) => s === '*' || s === path[i]));
  }
}

/** Splits an RFC 6901 pointer into unescaped segments; `''` is the whole document. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new UsageError(`'${pointer}' is not a JSON pointer (it must start with '/')`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function formatPointer(path: readonly string[]): string {
  return path.map((s) => '/' + s.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** Checks `--ignore` (or `flag`) values: a JSON pointer, or a bare key name (that key at any depth). */
export function parseIgnoreOption(values: readonly string[], flag = '--ignore'): string[] {
  return values.map((value) => {
    if (value.startsWith('/')) parsePointer(value);
    else if (value.length === 0 || value.includes('/')) {
      throw new UsageError(`${flag} '${value}' is neither a JSON pointer (/a/b, * for any key) nor a key name`);
    }
    return value;
  });
}
