import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { SCHEMA_FORMATS } from './schema-formats.js';
import type { SchemaDocument } from './schema-document.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * Where `npm run build` writes the validators it compiles (scripts/compile-validators.mjs). Run from
 * the TypeScript sources (src/schema, as the tests run it), the build's copy in dist/: a validator is
 * used only when it was compiled from the loaded documents byte for byte, so a stale build costs a
 * compile at run time, never a different verdict, and each test file stops compiling the schemas anew.
 */
export const COMPILED_VALIDATORS_DIR =
  basename(HERE) === 'schema' && basename(dirname(HERE)) === 'src' ? join(HERE, '..', '..', 'dist', 'schema', 'compiled') : join(HERE, 'compiled');

/** The file that lists them; its `format` changes when the layout below does. */
export const COMPILED_MANIFEST = 'manifest.json';
export const COMPILED_FORMAT = 2;

/** The validators compiled from one schema document, in two modules: all errors, and first error only. */
export interface CompiledDocument {
  /** Module (CommonJS, beside the manifest) whose validators list every error. */
  allErrors: string;
  /** Module whose validators stop at the first error. */
  firstError: string;
  /** Every document the code was compiled from (this one and those its `$ref`s reach), by $id, with its sha256. */
  needs: Record<string, string>;
  /**
   * JSON file (beside the manifest) of ref (`<$id>#/$defs/x`, `<$id>#Anchor`, `<$id>`) → the
   * modules' export name. Apart from the manifest, which every registry reads at load (the record
   * worker's start, every `validate`), and read on the document's first lookup: these names were
   * ~150 KB of a 169 KB manifest, ~4 ms to parse at each start.
   */
  exports: string;
}

export interface CompiledManifest {
  format: number;
  documents: Record<string, CompiledDocument>;
}

/** A compiled module's export: it links to the format checks, then hands out its validators. */
type LinkModule = (formats: typeof SCHEMA_FORMATS) => Record<string, ValidateFunction>;

/**
 * The validators `npm run build` compiled from the shipped schemas. A registry takes one from here
 * only when every document it was compiled from is loaded byte for byte as it was then (same
 * sha256); anything else (a ref not compiled, a document an extra directory replaces, a build
 * without them) is compiled at run time as before.
 */
export class CompiledValidators {
  private readonly linked = new Map<string, Record<string, ValidateFunction>>();
  private readonly exportNames = new Map<string, Record<string, string>>();
  private readonly require = createRequire(import.meta.url);
  private idsBySha256?: Map<string, string>;

  private constructor(
    private readonly dir: string,
    private readonly manifest: CompiledManifest,
  ) {}

  /** The compiled validators in `dir`, or undefined when there are none (or of another format). */
  static load(dir = COMPILED_VALIDATORS_DIR): CompiledValidators | undefined {
    let manifest: CompiledManifest;
    try {
      manifest = JSON.parse(readFileSync(join(dir, COMPILED_MANIFEST), 'utf8')) as CompiledManifest;
    } catch {
      return undefined;
    }
    return manifest.format === COMPILED_FORMAT ? new CompiledValidators(dir, manifest) : undefined;
  }

  /** The `$id` the build read from a document with these bytes (by sha256), or undefined for bytes it never saw. */
  idOfBytes(sha256: string): string | undefined {
    this.idsBySha256 ??= new Map(Object.values(this.manifest.documents).flatMap((entry) => Object.entries(entry.needs).map(([id, sha]) => [sha, id] as const)));
    return this.idsBySha256.get(sha256);
  }

  /** Whether validators were compiled from this very document (same $id, same bytes). */
  covers(doc: SchemaDocument): boolean {
    return this.manifest.documents[doc.id]?.needs[doc.id] === doc.sha256;
  }

  /** The compiled validator for `ref`, if there is one that fits the loaded `documents`. */
  find(ref: string, documents: ReadonlyMap<string, SchemaDocument>, allErrors: boolean): ValidateFunction | undefined {
    const entry = this.manifest.documents[ref.split('#')[0]];
    const name = entry && this.exportsOf(entry)[ref];
    if (name === undefined) return undefined;
    for (const [id, sha256] of Object.entries(entry.needs)) if (documents.get(id)?.sha256 !== sha256) return undefined;
    return this.module(allErrors ? entry.allErrors : entry.firstError)[name];
  }

  /** Ref → export name of one document's modules; an unreadable file leaves its refs to the run-time compiler. */
  exportsOf(entry: CompiledDocument): Record<string, string> {
    let names = this.exportNames.get(entry.exports);
    if (!names) {
      try {
        names = JSON.parse(readFileSync(join(this.dir, entry.exports), 'utf8')) as Record<string, string>;
      } catch {
        names = {};
      }
      this.exportNames.set(entry.exports, names);
    }
    return names;
  }

  private module(file: string): Record<string, ValidateFunction> {
    let validators = this.linked.get(file);
    if (!validators) {
      validators = (this.require(join(this.dir, file)) as LinkModule)(SCHEMA_FORMATS);
      this.linked.set(file, validators);
    }
    return validators;
  }
}
