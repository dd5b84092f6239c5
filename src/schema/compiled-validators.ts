import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { codeGenerationAllowed } from '../core/code-generation.js';
import { SCHEMA_FORMATS } from './schema-formats.js';
import { linkAlone, readPieces, statementsOf, type ModulePieces } from './compiled-pieces.js';
import type { KnownDocument, SchemaDocument } from './schema-document.js';

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
export const COMPILED_FORMAT = 4;

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
  /**
   * File (beside the manifest) holding the document's bytes as the build read and hashed them, and
   * their length: a registry reading the same bytes takes the document's $id and sha256 from here.
   */
  source: string;
  size: number;
  /**
   * The declared file the build read the document from (schema-sources.ts, declaredSchemaKey): a
   * registry knows the document's `$id` from here and reads the file only when the document is used.
   */
  declared: string;
}

export interface CompiledManifest {
  format: number;
  documents: Record<string, CompiledDocument>;
}

/** From this size on, a module's validators are linked from their own statements (CompiledValidators.large). */
const LINK_ALONE_FROM_BYTES = 1024 * 1024;

/** The buffer `fileHolds` reads into, made on its first use. */
let comparedPiece: Buffer | undefined;

/**
 * Whether `file` holds exactly `bytes`. Read piece by piece into one buffer, reused: reading each
 * copy whole would allocate (and fault in) ~1.4 MB more at every start, ~1–2 ms, as much as hashing.
 */
