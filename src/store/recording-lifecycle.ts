import type Database from 'better-sqlite3';
import { existsSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { FORMAT_VERSION, RECORDING_TABLES, checkRecordingShape, migrate, readFormatAndSchema, tableNames } from './migrations.js';
import { openDatabase } from './open-database.js';
import { existsError, removeRecordingFiles } from './recording-files.js';
import { StoreError, messageOf } from './store-errors.js';
import { makeFolders } from '../core/make-folders.js';

// A recording's SQLite file from its creation to its close: made new (or in place of another),
// probed and upgraded before it is read or appended to, and left as one self-contained file. Each
// way in opens the file, hands the connection to `use`, and if anything up to and including `use`
// fails, closes it again (and removes a file it made) and says what failed as a StoreError.
// Moving a recording aside while another replaces it is recording-files.ts; one writer at a time,
// writer-lock.ts.

/** A recording appended to: where the new rows continue from. */
export interface RecordingSoFar {
  /** Its `started_at`: offsets of new rows count from it. */
  startedAt: Date;
  /** The largest exchange id in the file (0: none). */
  lastExchangeId: number;
  /** The largest message id in the file (0: none). */
  lastMessageId: number;
}

/**
 * Creates `path` (and its parent folders) as an empty recording at the current format. Refuses an
 * existing non-empty file with E_STORE_EXISTS unless `overwrite`, which removes it first. A file
 * this call made and could not start is removed: it is no recording, and would block the retry.
 */
export function createRecordingFile<T>(path: string, options: { overwrite?: boolean; scratch?: boolean; pageCacheKib?: number }, use: (db: Database.Database) => T): T {
  try {
    makeFolders(dirname(path));
  } catch (error) {
    throw new StoreError('E_STORE_OPEN', path, `cannot create the folder for ${path}: ${messageOf(error)}`, { cause: error });
  }
  if (existsSync(path) && statSync(path).size > 0) {
    if (!options.overwrite) {
      throw existsError(path);
    }
    try {
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
    } catch (error) {
      throw new StoreError('E_STORE_OPEN', path, `cannot replace ${path}: ${messageOf(error)}`, { cause: error });
    }
  }
  const created = !existsSync(path);
  const db = openDatabase(path, { scratch: options.scratch, cacheKib: options.pageCacheKib });
  try {
    migrate(db, path);
    return use(db);
  } catch (error) {
    db.close();
    if (created) removeRecordingFiles(path);
    if (error instanceof StoreError) throw error;
    throw new StoreError('E_STORE_OPEN', path, `cannot start a recording in ${path}: ${messageOf(error)}`, { cause: error });
  }
}

/**
 * Opens an existing recording to append to it: probed read-only first, then upgraded to the
 * current format, and `use` is told where its rows end.
 *
 * Errors: E_STORE_OPEN (missing or unreadable), E_STORE_NOT_RECORDING, E_STORE_VERSION.
 */
export function openRecordingToAppend<T>(path: string, use: (db: Database.Database, soFar: RecordingSoFar) => T): T {
  if (!existsSync(path)) throw new StoreError('E_STORE_OPEN', path, `no recording at ${path} to append to`);
  // Look before writing: a file that is no recording must not even get its journal mode changed.
  const probe = openDatabase(path, { readonly: true });
  try {
    probeRecording(probe, path);
  } finally {
    probe.close();
  }
  const db = openDatabase(path);
  try {
    migrate(db, path);
    const tables = tableNames(db, path);
    const missing = RECORDING_TABLES.filter((t) => !tables.includes(t));
    if (missing.length > 0) {
      throw new StoreError('E_STORE_NOT_RECORDING', path, `${path}: not a recording (missing tables: ${missing.join(', ')})`);
    }
    const row = db.prepare('SELECT started_at FROM recording WHERE id = 1').get() as { started_at: string } | undefined;
    if (row === undefined) {
      throw new StoreError('E_STORE_NOT_RECORDING', path, `${path}: not a recording (no recording row)`);
    }
    const startedAt = new Date(row.started_at);
    if (Number.isNaN(startedAt.getTime())) {
      throw new StoreError('E_STORE_NOT_RECORDING', path, `${path} has an unreadable recording.started_at (${row.started_at})`);
    }
    const max = db.prepare('SELECT (SELECT coalesce(max(id), 0) FROM exchanges) AS exchange, (SELECT coalesce(max(id), 0) FROM messages) AS message').get() as {
      exchange: number;
      message: number;
    };
    return use(db, { startedAt, lastExchangeId: max.exchange, lastMessageId: max.message });
  } catch (error) {
    db.close();
    if (error instanceof StoreError) throw error;
    throw new StoreError('E_STORE_OPEN', path, `cannot append to ${path}: ${messageOf(error)}`, { cause: error });
  }
}

/**
 * Opens a recording read-only. A file at an older format version is upgraded in place first (the
 * only write a reader makes); a newer one is refused with E_STORE_VERSION.
 */
export function openRecordingToRead<T>(file: string, use: (db: Database.Database) => T): T {
  let db = openDatabase(file, { readonly: true });
  try {
    // The shape of its own version first: an upgrade must not write into a file that is no recording.
    const version = probeRecording(db, file);
    if (version < FORMAT_VERSION) {
      db.close();
      const writable = openDatabase(file);
      try {
        migrate(writable, file);
      } finally {
        writable.close();
      }
      db = openDatabase(file, { readonly: true });
    }
    return use(db);
  } catch (error) {
    if (db.open) db.close();
    if (error instanceof StoreError) throw error;
    throw new StoreError('E_STORE_OPEN', file, `cannot read ${file}: ${messageOf(error)}`, { cause: error });
  }
}

/**
 * The format version of an open file that must be a recording, checked before anything writes to
 * it: an SQLite database without tables is none (E_STORE_NOT_RECORDING), a newer version is
 * refused (E_STORE_VERSION), and its tables must have the shape of its version.
 */
export function probeRecording(db: Database.Database, file: string): number {
  const { version, schema } = readFormatAndSchema(db, file);
  if (version === 0) {
    throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (an SQLite database without tables)`);
  }
  checkRecordingShape(db, file, version, schema);
  return version;
}

/**
 * Leaves a recording that is done as one self-contained file: checkpoints the WAL into the main
 * file and switches back to a rollback journal when no other connection has it open, so that it
 * opens even from a read-only folder. The caller closes the connection.
 */
export function finishRecordingFile(db: Database.Database): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
  // Changing the journal mode needs the only connection; a live `proxy show` keeps WAL, which is fine.
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('journal_mode = DELETE');
  } catch {
    // Another process reads the file: it stays in WAL mode, equally valid.
  }
}
