import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProxyError } from '../../src/core/errors.js';
import { FORMAT_VERSION, MIGRATIONS, migrate, tableNames, type Migration } from '../../src/store/migrations.js';
import { openDatabase } from '../../src/store/open-database.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { StoreError } from '../../src/store/store-errors.js';
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

function recordingAtV1(file: string): void {
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
    expect(tableNames(db, file).sort()).toEqual(['exchanges', 'findings', 'messages', 'recording']);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    // Running it again is a no-op.
    expect(migrate(db, file)).toEqual({ from: FORMAT_VERSION, to: FORMAT_VERSION });
    db.close();
  });

  it('upgrades an older recording step by step, and the reader opens the result', () => {
    const file = join(tmp.dir, 'v1.sqlite');
    recordingAtV1(file);
    const v2: Migration = { version: 2, description: 'add exchanges.note', up: (db) => db.exec('ALTER TABLE exchanges ADD COLUMN note TEXT') };
    const db = openDatabase(file);
    expect(migrate(db, file, [...MIGRATIONS, v2])).toEqual({ from: 1, to: 2 });
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(db.prepare('SELECT format_version FROM recording').get()).toEqual({ format_version: 2 });
    expect(db.prepare('SELECT note FROM exchanges').get()).toEqual({ note: null });
    db.close();
    // This build only knows version 1, so the upgraded file is now "newer".
    expect(codeOf(() => RecordingReader.open(file))).toBe('E_STORE_VERSION');
  });

  it('a failing step leaves the file at the previous version', () => {
    const file = join(tmp.dir, 'rollback.sqlite');
    recordingAtV1(file);
    const broken: Migration = {
      version: 2,
      description: 'breaks halfway',
      up: (db) => {
        db.exec('CREATE TABLE half_done (a)');
        throw new Error('boom');
      },
    };
    const db = openDatabase(file);
    expect(codeOf(() => migrate(db, file, [...MIGRATIONS, broken]))).toBe('E_STORE_WRITE');
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(tableNames(db, file)).not.toContain('half_done');
    db.close();
    const reader = RecordingReader.open(file);
    expect(reader.totals().messages).toBe(1);
    reader.close();
  });

  it('refuses a gap in the chain', () => {
    const file = join(tmp.dir, 'gap.sqlite');
    recordingAtV1(file);
    const db = openDatabase(file);
    const v3: Migration = { version: 3, description: 'skips 2', up: () => {} };
    expect(codeOf(() => migrate(db, file, [...MIGRATIONS, v3]))).toBe('E_STORE_VERSION');
    db.close();
  });

  it('refuses a file with a newer user_version (99) with E_STORE_VERSION', () => {
    const file = join(tmp.dir, 'v99.sqlite');
    recordingAtV1(file);
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

  it('a recording file with its recording row missing: E_STORE_NOT_RECORDING', () => {
    const file = join(tmp.dir, 'norow.sqlite');
    recordingAtV1(file);
    const db = new Database(file);
    db.exec('DELETE FROM recording');
    db.close();
    expect(codeOf(() => RecordingReader.open(file))).toBe('E_STORE_NOT_RECORDING');
  });
});
