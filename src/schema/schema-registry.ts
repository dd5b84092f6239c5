import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { Ajv2020 as Ajv2020Class } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Finding } from '../core/finding.js';
import { SchemaLoadError } from '../core/errors.js';
import { readSchemaDocument, type SchemaDocument } from './schema-document.js';
import { RefGraph, type UnresolvedRef } from './ref-graph.js';
import { findingsFromAjv } from './ajv-errors.js';

// ajv's ESM build exposes the class as the default export of a CommonJS module.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Class;
type AjvInstance = Ajv2020Class;

/** The $id we address the ACP schema by; the file shipped in @agentclientprotocol/sdk has none. */
export const ACP_SCHEMA_ID = 'https://agentclientprotocol.com/schema/sdk/schema.json';
export const AGUI_SCHEMA_ID = 'https://ag-ui.com/spec/draft/schema.json';
export const PI_SESSION_API_ID = 'https://a.skh.am/pi-daemon/session-api.schema.json';
export const PI_NDJSON_V1_ID = 'https://a.skh.am/pi-daemon/protocol.schema.json';
export const PI_NDJSON_V2_ID = 'https://a.skh.am/pi-daemon/protocol-v2.schema.json';

/** The environment variable that lists extra schema directories, separated like PATH. */
export const SCHEMAS_ENV = 'AGENT_PROXY_SCHEMAS';

const PROJECT_SCHEMAS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../schemas');

export interface SchemaRegistryOptions {
  /** Directories with extra `*.json` schemas (each must have a `$id`). Defaults include AGENT_PROXY_SCHEMAS. */
  extraDirs?: string[];
  /** Read AGENT_PROXY_SCHEMAS as well as extraDirs (default true). */
  useEnv?: boolean;
  /** Load the ACP schema from @agentclientprotocol/sdk (default true). */
  acp?: boolean;
}

/** A validator for one schema location, or the reason it cannot be checked. */
export type SchemaCheck =
  | { readonly ok: true; readonly ref: string; validate(value: unknown): Finding[] }
  | { readonly ok: false; readonly ref: string; readonly reason: string; readonly missing: string[] };

/**
 * Loads every schema once, compiles one validator per `$def` lazily and caches it.
 * A location whose `$ref` closure reaches an unloaded document is reported as unchecked,
 * with the missing `$id` and the flag that supplies it, instead of failing startup.
 */
export class SchemaRegistry {
  readonly documents: ReadonlyMap<string, SchemaDocument>;
  private readonly ajv: AjvInstance;
  /** The same schemas, compiled to stop at the first error: for values too large to list every error of. */
  private firstErrorAjv?: AjvInstance;
  private readonly graph: RefGraph;
  private readonly cache = new Map<string, SchemaCheck>();
  /** Each document as ajv gets it. */
  private readonly schemas: Array<{ json: Record<string, unknown>; id: string }> = [];

  private constructor(documents: Map<string, SchemaDocument>) {
    this.documents = documents;
    this.ajv = createAjv();
    this.graph = new RefGraph(documents.values());
    // ajv compiles a whole document before it resolves any pointer into it, so one dangling
    // $ref would make every $def of that document fail. The graph already marks the $defs that
    // reach a missing document as unchecked; ajv gets a copy with those refs cut, which no
    // verdict ever uses.
    const dangling = new Set(this.graph.unresolved().map((u) => u.from));
    for (const doc of documents.values()) {
      const json = dangling.has(doc.id) ? cutDanglingRefs(doc.json, doc.id, documents) : doc.json;
      this.schemas.push({ json, id: doc.id });
      this.ajv.addSchema(json, doc.id);
    }
  }

  static load(options: SchemaRegistryOptions = {}): SchemaRegistry {
    const docs = new Map<string, SchemaDocument>();
    const add = (doc: SchemaDocument | undefined) => {
      if (!doc) return;
      // First one wins: the project's copies are authoritative over extras with the same $id.
      if (!docs.has(doc.id)) docs.set(doc.id, doc);
    };
    for (const file of ['ag-ui.schema.json', 'pi-daemon-session-api.schema.json']) {
      add(readSchemaDocument(join(PROJECT_SCHEMAS_DIR, file), 'project'));
    }
    const dirs = [...(options.extraDirs ?? [])];
    if (options.useEnv !== false && process.env[SCHEMAS_ENV]) {
      dirs.push(...process.env[SCHEMAS_ENV]!.split(':').filter(Boolean));
    }
    for (const dir of dirs) for (const doc of readSchemaDir(dir)) add(doc);
    if (options.acp !== false) add(readAcpSchema());
    return new SchemaRegistry(docs);
  }

  /** `$ref`s that point at documents nobody loaded. Reported, never silently skipped. */
  unresolvedRefs(): UnresolvedRef[] {
    return this.graph.unresolved();
  }

  has(id: string): boolean {
    return this.documents.has(id);
  }

  /** sha256 of each loaded document, by $id; recordings store these. */
  hashes(): Record<string, string> {
    return Object.fromEntries([...this.documents.values()].map((d) => [d.id, d.sha256]));
  }

  /** A validator for `ref` (e.g. `<$id>#/$defs/x` or `<$id>#Anchor`), compiled on first use. */
  check(ref: string): SchemaCheck {
    const cached = this.cache.get(ref);
    if (cached) return cached;
    const result = this.compile(ref);
    this.cache.set(ref, result);
    return result;
  }

  /** Shorthand: `<docId>#/$defs/<name>`. */
  def(docId: string, name: string): SchemaCheck {
    return this.check(`${docId}#/$defs/${name}`);
  }

