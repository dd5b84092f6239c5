import { createRequire } from 'node:module';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// What the registry loads: the schema documents the protocols are judged by, each declared by its
// protocol module (its `schemas` part) and handed here by the protocol catalog, so that this layer,
// below the protocols, names none of them. Apart from the registry so that declaring a document does
// not load the validator compiler.

/**
 * A schema document a protocol is judged by, and where it is read from:
 * - `schemas`: a file of the package's schemas/ folder, given the `$id` it is addressed by when the
 *   file has none. `replaceable`: a document of another project shipped for convenience
 *   (pi-daemon's), which an extra directory's document with the same `$id` replaces; otherwise one
 *   no extra document replaces.
 * - `package`: a file inside a dependency (`path` relative to the package's folder), given
 *   the `$id` it is addressed by when the file has none. An extra document with that `$id` replaces it.
 *
 * A protocol may declare several versions of its schema (one `$id` each): its checker picks, per
 * conversation, the one that conversation negotiated (`registry.check('<$id>#/$defs/...')`).
 */
export type SchemaSpec = ShippedSchemaSpec | PackageSchemaSpec;

/** A file of the package's schemas/ folder; `id`: the `$id` it is addressed by when the file has none (a specification's file often has none). */
export interface ShippedSchemaSpec {
  readonly from: 'schemas';
  readonly file: string;
  readonly replaceable?: boolean;
  readonly id?: string;
}

/** A schema document inside a dependency. */
export interface PackageSchemaSpec {
  readonly from: 'package';
  readonly package: string;
  /** Relative to the package's folder (the one that holds its package.json). */
  readonly path: string;
  readonly id: string;
}

/**
 * The file of a `package` spec, or undefined when the package is not installed. The package's folder
 * is the first of the node_modules folders Node would look in that holds its package.json: resolving
 * the package itself would read its `exports`, and the first resolution through `exports` loads
 * Node's ES module resolver (~4 ms of every registry's load, validate's and the record worker's).
 */
export function packageSchemaFile(spec: PackageSchemaSpec): string | undefined {
  for (const folder of createRequire(import.meta.url).resolve.paths(spec.package) ?? []) {
    const root = join(folder, spec.package);
    // Its real path, as resolving it gave: the file a document names is the same either way.
    if (existsSync(join(root, 'package.json'))) return join(realpathSync(root), spec.path);
  }
  return undefined;
}

/** The package's schemas/ folder. */
export const PROJECT_SCHEMAS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../schemas');

/** The file a spec names, or undefined for a package that is not installed. */
export function declaredSchemaFile(spec: SchemaSpec): string | undefined {
  return spec.from === 'schemas' ? join(PROJECT_SCHEMAS_DIR, spec.file) : packageSchemaFile(spec);
}

/**
 * A spec's name in the build's manifest (scripts/compile-validators.mjs): the registry finds there the
 * `$id` of the document the build read from that file, before reading it.
 */
export function declaredSchemaKey(spec: SchemaSpec): string {
  return spec.from === 'schemas' ? `schemas/${spec.file}` : `package:${spec.package}/${spec.path}`;
}

let declare: (() => readonly SchemaSpec[]) | undefined;
let declared: readonly SchemaSpec[] | undefined;

/**
 * Declares the documents every registry loads by default: the protocol catalog calls it once with
 * what lists its modules' `schemas`, in the catalog's order, listed on the first registry's ask (a
 * replay, which judges nothing, never asks). The same document declared twice is loaded once.
 */
export function declareProtocolSchemas(specs: () => readonly SchemaSpec[]): void {
  declare = specs;
  declared = undefined;
}

/** What declareProtocolSchemas declared; undefined when no catalog was loaded. */
export function declaredProtocolSchemas(): readonly SchemaSpec[] | undefined {
  if (declared === undefined && declare !== undefined) declared = onceEach(declare());
  return declared;
}

function onceEach(specs: readonly SchemaSpec[]): readonly SchemaSpec[] {
  const seen = new Set<string>();
  return specs.filter((spec) => {
    const key = declaredSchemaKey(spec);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
