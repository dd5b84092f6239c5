import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACP_SCHEMA_FILE } from '../../src/protocols/acp/schemas.js';
import { packageSchemaFile } from '../../src/schema/schema-sources.js';

describe('a schema document inside a dependency', () => {
  it('is the file its package ships, where the package resolves', () => {
    const require = createRequire(import.meta.url);
    // The package's own export of the file, and its main entry's folder, name the same file.
    expect(packageSchemaFile(ACP_SCHEMA_FILE)).toBe(require.resolve('@agentclientprotocol/sdk/schema/schema.json'));
    expect(packageSchemaFile(ACP_SCHEMA_FILE)).toBe(join(dirname(dirname(require.resolve('@agentclientprotocol/sdk'))), 'schema/schema.json'));
  });

  it('is undefined when its package is not installed', () => {
    expect(packageSchemaFile({ ...ACP_SCHEMA_FILE, package: '@agent-proxy-test/not-installed' })).toBeUndefined();
  });
});
