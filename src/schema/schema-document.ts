import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { SchemaLoadError } from '../core/errors.js';

/** Where a schema document came from: shipped in schemas/, loaded from an extra directory, or from an npm package. */
export type SchemaSource = 'project' | 'extra' | 'package';

export interface SchemaDocument {
  id: string;
  file: string;
  sha256: string;
  source: SchemaSource;
  json: Record<string, unknown>;
}

/**
 * The `$id` of a document the build already read, by the sha256 of its bytes (the compiled
 * validators' manifest): such a document is parsed only when its JSON is first asked for.
 */
export type KnownDocumentIds = (sha256: string) => string | undefined;

/**
 * Reads one schema file, keeping its sha256 so recordings can say which exact schema judged them.
 * With `knownIds`, a file the build read byte for byte is not parsed now: its `$id` is the one the
 * build found, and most commands never walk its JSON (a compiled validator judges by it), while
 * parsing the ~1.4 MB of shipped schemas took ~15 ms of every start. Such a file is only hashed,
 * through one small buffer: reading each whole into a fresh one cost ~6 ms more (most of it the
 * kernel mapping new pages), and its bytes are read again only if its JSON is walked.
 */
export function readSchemaDocument(file: string, source: SchemaSource, fallbackId?: string, knownIds?: KnownDocumentIds): SchemaDocument | undefined {
  if (knownIds) {
    const sha256 = sha256OfFile(file);
    const known = knownIds(sha256);
    if (known !== undefined) {
      let json: Record<string, unknown> | undefined;
      return {
        id: known,
        file,
        sha256,
        source,
        get json() {
          return (json ??= withId(parseDocument(file, sameBytes(file, sha256)), known));
        },
      };
    }
  }
  const bytes = readBytes(file);
  const record = parseDocument(file, bytes);
  const id = typeof record.$id === 'string' ? record.$id : fallbackId;
  if (id === undefined) return undefined;
  return { id, file, sha256: sha256Of(bytes), source, json: withId(record, id) };
}

const CHUNK_BYTES = 64 * 1024;
let chunk: Buffer | undefined;

function sha256OfFile(file: string): string {
  const hash = createHash('sha256');
  const buffer = (chunk ??= Buffer.allocUnsafe(CHUNK_BYTES));
  try {
    const fd = openSync(file, 'r');
    try {
      for (let read; (read = readSync(fd, buffer, 0, CHUNK_BYTES, null)) > 0; ) hash.update(buffer.subarray(0, read));
    } finally {
      closeSync(fd);
    }
  } catch (cause) {
    throw new SchemaLoadError(`cannot read schema ${file}: ${(cause as Error).message}`, { cause });
  }
  return hash.digest('hex');
}

function readBytes(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (cause) {
    throw new SchemaLoadError(`cannot read schema ${file}: ${(cause as Error).message}`, { cause });
  }
}

/** The file's bytes, which must still be those hashed at load: its hash is what recordings store. */
function sameBytes(file: string, sha256: string): Buffer {
  const bytes = readBytes(file);
  if (sha256Of(bytes) !== sha256) throw new SchemaLoadError(`schema ${file} changed after it was loaded (its sha256 is no longer ${sha256}): run the command again`);
  return bytes;
}

function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
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
