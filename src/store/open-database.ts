import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { nativeModuleProblem } from './native-module.js';
import { registerRawBlockFunctions } from './raw-blocks.js';
import { sqliteDamage } from './sqlite-damage.js';
import { StoreError, messageOf, sqliteCode } from './store-errors.js';

/**
 * better-sqlite3, loaded at the first open rather than with every module that may open a file: a
 * command that reads no recording (validate of a stream, --help) does not pay for it. It is
 * CommonJS, so it loads synchronously where the file is opened.
 */
let sqlite: typeof Database | undefined;
function loadSqlite(): typeof Database {
  return (sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database);
}

/**
 * Where better-sqlite3's install builds its addon (and where scripts/test-node.sh puts another Node's).
 * Left to itself, better-sqlite3 finds the addon through the `bindings` package, which parses a stack
 * trace and probes a dozen folders: ~2 ms of every command that opens a file. Undefined when that is
 * not the one `bindings` would find (no release build, or a debug build beside it): better-sqlite3
 * then searches as before. An addon that cannot load (built for another Node.js) fails as it would
 * through `bindings`, with the same error.
 */
let addonPath: string | null | undefined;

function sqliteAddonPath(): string | undefined {
  if (addonPath === undefined) {
    const build = join(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'build');
    // `bindings` tries build/ itself, then build/Debug, then build/Release.
    const [own, debug, release] = ['', 'Debug', 'Release'].map((folder) => join(build, folder, 'better_sqlite3.node'));
    addonPath = existsSync(release) && !existsSync(own) && !existsSync(debug) ? release : null;
  }
  return addonPath ?? undefined;
}

/**
 * The page cache of a connection that writes, in KiB. better-sqlite3 builds SQLite with 16 MiB per
 * connection; a recording only appends, touching the right edge of each b-tree, and a full 16 MiB
 * was ~10 MB of the recorder's RSS over a long flood (bench/record.js --only rss). Readers keep the default.
 */
const WRITER_CACHE_KIB = 2048;

/** How long a statement waits for a lock held by another connection before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

export interface OpenDatabaseOptions {
  /** Open read-only; the file must exist. */
  readonly?: boolean;
  /**
   * A throwaway file rebuilt from its source (an NDJSON recording imported to be read): its journal
   * stays in memory and nothing is synced. Creating a small one takes half a millisecond instead of
   * about ten; a crash loses it, which costs nothing.
   */
  scratch?: boolean;
  /** A writable connection's page cache in KiB (default WRITER_CACHE_KIB). */
  cacheKib?: number;
}

/**
 * Opens an SQLite file with the store's pragmas.
 * Writable: WAL (readers in other processes never block the recorder), synchronous=NORMAL
 * (a crash loses at most the last transactions, never corrupts), foreign keys on, a 2 MiB page
 * cache unless `cacheKib` says otherwise; a scratch file keeps its journal in memory and is never synced.
 * Read-only: no pragma (foreign keys only check writes; every open of a recording to read it paid for
 * one); the journal mode is whatever the file has.
 * Either way with the function that reads a message's bytes from its block (store/raw-blocks.ts).
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database.Database {
  const readonly = options.readonly === true;
  let db: Database.Database;
  try {
    db = new (loadSqlite())(file, { readonly, fileMustExist: readonly, timeout: BUSY_TIMEOUT_MS, nativeBinding: sqliteAddonPath() });
  } catch (error) {
    // A missing file is looked for only once the open failed: a stat less on every open that succeeds.
    if (readonly && !existsSync(file)) throw new StoreError('E_STORE_OPEN', file, `no recording at ${file}`);
    // The native module loads on the first open: a build for another Node.js fails here.
    const native = nativeModuleProblem(error);
    if (native !== undefined) throw new StoreError('E_STORE_NATIVE', file, native, { cause: error });
    throw new StoreError('E_STORE_OPEN', file, `cannot open ${file}: ${messageOf(error)}`, { cause: error });
  }
  try {
    if (options.scratch && !readonly) {
      db.pragma('journal_mode = MEMORY');
      db.pragma('synchronous = OFF');
    } else if (!readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    if (!readonly) {
      db.pragma(`cache_size = -${options.cacheKib ?? WRITER_CACHE_KIB}`);
      db.pragma('foreign_keys = ON');
    }
    registerRawBlockFunctions(db, file);
  } catch (error) {
    db.close();
    const code = sqliteCode(error);
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (${sqliteDamage(file)})`, { cause: error });
    }
    throw new StoreError('E_STORE_OPEN', file, `cannot open ${file}: ${messageOf(error)}`, { cause: error });
  }
  return db;
}
