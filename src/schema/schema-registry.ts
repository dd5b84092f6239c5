import { ReusedStack } from '../core/reused-stack.js';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { codeGenerationAllowed } from '../core/code-generation.js';
import type { Finding } from '../core/finding.js';
import { isSharedJsonValue } from '../core/repeated-json.js';
import { SchemaLoadError } from '../core/errors.js';
import { readSchemaDocument, type SchemaDocument } from './schema-document.js';
import { UnreadDocument } from './unread-document.js';
import { RefGraph, type UnresolvedRef } from './ref-graph.js';
import { findingsFromAjv } from './ajv-errors.js';
import { createAjv, type AjvInstance } from './ajv-setup.js';
import { CompiledValidators } from './compiled-validators.js';
import { declaredProtocolSchemas, declaredSchemaFile, declaredSchemaKey, type SchemaSpec } from './schema-sources.js';

/** The environment variable that lists extra schema directories, separated like PATH. */
export const SCHEMAS_ENV = 'AGENT_PROXY_SCHEMAS';

export interface SchemaRegistryOptions {
  /**
   * Directories with extra `*.json` schemas (each must have a `$id`). Defaults include AGENT_PROXY_SCHEMAS.
   * They add documents, or replace a replaceable declared one with the same `$id` (schemas/README.md).
   */
  extraDirs?: string[];
  /** Read AGENT_PROXY_SCHEMAS as well as extraDirs (default true). */
  useEnv?: boolean;
  /**
   * `$id`s of the documents the protocols declare (each module's `schemas`, which every registry
   * loads) to leave out: to see how a protocol fares without one.
   */
  without?: readonly string[];
  /**
   * Where the validators compiled by `npm run build` are (default: the package's own); `false`
   * compiles every validator at run time. Either way the verdicts are the same.
   */
  compiledValidators?: string | false;
}

/** A validator for one schema location, or the reason it cannot be checked. */
export type SchemaCheck =
  | { readonly ok: true; readonly ref: string; validate(value: unknown): Finding[] }
  | { readonly ok: false; readonly ref: string; readonly reason: string; readonly missing: string[] };

/** A document as the registry holds it: read, or a shipped file known by the build's manifest and not read yet. */
type Entry = SchemaDocument | UnreadDocument;

/** What a load found, in the order the first document with an `$id` wins (SchemaRegistry.load). */
interface Declarations<T> {
  /** The project's own documents (schemas/, not replaceable). */
  fixed: readonly (T | undefined)[];
  /** The extra directories' (--schemas, AGENT_PROXY_SCHEMAS), read at load. */
  extras: readonly T[];
  /** Another project's documents shipped in schemas/ (pi-daemon's): an extra one with the same `$id` replaces each. */
  replaceable: readonly (T | undefined)[];
  /** The documents inside dependencies (ACP's). */
  packages: readonly (T | undefined)[];
  /** `$id`s of declared documents to leave out. */
  without: ReadonlySet<string>;
}

/**
 * The documents by `$id`: first one wins, the project's own over extras with the same `$id`, extras
 * over the replaceable and packaged ones; a declared document listed in `without` is left out.
 */
function assemble<T extends { id: string }>(found: Declarations<T>): Map<string, T> {
  const docs = new Map<string, T>();
  const add = (doc: T | undefined) => {
    if (doc && !docs.has(doc.id)) docs.set(doc.id, doc);
  };
  const declared = (doc: T | undefined) => {
    if (doc && !found.without.has(doc.id)) add(doc);
  };
  found.fixed.forEach(declared);
  found.extras.forEach(add);
  found.replaceable.forEach(declared);
  found.packages.forEach(declared);
  return docs;
}

/**
 * Loads every schema once, compiles one validator per `$def` lazily and caches it.
 * A location whose `$ref` closure reaches an unloaded document is reported as unchecked,
 * with the missing `$id` and the flag that supplies it, instead of failing startup.
 *
 * A shipped file the build compiled from, and of the size it had then, is known by the `$id` the
 * build's manifest gives it and read when its document is first used (looked up, checked against,
 * hashed, walked): `validate` of one protocol's file reads that protocol's documents only. Its bytes
 * are then compared with the build's copy; a file found changed makes the registry read every file
 * then, as a load did before, and every document is from there on what that load made of it.
 */