  private compile(ref: string): SchemaCheck {
    const docId = ref.split('#')[0];
    if (!this.documents.has(docId)) {
      return { ok: false, ref, missing: [docId], reason: missingReason([docId]) };
    }
    const missing = this.graph.missingFor(ref);
    if (missing.length > 0) return { ok: false, ref, missing, reason: missingReason(missing) };
    let validate: ValidateFunction | undefined;
    try {
      validate = this.ajv.getSchema(ref);
    } catch (cause) {
      const err = cause as { missingSchema?: string; message: string };
      if (err.missingSchema) return { ok: false, ref, missing: [err.missingSchema], reason: missingReason([err.missingSchema]) };
      throw new SchemaLoadError(`cannot compile ${ref}: ${err.message}`, { cause });
    }
    if (!validate) throw new SchemaLoadError(`no schema at ${ref}`);
    const fn = validate;
    let firstError: ValidateFunction | undefined;
    return {
      ok: true,
      ref,
      validate: (value: unknown): Finding[] => {
        // Every error of a large value can take thousands of times its size: each wrong item of
        // an array is tried against every branch of a union, each failure an error object. Large
        // values are checked up to their first error instead.
        if (!hasMoreValuesThan(value, ALL_ERRORS_MAX_VALUES)) {
          if (fn(value)) return [];
          return findingsFromAjv(fn.errors as ErrorObject[]);
        }
        firstError ??= this.firstErrorValidator(ref);
        if (firstError(value)) return [];
        return findingsFromAjv(firstError.errors as ErrorObject[]).map((f) => ({
          ...f,
          message: `${f.message} (the first error found: a message of more than ${ALL_ERRORS_MAX_VALUES} values is not searched for all of them)`,
        }));
      },
    };
  }

  private firstErrorValidator(ref: string): ValidateFunction {
    if (!this.firstErrorAjv) {
      this.firstErrorAjv = createAjv(false);
      for (const { json, id } of this.schemas) this.firstErrorAjv.addSchema(json, id);
    }
    return this.firstErrorAjv.getSchema(ref)!;
  }
}

/** Values (objects, arrays and scalars) a message may have for all its schema errors to be listed. */
export const ALL_ERRORS_MAX_VALUES = 1000;

/** Whether `value` holds more than `limit` values, itself included; counts no further than that. */
function hasMoreValuesThan(value: unknown, limit: number): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (++count > limit) return true;
    if (next === null || typeof next !== 'object') continue;
    if (Array.isArray(next)) {
      if (count + stack.length + next.length > limit) return true;
      for (const item of next) stack.push(item);
    } else {
      for (const key in next) stack.push((next as Record<string, unknown>)[key]);
      if (count + stack.length > limit) return true;
    }
  }
  return false;
}

function missingReason(missing: string[]): string {
  const names = missing.map((m) => `'${m}'`).join(', ');
  const what = missing.length === 1 ? `schema ${names} is not loaded; supply it` : `schemas ${names} are not loaded; supply them`;
  return `${what} with --schemas <dir> or ${SCHEMAS_ENV}`;
}

function readSchemaDir(dir: string): SchemaDocument[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  } catch (cause) {
    throw new SchemaLoadError(`cannot read schema directory ${dir}: ${(cause as Error).message}`, { cause });
  }
  const docs: SchemaDocument[] = [];
  for (const name of names) {
    const file = join(dir, name);
    // Files without $id (OpenAPI documents, the ACP copy) are skipped; ACP comes from its package.
    const doc = readSchemaDocument(file, 'extra');
    if (doc && typeof doc.json.$schema === 'string') docs.push(doc);
  }
  return docs;
}

function readAcpSchema(): SchemaDocument | undefined {
  const require = createRequire(import.meta.url);
  let file: string;
  try {
    // The package's exports hide package.json; its main entry lives in dist/, beside schema/.
    file = join(dirname(require.resolve('@agentclientprotocol/sdk')), '..', 'schema', 'schema.json');
  } catch {
    return undefined;
  }
  return readSchemaDocument(file, 'package', ACP_SCHEMA_ID);
}

function cutDanglingRefs(json: unknown, baseId: string, documents: Map<string, SchemaDocument>): Record<string, unknown> {
  const cut = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map(cut);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === '$ref' && typeof value === 'string') {
        const target = new URL(value, baseId);
        target.hash = '';
        if (!documents.has(target.href)) continue;
      }
      out[key] = key === 'enum' || key === 'const' ? value : cut(value);
    }
    return out;
  };
  return cut(json) as Record<string, unknown>;
}

const INT_RANGES: Record<string, [number, number]> = {
  int32: [-2147483648, 2147483647],
  uint16: [0, 65535],
  uint32: [0, 4294967295],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

function createAjv(allErrors = true): AjvInstance {
  const ajv = new Ajv2020({
    strict: true,
    // The AG-UI schema lists `required` names whose `properties` come from an allOf branch.
    strictRequired: false,
    allErrors,
    allowUnionTypes: true,
    // Checking each document against the draft 2020-12 meta-schema costs most of start-up, which
    // runs while the first traffic flows; a malformed schema still fails when it is compiled.
    validateSchema: false,
  });
  // $anchor is resolved by ajv's ref resolver but unknown to its strict keyword check.
  // The x-* and discriminator annotations come from the ACP schema and carry no validation.
  for (const keyword of ['$anchor', 'x-method', 'x-side', 'x-docs-ignore', 'x-deserialize-default-on-error', 'x-deserialize-skip-invalid-items', 'discriminator']) {
    ajv.addKeyword({ keyword });
  }
  for (const [name, [min, max]] of Object.entries(INT_RANGES)) {
    ajv.addFormat(name, { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= min && n <= max });
  }
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat('uri', { type: 'string', validate: (s: string) => URL.canParse(s) });
  return ajv;
}
