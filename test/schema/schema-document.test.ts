/**
 * A schema document whose bytes the build compiled validators from is not parsed until its JSON is
 * walked (start-up: parsing the shipped schemas took ~15 ms of every command), and what it parses to
 * then is what an eager read gives. Bytes the build never saw are parsed at once, as before.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import '../../src/protocols/catalog.js';
import { readSchemaDocument } from '../../src/schema/schema-document.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { COMPILED_MANIFEST, type CompiledManifest } from '../../src/schema/compiled-validators.js';
import { piecesFile } from '../../src/schema/compiled-pieces.js';
import { AGUI_SCHEMA_ID } from '../../src/protocols/agui/schemas.js';
import { REPO } from '../cli/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const AGUI_FILE = join(REPO, 'schemas/ag-ui.schema.json');
const COMPILED_DIR = join(REPO, 'dist/schema/compiled');
const scratch = tempDir();
afterAll(() => scratch.cleanup());
afterEach(() => vi.restoreAllMocks());

/** Counts JSON.parse calls on any of `texts` (whole schema documents). */
function countParsesOf(texts: readonly string[]): { readonly count: number } {
  const parse = JSON.parse;
  const wanted = new Set(texts);
  const seen = { count: 0 };
  vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: (key: string, value: unknown) => unknown) => {
    if (wanted.has(text)) seen.count++;
    return parse(text, reviver);
  });
  return seen;
}

describe('readSchemaDocument', () => {
  it('parses a document whose bytes are known only when its JSON is asked for, to what an eager read gives', () => {
    const eager = readSchemaDocument(AGUI_FILE, 'project')!;
    const parses = countParsesOf([readFileSync(AGUI_FILE, 'utf8')]);
    const known = readFileSync(AGUI_FILE);
    const lazy = readSchemaDocument(AGUI_FILE, 'project', undefined, (bytes) => (bytes.equals(known) ? { id: AGUI_SCHEMA_ID, sha256: eager.sha256 } : undefined))!;
    expect({ id: lazy.id, sha256: lazy.sha256, source: lazy.source }).toEqual({ id: AGUI_SCHEMA_ID, sha256: eager.sha256, source: 'project' });
    expect(parses.count).toBe(0);
    expect(lazy.json).toEqual(eager.json);
    expect(lazy.json).toBe(lazy.json);
    expect(parses.count).toBe(1);
  });

  it('gives a known document without $id the id it is addressed by, as an eager read does', () => {
    const file = scratch.file('no-id.json');
    writeFileSync(file, JSON.stringify({ $defs: { A: { type: 'string' } } }));
    const eager = readSchemaDocument(file, 'package', 'https://example.test/no-id.json')!;
    const lazy = readSchemaDocument(file, 'package', 'https://example.test/no-id.json', () => ({ id: 'https://example.test/no-id.json', sha256: eager.sha256 }))!;
    expect(lazy.json).toEqual(eager.json);
    expect(lazy.json.$id).toBe('https://example.test/no-id.json');
  });

  it('parses bytes the build never saw at once, failing on malformed ones as before', () => {
    const file = scratch.file('broken.json');
    writeFileSync(file, '{ "$id": "https://example.test/broken.json", ');
    expect(() => readSchemaDocument(file, 'extra', undefined, () => undefined)).toThrow(/is not valid JSON/);
  });
});

