import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isJsonObject } from '../../core/json.js';

/**
 * The ACP JSON Schema shipped inside @agentclientprotocol/sdk (the version pi-daemon pins).
 * The schema registry loads the same file to validate; the method table reads it here so that
 * `guessSender` and `sniff`, which get no registry, know the methods too.
 * Returns undefined when the package or its schema cannot be read.
 */
export function readPackagedAcpSchema(): Record<string, unknown> | undefined {
  try {
    const require = createRequire(import.meta.url);
    // The package's exports hide package.json; its main entry lives in dist/, beside schema/.
    const file = join(dirname(require.resolve('@agentclientprotocol/sdk')), '..', 'schema', 'schema.json');
    const json: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isJsonObject(json) ? json : undefined;
  } catch {
    return undefined;
  }
}
