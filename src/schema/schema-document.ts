import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
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

/** Reads one schema file, keeping its sha256 so recordings can say which exact schema judged them. */
export function readSchemaDocument(file: string, source: SchemaSource, fallbackId?: string): SchemaDocument | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (cause) {
    throw new SchemaLoadError(`cannot read schema ${file}: ${(cause as Error).message}`, { cause });
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    throw new SchemaLoadError(`schema ${file} is not valid JSON: ${(cause as Error).message}`, { cause });
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new SchemaLoadError(`schema ${file} is not a JSON object`);
  }
  const record = json as Record<string, unknown>;
  const id = typeof record.$id === 'string' ? record.$id : fallbackId;
  if (id === undefined) return undefined;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // A packaged schema may ship without $id (ACP's); give ajv the one it is addressed by.
  const withId = record.$id === id ? record : { ...record, $id: id };
  return { id, file, sha256, source, json: withId };
}