export class SchemaRegistry {
  /** The compiler, made only when a validator was not compiled at build time. */
  private allErrorsAjv?: AjvInstance;
  /** The same schemas, compiled to stop at the first error: for values too large to list every error of. */
  private firstErrorAjv?: AjvInstance;
  private refGraph?: RefGraph;
  private readonly cache = new Map<string, SchemaCheck>();
  private readonly defs = new Map<string, Map<string, SchemaCheck>>();
  private readonly compiled: CompiledValidators | undefined;
  private entries: Map<string, Entry>;
  private allRead = false;
  /** The documents a compiled validator needs, each read (and compared) when asked for. */
  private readonly used = { get: (id: string): SchemaDocument | undefined => this.documentOf(id) };

  /** `found`: what the load found, to assemble again once every file is read; none when every document is. */
  private constructor(
    documents: Map<string, Entry>,
    compiled: CompiledValidators | undefined,
    private readonly found?: Declarations<Entry>,
  ) {
    this.entries = documents;
    this.compiled = compiled;
    // A document nothing was compiled from (an extra schema, a replaced one, a build without them)
    // is handed to ajv now, as before there were compiled validators: one ajv refuses fails the load.
    // ajv gets every document, so every file is read first (readAll, which hands them to ajv).
    if (this.readOnesUncovered()) this.readAll();
  }

  /** Every document, each shipped one read. */
  get documents(): ReadonlyMap<string, SchemaDocument> {
    this.readAll();
    return this.entries as ReadonlyMap<string, SchemaDocument>;
  }

  private get graph(): RefGraph {
    return (this.refGraph ??= new RefGraph(this.documents.values()));
  }

  private readOnesUncovered(): boolean {
    for (const doc of this.entries.values()) if (!(doc instanceof UnreadDocument) && !this.compiled?.covers(doc)) return true;
    return false;
  }

  /** The document of `$id` `id`, its file read now if it was not yet. */
  private documentOf(id: string): SchemaDocument | undefined {
    const entry = this.entries.get(id);
    if (!(entry instanceof UnreadDocument)) return entry;
    if (entry.isAsBuilt()) {
      const doc = entry.document()!;
      this.entries.set(id, doc);
      return doc;
    }
    // Changed since the build: its `$id` may be another now, so every file is read, as a load did.
    this.readAll();
    return this.entries.get(id) as SchemaDocument | undefined;
  }

  /** Reads every unread file and assembles the documents again, as a load that read them all would have. */
  private readAll(): void {
    if (this.allRead) return;
    if (this.found !== undefined) {
      const read = (entry: Entry | undefined) => (entry instanceof UnreadDocument ? entry.document() : entry);
      const { fixed, extras, replaceable, packages, without } = this.found;
      // A file that cannot be read throws here, each time it is asked for, as a load would have.
      this.entries = assemble({ fixed: fixed.map(read), extras: extras as SchemaDocument[], replaceable: replaceable.map(read), packages: packages.map(read), without });
    }
    // Before ajv, which asks for the documents again.
    this.allRead = true;
    if (this.readOnesUncovered()) this.ajv(true);
  }