describe('a registry with the compiled validators', () => {
  it('judges an AG-UI event without parsing any shipped document, and each parses, when walked, as without them', () => {
    const runtime = SchemaRegistry.load({ useEnv: false, compiledValidators: false });
    const parses = countParsesOf([...runtime.documents.values()].map((doc) => readFileSync(doc.file, 'utf8')));
    const registry = SchemaRegistry.load({ useEnv: false, compiledValidators: COMPILED_DIR });
    const check = registry.check(`${AGUI_SCHEMA_ID}#RunStartedEvent`);
    expect(check.ok && check.validate({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })).toEqual([]);
    expect(parses.count).toBe(0);
    vi.restoreAllMocks();
    expect([...registry.documents.keys()]).toEqual([...runtime.documents.keys()]);
    expect(registry.hashes()).toEqual(runtime.hashes());
    for (const [id, doc] of runtime.documents) expect(registry.documents.get(id)!.json, id).toEqual(doc.json);
  });

  it('knows a shipped document by the very bytes the build copied: one byte changed in the copy (same size), the file is hashed and parsed when first used and judged without the compiled code', () => {
    const manifest = JSON.parse(readFileSync(join(COMPILED_DIR, COMPILED_MANIFEST), 'utf8')) as CompiledManifest;
    const entry = manifest.documents[AGUI_SCHEMA_ID]!;
    const text = readFileSync(AGUI_FILE, 'utf8');
    const sha256 = createHash('sha256').update(text).digest('hex');
    expect({ size: entry.size, sha256: entry.needs[AGUI_SCHEMA_ID] }).toEqual({ size: Buffer.byteLength(text), sha256 });
    // A build of AG-UI's validators alone, whose copy of the document is the file's or differs from it by one byte.
    const buildWith = (copy: Buffer, name: string): string => {
      const dir = join(scratch.dir, name);
      mkdirSync(dir);
      for (const file of [entry.allErrors, entry.firstError, entry.exports, piecesFile(entry.allErrors), piecesFile(entry.firstError)]) copyFileSync(join(COMPILED_DIR, file), join(dir, file));
      writeFileSync(join(dir, entry.source), copy);
      writeFileSync(join(dir, COMPILED_MANIFEST), JSON.stringify({ format: manifest.format, documents: { [AGUI_SCHEMA_ID]: entry } }));
      return dir;
    };
    const others = SchemaRegistry.load({ useEnv: false, compiledValidators: false });
    const without = [...others.documents.keys()].filter((id) => id !== AGUI_SCHEMA_ID);
    const changed = readFileSync(AGUI_FILE);
    changed[100] ^= 1;
    const event = { type: 'RUN_STARTED', threadId: 't', runId: 7 };
    const expected = others.check(`${AGUI_SCHEMA_ID}#RunStartedEvent`);
    expect(expected.ok).toBe(true);

    const same = buildWith(readFileSync(AGUI_FILE), 'same');
    let parses = countParsesOf([text]);
    const fromCopy = SchemaRegistry.load({ useEnv: false, without, compiledValidators: same });
    const known = fromCopy.check(`${AGUI_SCHEMA_ID}#RunStartedEvent`);
    expect(parses.count).toBe(0);
    expect(fromCopy.hashes()).toEqual({ [AGUI_SCHEMA_ID]: sha256 });
    expect(known.ok && known.validate(event)).toEqual(expected.ok && expected.validate(event));
    vi.restoreAllMocks();

    const stale = buildWith(changed, 'stale');
    parses = countParsesOf([text]);
    const fromFile = SchemaRegistry.load({ useEnv: false, without, compiledValidators: stale });
    // Of the size the build read: known by the manifest's $id until used, then read and found changed.
    expect(parses.count).toBe(0);
    const unknown = fromFile.check(`${AGUI_SCHEMA_ID}#RunStartedEvent`);
    expect(parses.count).toBe(1);
    expect(fromFile.hashes()).toEqual({ [AGUI_SCHEMA_ID]: sha256 });
    expect(unknown.ok && unknown.validate(event)).toEqual(expected.ok && expected.validate(event));
    expect(unknown.ok && unknown.validate(event)).not.toEqual([]);
  });

  it('were compiled from the shipped files as they are: each document\'s hash in the build\'s manifest is its file\'s', () => {
    const manifest = JSON.parse(readFileSync(join(COMPILED_DIR, COMPILED_MANIFEST), 'utf8')) as CompiledManifest;
    const shipped = SchemaRegistry.load({ useEnv: false, compiledValidators: false });
    for (const [id, doc] of shipped.documents) expect(manifest.documents[id]?.needs[id], `${id} (${doc.file})`).toBe(createHash('sha256').update(readFileSync(doc.file)).digest('hex'));
    expect(SchemaRegistry.load({ useEnv: false, compiledValidators: COMPILED_DIR }).hashes()).toEqual(Object.fromEntries(Object.keys(manifest.documents).map((id) => [id, manifest.documents[id]!.needs[id]])));
  });
});
