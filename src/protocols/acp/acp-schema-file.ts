import { readFileSync } from 'node:fs';
import { isJsonObject } from '../../core/json.js';
import { packageSchemaFile } from '../../schema/schema-sources.js';
import { ACP_SCHEMA_FILE } from './schemas.js';

/**
 * The ACP JSON Schema shipped inside @agentclientprotocol/sdk (the version pi-daemon pins).
 * The schema registry loads the same file to validate (ACP_SCHEMAS); the method table reads it here
 * so that `guessSender` and `sniff`, which get no registry, know the methods too.
 * Returns undefined when the package or its schema cannot be read.
 */
export function readPackagedAcpSchema(): Record<string, unknown> | undefined {
  try {
    const file = packageSchemaFile(ACP_SCHEMA_FILE);
    if (file === undefined) return undefined;
    const json: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isJsonObject(json) ? json : undefined;
  } catch {
    return undefined;
  }
}