  static load(options: SchemaRegistryOptions = {}): SchemaRegistry {
    refuseUnknownOptions(options);
    const specs = declaredProtocolSchemas();
    // Loud, not an empty registry that would leave every message unchecked.
    if (specs === undefined) throw new SchemaLoadError('no protocol declared its schemas: load the protocol catalog (protocols/catalog.ts) before a registry');
    const compiled = options.compiledValidators === false ? undefined : CompiledValidators.load(options.compiledValidators);
    // A declared document the build compiled from is not hashed, and parsed only when its JSON is walked.
    const knownIds = compiled && ((bytes: Buffer) => compiled.documentOfBytes(bytes));
    const shipped = (spec: SchemaSpec): Entry | undefined => {
      const file = declaredSchemaFile(spec);
      if (file === undefined) return undefined;
      const source = spec.from === 'schemas' ? 'project' : 'package';
      const built = knownIds && compiled.declaredDocument(declaredSchemaKey(spec));
      return (built && UnreadDocument.of(file, source, spec.id, built, knownIds)) ?? readSchemaDocument(file, source, spec.id, knownIds);
    };
    const fixed = specs.filter((spec) => spec.from === 'schemas' && !spec.replaceable).map(shipped);
    const dirs = [...(options.extraDirs ?? [])];
    if (options.useEnv !== false && process.env[SCHEMAS_ENV]) {
      dirs.push(...process.env[SCHEMAS_ENV]!.split(':').filter(Boolean));
    }
    const extras = dirs.flatMap(readSchemaDir);
    const replaceable = specs.filter((spec) => spec.from === 'schemas' && spec.replaceable).map(shipped);
    const packages = specs.filter((spec) => spec.from === 'package').map(shipped);
    const found: Declarations<Entry> = { fixed, extras, replaceable, packages, without: new Set(options.without ?? []) };
    return new SchemaRegistry(assemble(found), compiled, found);
  }

  /** `$ref`s that point at documents nobody loaded. Reported, never silently skipped. */
  unresolvedRefs(): UnresolvedRef[] {
    return this.graph.unresolved();
  }

  has(id: string): boolean {
    return this.documentOf(id) !== undefined;
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
    // By document, then name: a checker asks for every message, and the joined ref would be a new string to hash each time.
    let ofDoc = this.defs.get(docId);
    if (ofDoc === undefined) this.defs.set(docId, (ofDoc = new Map()));
    let check = ofDoc.get(name);
    if (check === undefined) ofDoc.set(name, (check = this.check(`${docId}#/$defs/${name}`)));
    return check;
  }

  private compile(ref: string): SchemaCheck {
    const docId = ref.split('#')[0];
    if (this.documentOf(docId) === undefined) {
      return { ok: false, ref, missing: [docId], reason: missingReason([docId]) };
    }
    const compiled = this.compiled?.find(ref, this.used, true);
    if (compiled) return this.checkWith(ref, compiled);
    const missing = this.graph.missingFor(ref);
    if (missing.length > 0) return { ok: false, ref, missing, reason: missingReason(missing) };
    // ajv makes its code from text, which this process may refuse: then the messages are unchecked, saying why.
    if (!codeGenerationAllowed()) return { ok: false, ref, missing: [], reason: codeGenerationRefusedReason(ref) };
    let validate: ValidateFunction | undefined;
    try {
      validate = this.ajv(true).getSchema(ref);
    } catch (cause) {
      const err = cause as { missingSchema?: string; message: string };
      if (err.missingSchema) return { ok: false, ref, missing: [err.missingSchema], reason: missingReason([err.missingSchema]) };
      throw new SchemaLoadError(`cannot compile ${ref}: ${err.message}`, { cause });
    }
    if (!validate) throw new SchemaLoadError(`no schema at ${ref}`);
    return this.checkWith(ref, validate);
  }

  private checkWith(ref: string, fn: ValidateFunction): SchemaCheck {
    let firstError: ValidateFunction | undefined;
    const findingsOf = (value: unknown): Finding[] => {
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
    };
    // The findings on each value several messages share (core/repeated-json.ts), found once: checking
    // a value against a schema depends on nothing else.
    let ofShared: WeakMap<object, Finding[]> | undefined;
    const validate = (value: unknown): Finding[] => {
      if (!isSharedJsonValue(value)) return findingsOf(value);
      ofShared ??= new WeakMap();
      let findings = ofShared.get(value);
      if (findings === undefined) {
        findings = findingsOf(value);
        ofShared.set(value, findings);
      }
      // Each caller gets its own array and findings, as when they are found anew.
      return findings.length === 0 ? [] : findings.map((f) => ({ ...f }));
    };
    return { ok: true, ref, validate };
  }

