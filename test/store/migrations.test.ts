import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProxyError } from '../../src/core/errors.js';
import { FORMAT_VERSION, MIGRATIONS, freshRecordingColumns, madeAtNewestFormat, migrate, missingColumns, recordingColumns, tableNames, type Migration } from '../../src/store/migrations.js';
import { NEWEST_SCHEMA_TEXT } from '../../src/store/newest-schema.js';
import { openDatabase } from '../../src/store/open-database.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { StoreError } from '../../src/store/store-errors.js';
import { storedJsonText } from '../../src/store/stored-json.js';
import { rawBytesSql } from '../../src/store/raw-blocks.js';
import { exportNdjsonText } from '../../src/export/ndjson-export.js';
import { meta, thrown } from './store-fixtures.js';
import { tempDir } from '../support/temp-dir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

function codeOf(fn: () => unknown): string {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(StoreError);
  expect(err).toBeInstanceOf(ProxyError);
  return (err as StoreError).code;
}

/** An SQLite file at user_version 0 that has pages but no tables. */
function emptyDatabase(file: string): void {
  const db = new Database(file);
  db.exec('CREATE TABLE scratch (a); DROP TABLE scratch;');
  db.close();
}

/** A recording at the current version, with one exchange and one message. */
function recordingAtCurrent(file: string): void {
  const w = RecordingWriter.open(file, meta());
  const ex = w.beginExchange({ transport: 'http', tOffsetMs: 0 });
  w.addMessage({ exchangeId: ex, sender: 'client', carrier: 'body', tOffsetMs: 0, raw: Buffer.from('{}'), json: {}, verdict: { status: 'valid', findings: [] } });
  w.close();
}

function setUserVersion(file: string, version: number): void {
  const db = new Database(file);
  db.pragma(`user_version = ${version}`);
  db.close();
}