function fileHolds(file: string, bytes: Buffer): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const piece = (comparedPiece ??= Buffer.allocUnsafeSlow(128 * 1024));
    for (let at = 0; ; ) {
      const read = readSync(fd, piece, 0, piece.length, at);
      if (read === 0) return at === bytes.length;
      if (at + read > bytes.length || !piece.subarray(0, read).equals(bytes.subarray(at, at + read))) return false;
      at += read;
    }
  } finally {
    closeSync(fd);
  }
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
  /** Validators linked from their own statements (validator), by module and export name; how much of each module that is. */
  private readonly single = new Map<string, ValidateFunction>();
  private readonly singleBytes = new Map<string, number>();
  private readonly pieces = new Map<string, ModulePieces | undefined>();
  private readonly moduleBytes = new Map<string, Buffer>();
  private readonly isLarge = new Map<string, boolean>();
  private readonly require = createRequire(import.meta.url);
  private bySize?: Map<number, string[]>;
  private byDeclared?: Map<string, string>;

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

  /**
   * The `$id` and sha256 the build found for a document of exactly these bytes, or undefined for bytes
   * it never compiled from. Compared byte for byte with the build's copy (`source`), written with the
   * manifest from the bytes the build hashed: equal bytes have the manifest's sha256, so a shipped
   * document needs no hashing, and no node:crypto (~2–5 ms of a start), to be known.
   */
  documentOfBytes(bytes: Buffer): KnownDocument | undefined {
    if (this.bySize === undefined) {
      this.bySize = new Map();
      for (const [id, entry] of Object.entries(this.manifest.documents)) {
        if (typeof entry.size !== 'number' || typeof entry.source !== 'string' || entry.needs[id] === undefined) continue;
        const ids = this.bySize.get(entry.size);
        if (ids) ids.push(id);
        else this.bySize.set(entry.size, [id]);
      }
    }
    for (const id of this.bySize.get(bytes.length) ?? []) {
      const entry = this.manifest.documents[id]!;
      if (fileHolds(join(this.dir, entry.source), bytes)) return { id, sha256: entry.needs[id]! };
    }
    return undefined;
  }

  /**
   * The document the build read from the declared file `key` (declaredSchemaKey): its `$id`, the sha256
   * and size of the bytes it read. Whether the file still holds them is for the caller to find out.
   */
  declaredDocument(key: string): { id: string; sha256: string; size: number } | undefined {
    if (this.byDeclared === undefined) {
      this.byDeclared = new Map();
      for (const [id, entry] of Object.entries(this.manifest.documents)) {
        if (typeof entry.declared === 'string' && typeof entry.size === 'number' && typeof entry.source === 'string' && entry.needs[id] !== undefined) this.byDeclared.set(entry.declared, id);
      }
    }
    const id = this.byDeclared.get(key);
    if (id === undefined) return undefined;
    const entry = this.manifest.documents[id]!;
    return { id, sha256: entry.needs[id]!, size: entry.size };
  }

  /** Whether validators were compiled from this very document (same $id, same bytes). */
  covers(doc: SchemaDocument): boolean {
    return this.manifest.documents[doc.id]?.needs[doc.id] === doc.sha256;
  }

  /**
   * The compiled validator for `ref`, if there is one that fits the loaded `documents`: asked only for
   * the documents the validator was compiled from, so that a registry reads no other.
   */
  find(ref: string, documents: { get(id: string): Pick<SchemaDocument, 'sha256'> | undefined }, allErrors: boolean): ValidateFunction | undefined {
    const entry = this.manifest.documents[ref.split('#')[0]];
    const name = entry && this.exportsOf(entry)[ref];
    if (name === undefined) return undefined;
    for (const [id, sha256] of Object.entries(entry.needs)) if (documents.get(id)?.sha256 !== sha256) return undefined;
    return this.validator(allErrors ? entry.allErrors : entry.firstError, name);
  }

  /**
   * One validator of a module. A root of a large document reaches a small part of it (OpenAI's chat
   * completion request and chunk: 275 KB of its 3.2 MB, which V8 compiles whole at load, ~0.1 s of
   * CPU on Node 20): such a root is linked from its own statements alone, joined and compiled here.
   * Once what is linked so from a module would be half of it (AG-UI's event union reaches most of
   * its document), the module is loaded whole instead, as Node ≥ 22 also keeps its compiled code.
   * Linking compiles code from a string; where that is refused, the module is loaded whole, which needs none.
   */
  private validator(file: string, name: string): ValidateFunction | undefined {
    const whole = this.linked.get(file);
    if (whole) return whole[name];
    const key = `${file}#${name}`;
    const linked = this.single.get(key);
    if (linked) return linked;
    const pieces = this.large(file) && codeGenerationAllowed() ? this.piecesOf(file) : undefined;
    const needed = pieces && statementsOf(pieces, name);
    if (!pieces || !needed) return this.module(file)[name];
    let length = this.singleBytes.get(file) ?? 0;
    for (const i of needed) length += pieces.statements[i]![1]! - pieces.statements[i]![0]!;
    if (length * 2 > pieces.size) return this.module(file)[name];
    this.singleBytes.set(file, length);
    const validate = linkAlone(join(this.dir, file), this.bytesOf(file), pieces, name, needed);
    this.single.set(key, validate);
    return validate;
  }

  /**
   * Is the module large enough to link its validators alone? A smaller one is loaded whole: AG-UI's
   * (0.5 MB) has roots that each reach a little, and linked one by one until they reach half of it,
   * then loaded whole, it cost `validate` of an AG-UI file ~30 ms more than loading it whole at once.
   */
  private large(file: string): boolean {
    let large = this.isLarge.get(file);
    if (large === undefined) {
      try {
        large = statSync(join(this.dir, file)).size >= LINK_ALONE_FROM_BYTES;
      } catch {
        large = false;
      }
      this.isLarge.set(file, large);
    }
    return large;
  }

  private piecesOf(file: string): ModulePieces | undefined {
    if (!this.pieces.has(file)) this.pieces.set(file, readPieces(join(this.dir, file)));
    return this.pieces.get(file);
  }

  private bytesOf(file: string): Buffer {
    let bytes = this.moduleBytes.get(file);
    if (bytes === undefined) this.moduleBytes.set(file, (bytes = readFileSync(join(this.dir, file))));
    return bytes;
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