  private firstErrorValidator(ref: string): ValidateFunction {
    return this.compiled?.find(ref, this.used, false) ?? this.ajv(false).getSchema(ref)!;
  }

  /** The compiler with every document added; `allErrors` false: the one that stops at the first error. */
  private ajv(allErrors: boolean): AjvInstance {
    let ajv = allErrors ? this.allErrorsAjv : this.firstErrorAjv;
    if (!ajv) {
      ajv = createAjv(allErrors);
      for (const { json, id } of ajvSchemasOf(this.documents, this.graph)) ajv.addSchema(json, id);
      if (allErrors) this.allErrorsAjv = ajv;
      else this.firstErrorAjv = ajv;
    }
    return ajv;
  }
}

/**
 * Each document as ajv gets it. ajv compiles a whole document before it resolves any pointer into
 * it, so one dangling $ref would make every $def of that document fail. The graph already marks the
 * $defs that reach a missing document as unchecked; ajv gets a copy with those refs cut, which no
 * verdict ever uses.
 */
export function ajvSchemasOf(documents: ReadonlyMap<string, SchemaDocument>, graph = new RefGraph(documents.values())): Array<{ json: Record<string, unknown>; id: string }> {
  const dangling = new Set(graph.unresolved().map((u) => u.from));
  return [...documents.values()].map((doc) => ({ id: doc.id, json: dangling.has(doc.id) ? cutDanglingRefs(doc.json, doc.id, documents) : doc.json }));
}

/** Values (objects, arrays and scalars) a message may have for all its schema errors to be listed. */
export const ALL_ERRORS_MAX_VALUES = 1000;

/** Whether `value` holds more than `limit` values, itself included; counts no further than that. */
function hasMoreValuesThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack = valuesStack;
  stack.push(value);
  try {
    let count = 0;
    while (stack.top > 0) {
      const next = stack.pop();
      if (++count > limit) return true;
      if (next === null || typeof next !== 'object') continue;
      if (Array.isArray(next)) {
        if (count + stack.top + next.length > limit) return true;
        for (const item of next) stack.push(item);
      } else {
        for (const key in next) stack.push((next as Record<string, unknown>)[key]);
        if (count + stack.top > limit) return true;
      }
    }
    return false;
  } finally {
    stack.clear();
  }
}

/** The count's stack, shared by every count (none starts another) and empty outside one. */
const valuesStack = new ReusedStack<unknown>();

function codeGenerationRefusedReason(ref: string): string {
  return `schema '${ref}' was not compiled at build time (it is, or reaches, a document given with --schemas), and compiling it needs code generation from strings, which this process refuses (--disallow-code-generation-from-strings)`;
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
    // Files without $id (OpenAPI documents, a copy of a packaged schema) are skipped; a packaged one comes from its package.
    const doc = readSchemaDocument(file, 'extra');
    if (doc && typeof doc.json.$schema === 'string') docs.push(doc);
  }
  return docs;
}

function cutDanglingRefs(json: unknown, baseId: string, documents: ReadonlyMap<string, SchemaDocument>): Record<string, unknown> {
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

const REGISTRY_OPTIONS: ReadonlySet<string> = new Set(['extraDirs', 'useEnv', 'without', 'compiledValidators'] satisfies (keyof SchemaRegistryOptions)[]);

/**
 * A JavaScript caller's option the registry does not know (an option of an older release, a typo)
 * would otherwise be ignored in silence and load schemas the caller meant to leave out.
 */
function refuseUnknownOptions(options: SchemaRegistryOptions): void {
  const unknown = Object.keys(options).filter((key) => !REGISTRY_OPTIONS.has(key));
  if (unknown.length > 0) {
    throw new SchemaLoadError(`unknown schema registry option ${unknown.map((key) => `'${key}'`).join(', ')}: the options are ${[...REGISTRY_OPTIONS].join(', ')} (to leave a protocol's documents out, list their $ids in without)`);
  }
}
