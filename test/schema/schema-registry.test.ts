import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACP_SCHEMA_ID, AGUI_SCHEMA_ID, PI_NDJSON_V1_ID, PI_SESSION_API_ID, SchemaRegistry } from '../../src/schema/schema-registry.js';
import { bareRegistry, STANDIN_SCHEMAS_DIR, testRegistry } from '../support/shared.js';
import { tempDir } from '../support/temp-dir.js';

describe('SchemaRegistry', () => {
  it('reports every $ref to an unloaded document instead of skipping it', () => {
    const missing = bareRegistry().unresolvedRefs();
    const targets = new Set(missing.map((m) => m.missingId));
    expect(targets).toEqual(new Set(['https://a.skh.am/pi-daemon/dashboard-api.schema.json', 'https://a.skh.am/pi-daemon/schedule.schema.json']));
    expect(missing.every((m) => m.from === PI_SESSION_API_ID)).toBe(true);
  });

  it('resolves every $ref once the extra schemas are loaded (here our stand-ins; the real ones: test/conformance)', () => {
    expect(testRegistry().unresolvedRefs()).toEqual([]);
    expect(testRegistry().has(PI_NDJSON_V1_ID)).toBe(true);
  });

  it('marks only the $defs that reach a missing document as unchecked, naming the $id and the flag', () => {
    const registry = bareRegistry();
    const dashboard = registry.def(PI_SESSION_API_ID, 'dashboardDiagnosticsEnvelope');
    expect(dashboard.ok).toBe(false);
    if (!dashboard.ok) {
      expect(dashboard.missing).toEqual(['https://a.skh.am/pi-daemon/dashboard-api.schema.json']);
      expect(dashboard.reason).toMatch(/dashboard-api\.schema\.json.*--schemas <dir>.*AGENT_PROXY_SCHEMAS/);
    }
    const ticket = registry.def(PI_SESSION_API_ID, 'ticketEnvelope');
    expect(ticket.ok).toBe(true);
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
      expect(SchemaRegistry.load().unresolvedRefs()).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.AGENT_PROXY_SCHEMAS;
      else process.env.AGENT_PROXY_SCHEMAS = before;
    }
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
