/**
 * schemas/ holds third-party documents byte for byte: each file's sha256 is the one schemas/README.md
 * states, every schema file is listed there, and the registry a user gets without --schemas loads
 * them all, with every $ref resolved.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import { REPO } from '../cli/run-cli.js';

const SCHEMAS = join(REPO, 'schemas');

/** The rows of schemas/README.md's tables: file, $id and sha256. */
function listed(): Array<{ file: string; id: string; sha256: string }> {
  const rows: Array<{ file: string; id: string; sha256: string }> = [];
  for (const line of readFileSync(join(SCHEMAS, 'README.md'), 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const sha256 = cells.find((c) => /^[0-9a-f]{64}$/.test(c));
    if (sha256 && cells[1].endsWith('.json')) rows.push({ file: cells[1], id: cells[2], sha256 });
  }
  return rows;
}

const sha256Of = (file: string) => createHash('sha256').update(readFileSync(join(SCHEMAS, file))).digest('hex');

describe('the shipped schemas', () => {
  it('are the bytes schemas/README.md gives the sha256 of, and every schema file is listed', () => {
    const rows = listed();
    expect(rows.map((r) => r.file).sort()).toEqual(readdirSync(SCHEMAS).filter((f) => f.endsWith('.json')).sort());
    for (const row of rows) expect(sha256Of(row.file), row.file).toBe(row.sha256);
  });

  it('ship the pi-daemon license beside its schemas', () => {
    expect(readFileSync(join(SCHEMAS, 'LICENSE.pi-daemon'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 Harry Askham\n/);
  });

  it('are all loaded without --schemas, by the $id and hash the README gives, and every $ref resolves', () => {
    const registry = SchemaRegistry.load({ useEnv: false });
    const hashes = registry.hashes();
    for (const row of listed()) expect(hashes[row.id], row.file).toBe(row.sha256);
    expect(registry.unresolvedRefs()).toEqual([]);
  });

  it('judge the capabilities, dashboard and schedule envelopes out of the box', () => {
    const registry = SchemaRegistry.load({ useEnv: false });
    for (const name of ['capabilitiesEnvelope', 'dashboardServiceCapabilitiesEnvelope', 'dashboardDiagnosticsEnvelope', 'scheduleListEnvelope']) {
      const check = registry.def(PI_SESSION_API_ID, name);
      expect(check, name).toMatchObject({ ok: true });
      // A check that accepts anything would say nothing: an empty object is not an envelope.
      if (check.ok) expect(check.validate({}).length, name).toBeGreaterThan(0);
    }
  });
});
