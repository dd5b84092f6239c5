import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { ACP_SCHEMA_ID } from '../../src/protocols/acp/schemas.js';
import { AGUI_SCHEMA_ID } from '../../src/protocols/agui/schemas.js';
import { PI_NDJSON_V1_ID } from '../../src/protocols/unix-ndjson/schemas.js';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import { bareRegistry, STANDIN_SCHEMAS_DIR, testRegistry } from '../support/shared.js';
import { tempDir } from '../support/temp-dir.js';

const VENDOR_ID = 'https://example.test/vendor.schema.json';
const MISSING_ID = 'https://example.test/missing.schema.json';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A registry with an extra document that refers to one nobody ships. */
function withVendorSchema(body: (registry: SchemaRegistry) => void): void {
  const dir = tempDir('schemas-');
  try {
    writeFileSync(
      dir.file('vendor.json'),
      JSON.stringify({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: VENDOR_ID,
        $defs: { reaching: { $ref: `${MISSING_ID}#/$defs/thing` }, local: { type: 'string' } },
      }),
    );
    body(SchemaRegistry.load({ useEnv: false, extraDirs: [dir.dir] }));
  } finally {
    dir.cleanup();
  }
}

describe('SchemaRegistry', () => {
  it('reports every $ref to an unloaded document instead of skipping it', () => {
    // What ships resolves on its own (schemas/README.md); an extra document can still point elsewhere.
    expect(bareRegistry().unresolvedRefs()).toEqual([]);
    withVendorSchema((registry) => {
      expect(registry.unresolvedRefs()).toEqual([expect.objectContaining({ from: VENDOR_ID, missingId: MISSING_ID })]);
    });
  });

  it('an extra directory replaces a shipped pi-daemon schema with the same $id, never one of the project schemas', () => {
    const standInNdjson = sha256(readFileSync(join(STANDIN_SCHEMAS_DIR, 'protocol.schema.json')));
    expect(bareRegistry().hashes()[PI_NDJSON_V1_ID]).not.toBe(standInNdjson);
    expect(testRegistry().hashes()[PI_NDJSON_V1_ID]).toBe(standInNdjson);
    expect(testRegistry().unresolvedRefs()).toEqual([]);
    const dir = tempDir('schemas-');
    try {
      writeFileSync(dir.file('ag-ui.json'), JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: AGUI_SCHEMA_ID, $defs: {} }));
      const registry = SchemaRegistry.load({ useEnv: false, extraDirs: [dir.dir] });
      expect(registry.hashes()[AGUI_SCHEMA_ID]).toBe(bareRegistry().hashes()[AGUI_SCHEMA_ID]);
    } finally {
      dir.cleanup();
    }
  });

  it('marks only the $defs that reach a missing document as unchecked, naming the $id and the flag', () => {
    withVendorSchema((registry) => {
      const reaching = registry.def(VENDOR_ID, 'reaching');
      expect(reaching.ok).toBe(false);
      if (!reaching.ok) {
        expect(reaching.missing).toEqual([MISSING_ID]);
        expect(reaching.reason).toMatch(/missing\.schema\.json.*--schemas <dir>.*AGENT_PROXY_SCHEMAS/);
      }
      expect(registry.def(VENDOR_ID, 'local').ok).toBe(true);
      expect(registry.def(PI_SESSION_API_ID, 'dashboardDiagnosticsEnvelope').ok).toBe(true);
    });
  });

  it('compiles $anchor refs in strict mode and gives readable findings with pointers', () => {
    const check = bareRegistry().check(`${AGUI_SCHEMA_ID}#RunStartedEvent`);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.validate({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })).toEqual([]);
    const findings = check.validate({ type: 'RUN_STARTED', threadId: 't', bogus: 1 });
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'schema', severity: 'error', pointer: '', message: "(root): missing required property 'runId'" }));
    expect(findings).toContainEqual(expect.objectContaining({ pointer: '/bogus', message: "/bogus: unexpected property 'bogus'" }));
  });

  it('loads the ACP schema from the SDK package and checks per-method definitions', () => {
    const prompt = bareRegistry().def(ACP_SCHEMA_ID, 'PromptRequest');
    expect(prompt.ok).toBe(true);
    if (prompt.ok) expect(prompt.validate({ sessionId: 's' })[0].message).toMatch(/prompt/);
  });

  it('keeps each document hash, and reads extra directories from AGENT_PROXY_SCHEMAS', () => {
    const hashes = bareRegistry().hashes();
    expect(hashes[AGUI_SCHEMA_ID]).toBe('aba1e109145d943e9be7cef5767ec9c61b966356b1bbc5f37bf7be79f7b4df80');
    const before = process.env.AGENT_PROXY_SCHEMAS;
    process.env.AGENT_PROXY_SCHEMAS = STANDIN_SCHEMAS_DIR;
    try {
      expect(SchemaRegistry.load().hashes()[PI_NDJSON_V1_ID]).toBe(sha256(readFileSync(join(STANDIN_SCHEMAS_DIR, 'protocol.schema.json'))));
    } finally {
      if (before === undefined) delete process.env.AGENT_PROXY_SCHEMAS;
      else process.env.AGENT_PROXY_SCHEMAS = before;
    }
  });

  it('refuses to load before any protocol declared its schemas, rather than judge with none', () => {
    // A fresh process that loads the built registry and no protocol catalog.
    const probe = `
      const { SchemaRegistry } = await import('./dist/schema/schema-registry.js');
      try {
        SchemaRegistry.load({ useEnv: false });
        console.log('loaded');
      } catch (error) {
        console.log(error.code, error.message);
      }
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: join(import.meta.dirname, '../..'), encoding: 'utf8' });
    expect(run.stdout.trim()).toBe('E_SCHEMA_LOAD no protocol declared its schemas: load the protocol catalog (protocols/catalog.ts) before a registry');
  });

  it('refuses an option it does not know (an older release\'s acp: false) instead of loading what it meant to leave out', () => {
    const load = () => SchemaRegistry.load({ useEnv: false, acp: false } as never);
    expect(load).toThrow(expect.objectContaining({ code: 'E_SCHEMA_LOAD', message: expect.stringContaining("unknown schema registry option 'acp'") }));
    expect(SchemaRegistry.load({ useEnv: false, without: [ACP_SCHEMA_ID] }).documents.has(ACP_SCHEMA_ID)).toBe(false);
  });

  it('fails with a typed error on a schema directory that cannot be read or holds broken JSON', () => {
    expect(() => SchemaRegistry.load({ useEnv: false, extraDirs: ['/nonexistent/schemas'] })).toThrow(
      expect.objectContaining({ code: 'E_SCHEMA_LOAD' }),
    );
    const dir = tempDir('schemas-');
    try {
      writeFileSync(dir.file('broken.json'), '{"$id": ');
      expect(() => SchemaRegistry.load({ useEnv: false, extraDirs: [dir.dir] })).toThrow(/broken\.json is not valid JSON/);
    } finally {
      dir.cleanup();
    }
  });
});