describe('format versions (PRAGMA user_version)', () => {
  it('the chain is contiguous from 1 and FORMAT_VERSION is its last step', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(FORMAT_VERSION).toBe(MIGRATIONS.length);
  });

  it('upgrades a file at user_version 0 with no tables to the current schema', () => {
    const file = join(tmp.dir, 'v0.sqlite');
    emptyDatabase(file);
    const db = openDatabase(file);
    expect(tableNames(db, file)).toEqual([]);
    expect(migrate(db, file)).toEqual({ from: 0, to: FORMAT_VERSION });
    expect(db.pragma('user_version', { simple: true })).toBe(FORMAT_VERSION);
    expect(tableNames(db, file).sort()).toEqual(['exchanges', 'findings', 'messages', 'raw_blocks', 'recording', 'schema_refs']);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    // Running it again is a no-op.
    expect(migrate(db, file)).toEqual({ from: FORMAT_VERSION, to: FORMAT_VERSION });
    db.close();
  });

  it('upgrades an older recording step by step, and the reader opens the result', () => {
    const file = join(tmp.dir, 'older.sqlite');
    recordingAtCurrent(file);
    const next = FORMAT_VERSION + 1;
    const step: Migration = { version: next, description: 'add exchanges.note', up: (db) => db.exec('ALTER TABLE exchanges ADD COLUMN note TEXT') };
    const db = openDatabase(file);
    expect(migrate(db, file, [...MIGRATIONS, step])).toEqual({ from: FORMAT_VERSION, to: next });
    expect(db.pragma('user_version', { simple: true })).toBe(next);
    expect(db.prepare('SELECT format_version FROM recording').get()).toEqual({ format_version: next });
    expect(db.prepare('SELECT note FROM exchanges').get()).toEqual({ note: null });
    db.close();
    // This build does not know that version, so the upgraded file is now "newer".
    expect(codeOf(() => RecordingReader.open(file))).toBe('E_STORE_VERSION');
  });

  it('a version 1 recording (before exchanges.tls) is upgraded when opened: its rows kept, tls null, and new exchanges can carry it', () => {
    const file = join(tmp.dir, 'v1.sqlite');
    const db = openDatabase(file);
    migrate(db, file, MIGRATIONS.slice(0, 1));
    db.prepare("INSERT INTO recording (id, format_version, tool_version, mode, started_at) VALUES (1, 1, '0.1.0', 'record', '2026-01-02T03:04:05.000Z')").run();
    db.prepare("INSERT INTO exchanges (id, transport, method, path, status, started_ms, ended_ms, outcome) VALUES (1, 'http', 'GET', '/v1/health', 200, 1, 2, 'complete')").run();
    db.close();

    const reader = RecordingReader.open(file);
    try {
      expect(reader.recording().formatVersion).toBe(FORMAT_VERSION);
      expect(reader.exchanges()).toMatchObject([{ id: 1, method: 'GET', path: '/v1/health', status: 200, outcome: 'complete', tls: null }]);
    } finally {
      reader.close();
    }
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(FORMAT_VERSION);
    expect(raw.prepare('SELECT format_version FROM recording').get()).toEqual({ format_version: FORMAT_VERSION });
    expect((raw.prepare("SELECT name FROM pragma_table_info('exchanges')").all() as Array<{ name: string }>).map((c) => c.name)).toContain('tls');
    raw.close();

    const tls = { protocol: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', subject: 'CN=localhost', authorized: true };
    const writer = RecordingWriter.append(file);
    const id = writer.beginExchange({ transport: 'sse', tOffsetMs: 3 });
    writer.updateExchange(id, { status: 200, tls });
    writer.close();
    const again = RecordingReader.open(file);
    try {
      expect(again.exchanges().map((e) => e.tls)).toEqual([null, tls]);
    } finally {
      again.close();
    }
  });

  it('a version 6 recording (every JSON text in messages.json, every schema ref in schema_ref) exports the same after its upgrade, and after an append in the new layout', () => {
    const traffic = (w: RecordingWriter) => {
      const ex = w.beginExchange({ transport: 'sse', tOffsetMs: 0 });
      const add = (raw: string, json: unknown) =>
        w.addMessage({ exchangeId: ex, sender: 'server', carrier: 'event', tOffsetMs: 1, raw: Buffer.from(raw), json, verdict: { status: 'valid', schemaRef: 'https://example.test/s.json#/$defs/Event', findings: [] } });
      add('data: {"type":"RUN_STARTED","text":"café 東京"}\n\n', { type: 'RUN_STARTED', text: 'café 東京' });
      add('data: { "spaced": true }\r\n\r\n', { spaced: true });
      add('data: [DONE]\n\n', undefined);
      w.endExchange(ex, { tOffsetMs: 2, outcome: 'complete' });
    };
    const exported = (file: string) => {
      const reader = RecordingReader.open(file);
      try {
        return exportNdjsonText(reader);
      } finally {
        reader.close();
      }
    };
    const current = join(tmp.dir, 'v7.db');
    const writer = RecordingWriter.open(current, meta());
    traffic(writer);
    writer.close(new Date('2026-01-02T03:05:00.000Z'));
    // The same recording as format 6 wrote it: every JSON text in `json` and ref in `schema_ref`, no json_at, schema_ref_id nor schema_refs,
    // and every message's bytes in `raw` (no blocks).
    const old = join(tmp.dir, 'v6.db');
    copyFileSync(current, old);
    const db = openDatabase(old);
    for (const m of db.prepare(`SELECT id, ${rawBytesSql()} AS raw, json, json_at AS jsonAt FROM messages`).all() as Array<{ id: number; raw: Buffer; json: string | null; jsonAt: number | null }>) {
      db.prepare('UPDATE messages SET raw = ?, json = ? WHERE id = ?').run(m.raw, storedJsonText(m), m.id);
    }
    db.exec(`UPDATE messages SET schema_ref = (SELECT ref FROM schema_refs r WHERE r.id = schema_ref_id);
      ALTER TABLE messages DROP COLUMN json_at; ALTER TABLE messages DROP COLUMN schema_ref_id; DROP TABLE schema_refs;
      ALTER TABLE messages DROP COLUMN raw_block; ALTER TABLE messages DROP COLUMN raw_at; ALTER TABLE messages DROP COLUMN raw_size; DROP TABLE raw_blocks;
      UPDATE recording SET format_version = 6; PRAGMA user_version = 6`);
    db.close();

    expect(exported(old)).toBe(exported(current));
    const upgraded = new Database(old, { readonly: true });
    expect(upgraded.pragma('user_version', { simple: true })).toBe(FORMAT_VERSION);
    expect(upgraded.prepare('SELECT json IS NOT NULL AS kept, json_at, schema_ref IS NOT NULL AS ref, schema_ref_id FROM messages ORDER BY id').all()).toEqual([
      { kept: 1, json_at: null, ref: 1, schema_ref_id: null },
      { kept: 1, json_at: null, ref: 1, schema_ref_id: null },
      { kept: 0, json_at: null, ref: 1, schema_ref_id: null },
    ]);
    upgraded.close();
    for (const file of [old, current]) {
      const appending = RecordingWriter.append(file);
      traffic(appending);
      appending.close(new Date('2026-01-02T03:06:00.000Z'));
    }
    expect(exported(old)).toBe(exported(current));
    const appended = new Database(old, { readonly: true });
    expect(appended.prepare('SELECT json_at, json, schema_ref, schema_ref_id FROM messages WHERE id > 3 ORDER BY id').all()).toEqual([
      { json_at: 6, json: null, schema_ref: null, schema_ref_id: 1 },
      { json_at: null, json: '{"spaced":true}', schema_ref: null, schema_ref_id: 1 },
      { json_at: null, json: null, schema_ref: null, schema_ref_id: 1 },
    ]);
    expect(appended.prepare('SELECT id, ref FROM schema_refs').all()).toEqual([{ id: 1, ref: 'https://example.test/s.json#/$defs/Event' }]);
    appended.close();
  });

  it('a failing step leaves the file at the previous version', () => {
    const file = join(tmp.dir, 'rollback.sqlite');
    recordingAtCurrent(file);
    const broken: Migration = {
      version: FORMAT_VERSION + 1,
      description: 'breaks halfway',
      up: (db) => {
        db.exec('CREATE TABLE half_done (a)');
        throw new Error('boom');
      },
    };
    const db = openDatabase(file);
    expect(codeOf(() => migrate(db, file, [...MIGRATIONS, broken]))).toBe('E_STORE_WRITE');
    expect(db.pragma('user_version', { simple: true })).toBe(FORMAT_VERSION);
    expect(tableNames(db, file)).not.toContain('half_done');
    db.close();
    const reader = RecordingReader.open(file);
    expect(reader.totals().messages).toBe(1);
    reader.close();
  });

  it('an empty file whose last step fails is left empty: the whole schema is one transaction', () => {
    const file = join(tmp.dir, 'fresh-rollback.sqlite');
    const broken: Migration = { version: FORMAT_VERSION + 1, description: 'breaks at the end', up: () => {
      throw new Error('boom');
    } };
    const db = openDatabase(file);
    expect(codeOf(() => migrate(db, file, [...MIGRATIONS, broken]))).toBe('E_STORE_WRITE');
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(tableNames(db, file)).toEqual([]);
    // And the retry makes the whole schema, as on any empty file.
    expect(migrate(db, file)).toEqual({ from: 0, to: FORMAT_VERSION });
    db.close();
  });

  it('refuses a gap in the chain', () => {
    const file = join(tmp.dir, 'gap.sqlite');
    recordingAtCurrent(file);
    const db = openDatabase(file);
    const skipping: Migration = { version: FORMAT_VERSION + 2, description: 'skips one', up: () => {} };
    expect(codeOf(() => migrate(db, file, [...MIGRATIONS, skipping]))).toBe('E_STORE_VERSION');
    db.close();
  });

  it('refuses a file with a newer user_version (99) with E_STORE_VERSION', () => {
    const file = join(tmp.dir, 'v99.sqlite');
    recordingAtCurrent(file);
    setUserVersion(file, 99);
    const err = thrown(() => RecordingReader.open(file)) as StoreError;
    expect(err.code).toBe('E_STORE_VERSION');
    expect(err.message).toContain('99');
    expect(err.file).toBe(file);
    const db = openDatabase(file);
    expect(codeOf(() => migrate(db, file))).toBe('E_STORE_VERSION');
    db.close();
  });
});

