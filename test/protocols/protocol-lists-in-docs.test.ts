/**
 * The `--protocol` values docs/cli.md lists for record and validate are the catalog's, each named:
 * a protocol added to the catalog is documented where users look for the flag's values.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_FAMILIES, PROTOCOL_IDS } from '../../src/protocols/catalog.js';

const CLI_DOC = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');

/** The ids in backticks on a table row of `--protocol <id>`. */
function listedIds(row: string): Set<string> {
  return new Set([...row.matchAll(/`([a-z][a-z0-9-]*)`/g)].map((match) => match[1]));
}

const rows = CLI_DOC.split('\n').filter((line) => line.startsWith('| `--protocol <id>`') && line.includes('`auto`'));

describe('docs/cli.md --protocol lists', () => {
  it('has the rows of record and validate', () => {
    expect(rows.length).toBeGreaterThanOrEqual(2);
  });

  it('record names every protocol and family of the catalog', () => {
    const ids = listedIds(rows[0]);
    for (const id of [...PROTOCOL_IDS, ...PROTOCOL_FAMILIES]) expect(ids, id).toContain(id);
  });

  it('validate names every protocol of the catalog', () => {
    const ids = listedIds(rows[rows.length - 1]);
    for (const id of PROTOCOL_IDS) expect(ids, id).toContain(id);
  });
});
