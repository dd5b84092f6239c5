import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

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
 * - `package`: a file inside a dependency (`path` relative to the directory of its main entry), given
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
  readonly path: string;
  readonly id: string;
}

/** The file of a `package` spec, or undefined when the package is not installed. */
export function packageSchemaFile(spec: PackageSchemaSpec): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    // Packages' exports often hide package.json: the path is relative to the main entry's directory.
    return join(dirname(require.resolve(spec.package)), spec.path);
  } catch {
    return undefined;
  }
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
    const key = spec.from === 'schemas' ? `schemas:${spec.file}` : `package:${spec.package}:${spec.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
