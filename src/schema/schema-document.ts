import { readFileSync } from 'node:fs';
import { SchemaLoadError } from '../core/errors.js';
import { lazyCrypto } from '../core/lazy-crypto.js';

/** Where a schema document came from: shipped in schemas/, loaded from an extra directory, or from an npm package. */
export type SchemaSource = 'project' | 'extra' | 'package';

export interface SchemaDocument {
  id: string;
  file: string;
  sha256: string;
  source: SchemaSource;
  json: Record<string, unknown>;
}

/** A document the build read: its `$id` and the sha256 of its bytes. */
export interface KnownDocument {
  id: string;
  sha256: string;
}

/**
 * The document the build already read with exactly these bytes (the compiled validators' copy of
 * it), if any: such a document is neither hashed nor parsed now, its JSON parsed when first asked for.
 */
export type KnownDocuments = (bytes: Buffer) => KnownDocument | undefined;

/**
 * Reads one schema file, keeping its sha256 so recordings can say which exact schema judged them.
 * With `knownDocuments`, a file the build read byte for byte is not hashed nor parsed now: its `$id`
 * and sha256 are the ones the build found, and most commands never walk its JSON (a compiled
 * validator judges by it), while parsing the ~1.4 MB of shipped schemas took ~15 ms of every start.
 */
export function readSchemaDocument(file: string, source: SchemaSource, fallbackId?: string, knownDocuments?: KnownDocuments): SchemaDocument | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (cause) {
    throw new SchemaLoadError(`cannot read schema ${file}: ${(cause as Error).message}`, { cause });
  }
  const known = knownDocuments?.(bytes);
  if (known !== undefined) {
    let json: Record<string, unknown> | undefined;
    return {
      id: known.id,
      file,
      sha256: known.sha256,
      source,
      get json() {
        return (json ??= withId(parseDocument(file, bytes), known.id));
      },
    };
  }
  const sha256 = lazyCrypto().createHash('sha256').update(bytes).digest('hex');
  const record = parseDocument(file, bytes);
  const id = typeof record.$id === 'string' ? record.$id : fallbackId;
  if (id === undefined) return undefined;
  return { id, file, sha256, source, json: withId(record, id) };
}

function parseDocument(file: string, bytes: Buffer): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    throw new SchemaLoadError(`schema ${file} is not valid JSON: ${(cause as Error).message}`, { cause });
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new SchemaLoadError(`schema ${file} is not a JSON object`);
  }
  return json as Record<string, unknown>;
}

/** A packaged schema may ship without $id (ACP's); give ajv the one it is addressed by. */
function withId(record: Record<string, unknown>, id: string): Record<string, unknown> {
  return record.$id === id ? record : { ...record, $id: id };
}