describe('RecordingReader.open refusals', () => {
  it('a missing file: E_STORE_OPEN', () => {
    expect(codeOf(() => RecordingReader.open(join(tmp.dir, 'nope.sqlite')))).toBe('E_STORE_OPEN');
  });

  it('a file that is not SQLite: E_STORE_NOT_RECORDING', () => {
    const file = join(tmp.dir, 'notes.txt');
    writeFileSync(file, 'this is a text file, not an SQLite database\n'.repeat(40));
    expect(codeOf(() => RecordingReader.open(file))).toBe('E_STORE_NOT_RECORDING');
    const short = join(tmp.dir, 'short.sqlite');
    writeFileSync(short, 'hi');
    expect(codeOf(() => RecordingReader.open(short))).toBe('E_STORE_NOT_RECORDING');
  });

  it('an SQLite file at version 0 (empty, or with foreign tables): E_STORE_NOT_RECORDING', () => {
    const empty = join(tmp.dir, 'empty.sqlite');
    emptyDatabase(empty);
    expect(codeOf(() => RecordingReader.open(empty))).toBe('E_STORE_NOT_RECORDING');

    const foreign = join(tmp.dir, 'foreign.sqlite');
    const db = new Database(foreign);
    db.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
    db.close();
    expect(codeOf(() => RecordingReader.open(foreign))).toBe('E_STORE_NOT_RECORDING');
    const rw = openDatabase(foreign);
    expect(codeOf(() => migrate(rw, foreign))).toBe('E_STORE_NOT_RECORDING');
    expect(tableNames(rw, foreign)).toEqual(['customers']);
    rw.close();
  });

  it('the newest version\'s columns, written out for a quick open, are those of a fresh file migrated to it', () => {
    expect(recordingColumns(FORMAT_VERSION)).toEqual(freshRecordingColumns(FORMAT_VERSION));
    // An older version's are learnt from a fresh file: version 1 has no exchanges.tls.
    expect(recordingColumns(1)).toEqual(freshRecordingColumns(1));
    expect(recordingColumns(1).get('exchanges')).not.toContain('tls');
  });

  it('a file with the recording tables but not their columns: E_STORE_NOT_RECORDING, naming them', () => {
    const file = join(tmp.dir, 'lookalike.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE recording (id INTEGER); CREATE TABLE exchanges (id INTEGER); CREATE TABLE messages (id INTEGER, seq INTEGER); CREATE TABLE findings (id INTEGER)');
    db.pragma(`user_version = ${FORMAT_VERSION}`);
    expect(missingColumns(db)).toEqual(expect.arrayContaining(['recording.format_version', 'exchanges.transport', 'messages.raw', 'findings.rule']));
    expect(missingColumns(db)).not.toContain('messages.seq');
    db.close();
    const err = thrown(() => RecordingReader.open(file));
    expect((err as StoreError).code).toBe('E_STORE_NOT_RECORDING');
    expect((err as StoreError).message).toMatch(/not a recording \(missing columns: recording\.format_version, recording\.tool_version, recording\.target and \d+ more\)/);
  });

  it('the newest schema\'s text, compared for a quick open, is what sqlite_schema holds in a recording this build made and closed', () => {
    const file = join(tmp.dir, 'made.db');
    recordingAtCurrent(file);
    const db = openDatabase(file, { readonly: true });
    const rows = db.prepare('SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL').raw(true).all() as Array<[string, string]>;
    expect(new Map(rows)).toEqual(NEWEST_SCHEMA_TEXT);
    expect(madeAtNewestFormat(db, file)).toBe(true);
    db.close();
    // A file upgraded from an older format has other text (ALTER TABLE appends to it): checked column by column, and opens.
    const old = join(tmp.dir, 'old.db');
    const oldDb = openDatabase(old);
    migrate(oldDb, old, MIGRATIONS.slice(0, 1));
    migrate(oldDb, old);
    oldDb.close();
    const upgraded = openDatabase(old, { readonly: true });
    expect(upgraded.pragma('user_version', { simple: true })).toBe(FORMAT_VERSION);
    expect(madeAtNewestFormat(upgraded, old)).toBe(false);
    expect(missingColumns(upgraded)).toEqual([]);
    upgraded.close();
  });

  it('a recording this build made, changed since (a column dropped, a table added): checked column by column, and refused only for what it lacks', () => {
    const dropped = join(tmp.dir, 'dropped.db');
    recordingAtCurrent(dropped);
    const db = new Database(dropped);
    db.exec('ALTER TABLE exchanges DROP COLUMN tunnel');
    db.close();
    const err = thrown(() => RecordingReader.open(dropped));
    expect((err as StoreError).code).toBe('E_STORE_NOT_RECORDING');
    expect((err as StoreError).message).toMatch(/not a recording \(missing columns: exchanges\.tunnel\)$/);
    const added = join(tmp.dir, 'added.db');
    recordingAtCurrent(added);
    const withTable = new Database(added);
    withTable.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
    expect(madeAtNewestFormat(withTable, added)).toBe(false);
    withTable.close();
    const reader = RecordingReader.open(added);
    expect(reader.exchanges()).toHaveLength(1);
    reader.close();
  });

  it('a newer format whose schema this SQLite cannot read: E_STORE_VERSION, as its version says, not a damaged file', () => {
    const file = join(tmp.dir, 'future-schema.db');
    recordingAtCurrent(file);
    setUserVersion(file, 99);
    // A table's text changed in place, as a newer SQLite's syntax would be to this one.
    const bytes = readFileSync(file);
    const at = bytes.indexOf('ref TEXT NOT NULL UNIQUE)');
    expect(at).toBeGreaterThan(0);
    bytes.write('ref TEXT NOT NULL FUTURE)', at);
    writeFileSync(file, bytes);
    const err = thrown(() => RecordingReader.open(file));
    expect((err as StoreError).code).toBe('E_STORE_VERSION');
    expect((err as StoreError).message).toMatch(/is recording format 99, but this agent-proxy reads formats up to \d+/);
    // At this build's format, the same schema is a damaged file.
    bytes.writeUInt32BE(FORMAT_VERSION, 60);
    writeFileSync(file, bytes);
    expect(codeOf(() => RecordingReader.open(file))).toBe('E_STORE_NOT_RECORDING');
  });

  it('a recording file with its recording row missing: E_STORE_NOT_RECORDING', () => {
    const file = join(tmp.dir, 'norow.sqlite');
    recordingAtCurrent(file);
    const db = new Database(file);
    db.exec('DELETE FROM recording');
    db.close();
    expect(codeOf(() => RecordingReader.open(file))).toBe('E_STORE_NOT_RECORDING');
  });
});
