import type Database from 'better-sqlite3';
import { NEWEST_SCHEMA, NEWEST_SCHEMA_TEXT } from './newest-schema.js';
import { openDatabase } from './open-database.js';
import { StoreError, messageOf, sqliteCode } from './store-errors.js';
import { sqliteDamage } from './sqlite-damage.js';

type Db = Database.Database;

/**
 * One step of the format chain: `up` turns a file at `version - 1` into one at `version`.
 * Steps run in order, each in its own transaction together with the `PRAGMA user_version` bump,
 * so a crash mid-upgrade leaves the file at the previous version.
 */
export interface Migration {
  version: number;
  description: string;
  up(db: Db): void;
}

/** Version 1: the first format. docs/recording-format.md describes every column. */
const V1_SCHEMA = `
CREATE TABLE recording (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  format_version  INTEGER NOT NULL,
  tool_version    TEXT NOT NULL,
  target          TEXT,
  listen          TEXT,
  mode            TEXT NOT NULL,
  started_at      TEXT NOT NULL,
  ended_at        TEXT,
  schema_hashes   TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE exchanges (
  id                INTEGER PRIMARY KEY,
  transport         TEXT NOT NULL,
  protocol          TEXT,
  method            TEXT,
  path              TEXT,
  query             TEXT,
  url               TEXT,
  status            INTEGER,
  subprotocol       TEXT,
  request_headers   TEXT,
  response_headers  TEXT,
  started_ms        REAL NOT NULL,
  ended_ms          REAL,
  outcome           TEXT,
  error_code        TEXT,
  error_message     TEXT,
  close_code        INTEGER,
  close_reason      TEXT,
  exit_code         INTEGER,
  signal            TEXT
);

CREATE TABLE messages (
  id                  INTEGER PRIMARY KEY,
  exchange_id         INTEGER NOT NULL REFERENCES exchanges (id),
  seq                 INTEGER NOT NULL,
  sender              TEXT NOT NULL CHECK (sender IN ('client', 'server')),
  carrier             TEXT NOT NULL,
  channel             TEXT,
  t_offset_ms         REAL NOT NULL,
  raw                 BLOB NOT NULL,
  raw_truncated_from  INTEGER,
  json                TEXT,
  status              TEXT NOT NULL CHECK (status IN ('valid', 'invalid', 'unchecked')),
  schema_ref          TEXT,
  reason              TEXT,
  finding_count       INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX messages_by_exchange ON messages (exchange_id, seq);
CREATE INDEX messages_invalid ON messages (id) WHERE status = 'invalid';

CREATE TABLE findings (
  id           INTEGER PRIMARY KEY,
  message_id   INTEGER NOT NULL REFERENCES messages (id),
  exchange_id  INTEGER NOT NULL REFERENCES exchanges (id),
  rule         TEXT NOT NULL,
  severity     TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
  pointer      TEXT NOT NULL,
  message      TEXT NOT NULL
);
CREATE INDEX findings_by_message ON findings (message_id);
CREATE INDEX findings_by_exchange ON findings (exchange_id);
CREATE INDEX findings_by_rule ON findings (rule);
`;

/** The format chain. Append a step for every format change; never edit a released one. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, description: 'recording, exchanges, messages, findings', up: (db) => db.exec(V1_SCHEMA) },
  { version: 2, description: 'exchanges.tls', up: (db) => db.exec('ALTER TABLE exchanges ADD COLUMN tls TEXT') },
  { version: 3, description: 'recording.rules_version', up: (db) => db.exec('ALTER TABLE recording ADD COLUMN rules_version INTEGER') },
  { version: 4, description: 'exchanges.protocol_evidence', up: (db) => db.exec('ALTER TABLE exchanges ADD COLUMN protocol_evidence TEXT') },
  { version: 5, description: 'exchanges.stdin_ended_ms', up: (db) => db.exec('ALTER TABLE exchanges ADD COLUMN stdin_ended_ms REAL') },
  { version: 6, description: 'exchanges.tunnel', up: (db) => db.exec('ALTER TABLE exchanges ADD COLUMN tunnel TEXT') },
  // Rows written before keep their `json`; later ones store it only when raw does not hold it (store/stored-json.ts).
  { version: 7, description: 'messages.json_at', up: (db) => db.exec('ALTER TABLE messages ADD COLUMN json_at INTEGER') },
  // Rows written before keep their `schema_ref`; later ones name it by id (store/schema-refs.ts).
  {
    version: 8,
    description: 'schema_refs, messages.schema_ref_id',
    up: (db) => db.exec('CREATE TABLE schema_refs (id INTEGER PRIMARY KEY, ref TEXT NOT NULL UNIQUE); ALTER TABLE messages ADD COLUMN schema_ref_id INTEGER'),
  },
  // Rows written before keep their bytes in `raw`; a writer that closes moves its own into blocks (store/raw-blocks.ts).
  {
    version: 9,
    description: 'raw_blocks, messages.raw_block, raw_at, raw_size',
    up: (db) =>
      db.exec(`CREATE TABLE raw_blocks (id INTEGER PRIMARY KEY, exchange_id INTEGER NOT NULL, size INTEGER NOT NULL, data BLOB NOT NULL);
        ALTER TABLE messages ADD COLUMN raw_block INTEGER; ALTER TABLE messages ADD COLUMN raw_at INTEGER; ALTER TABLE messages ADD COLUMN raw_size INTEGER`),
  },
];

/** The format version this build writes, and the newest it reads. */
export const FORMAT_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** The tables every recording has; a file without them is not a recording. */
export const RECORDING_TABLES = ['recording', 'exchanges', 'messages', 'findings'] as const;

/** The version from which a recording also has `raw_blocks` (store/raw-blocks.ts). */
const RAW_BLOCKS_VERSION = 9;

/** The tables a recording at `version` has. */
export function recordingTables(version: number = FORMAT_VERSION): readonly string[] {
  return version >= RAW_BLOCKS_VERSION ? [...RECORDING_TABLES, 'raw_blocks'] : RECORDING_TABLES;
}

/**
 * The recording tables' columns at the newest version, written out: opening a recording of that
 * version (every reader's start) checks its shape against these instead of migrating a database
 * in memory to learn them (~4 ms). test/store/migrations.test.ts holds them to what a fresh file
 * migrated to `version` has; while `version` is not FORMAT_VERSION they are not used.
 */
const NEWEST_COLUMNS = {
  version: 9,
  columns: new Map<string, readonly string[]>([
    ['recording', ['id', 'format_version', 'tool_version', 'target', 'listen', 'mode', 'started_at', 'ended_at', 'schema_hashes', 'rules_version']],
    [
      'exchanges',
      ['id', 'transport', 'protocol', 'method', 'path', 'query', 'url', 'status', 'subprotocol', 'request_headers', 'response_headers', 'started_ms', 'ended_ms', 'outcome', 'error_code', 'error_message', 'close_code', 'close_reason', 'exit_code', 'signal', 'tls', 'protocol_evidence', 'stdin_ended_ms', 'tunnel'],
    ],
    ['messages', ['id', 'exchange_id', 'seq', 'sender', 'carrier', 'channel', 't_offset_ms', 'raw', 'raw_truncated_from', 'json', 'status', 'schema_ref', 'reason', 'finding_count', 'json_at', 'schema_ref_id', 'raw_block', 'raw_at', 'raw_size']],
    ['findings', ['id', 'message_id', 'exchange_id', 'rule', 'severity', 'pointer', 'message']],
    ['raw_blocks', ['id', 'exchange_id', 'size', 'data']],
  ]),
} as const;

/** The columns of each recording table at each older version, learnt once from a fresh file migrated to it. */
const expectedColumns = new Map<number, ReadonlyMap<string, readonly string[]>>();

/** The recording tables' columns at `version`, as a fresh file migrated to it has them. */
export function recordingColumns(version: number = FORMAT_VERSION): ReadonlyMap<string, readonly string[]> {
  if (version === NEWEST_COLUMNS.version && version === FORMAT_VERSION) return NEWEST_COLUMNS.columns;
  let expected = expectedColumns.get(version);
  if (!expected) {
    expected = freshRecordingColumns(version);
    expectedColumns.set(version, expected);
  }
  return expected;
}

/** The recording tables' columns of a database migrated to `version` in memory. */
export function freshRecordingColumns(version: number): ReadonlyMap<string, readonly string[]> {
  const fresh = openDatabase(':memory:');
  try {
    migrate(fresh, ':memory:', MIGRATIONS.filter((m) => m.version <= version));
    return new Map(recordingTables(version).map((table) => [table, columnsOf(fresh, table)]));
  } finally {
    fresh.close();
  }
}

/**
 * The recording tables' columns the file lacks for its version (by default the newest), as
 * `table.column`: a file that has the tables' names but not their shape (another tool's, or a
 * damaged one) is not a recording.
 */
export function missingColumns(db: Db, version: number = FORMAT_VERSION): string[] {
  const expected = recordingColumns(version);
  const present = columnsOfTables(db, [...expected.keys()]);
  const missing: string[] = [];
  for (const [table, columns] of expected) {
    for (const column of columns) if (!present.has(`${table}.${column}`)) missing.push(`${table}.${column}`);
  }
  return missing;
}

/** The columns of `tables` the file has, as `table.column`: one query for them all. */
function columnsOfTables(db: Db, tables: readonly string[]): Set<string> {
  const rows = db.prepare('SELECT t.value, p.name FROM json_each(?) t JOIN pragma_table_info(t.value) p').raw(true).all(JSON.stringify(tables)) as Array<[string, string]>;
  return new Set(rows.map(([table, column]) => `${table}.${column}`));
}

/**
 * Does the file hold the tables and indexes a new file at the newest format gets, each as
 * NEWEST_SCHEMA wrote it, and nothing else? Then it has every column of the newest version: one read
 * of sqlite_schema instead of one of each table's columns (~13 % of an open of a small recording). A
 * file made otherwise (upgraded from an older format, or changed since) is checked column by column.
 */
export function madeAtNewestFormat(db: Db, file: string, schema: SchemaText = readSchemaText(db, file)): boolean {
  if (NEWEST_SCHEMA.version !== FORMAT_VERSION) return false;
  return schema.length === NEWEST_SCHEMA_TEXT.size && schema.every(([name, sql]) => NEWEST_SCHEMA_TEXT.get(name) === sql);
}

/** Each table's and index's name and CREATE text, as sqlite_schema holds them. */
export type SchemaText = ReadonlyArray<readonly [name: string, sql: string]>;

// Rows without text are the indexes SQLite makes for a table's UNIQUE constraints: its text says them.
const SCHEMA_TEXT_SQL = 'SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL';

function readSchemaText(db: Db, file: string): SchemaText {
  try {
    return db.prepare(SCHEMA_TEXT_SQL).raw(true).all() as Array<[string, string]>;
  } catch (error) {
    throw notReadable(error, file);
  }
}

/**
 * The file's format version, checked as checkFormat checks it, and its schema's text, in one query:
 * what opening a recording to read it looks at first (store/recording-lifecycle.ts, probeRecording).
 */
export function readFormatAndSchema(db: Db, file: string): { version: number; schema: SchemaText } {
  let rows: Array<[string | null, string | number]>;
  try {
    rows = db.prepare(`SELECT NULL, user_version FROM pragma_user_version UNION ALL ${SCHEMA_TEXT_SQL}`).raw(true).all() as typeof rows;
  } catch (error) {
    // Reading the schema failed, which reading the version alone need not (a newer format's schema this
    // SQLite cannot parse): checkFormat says what it says of the file, else this is the file's problem.
    checkFormat(db, file);
    throw notReadable(error, file);
  }
  // A table's name is never NULL: that row is the version.
  const version = rows.find(([name]) => name === null)![1] as number;
  const schema = rows.filter((row): row is [string, string] => row[0] !== null);
  return { version: checkFormat(db, file, FORMAT_VERSION, version), schema };
}

/**
 * Refuses, with E_STORE_NOT_RECORDING, a file whose tables or columns are not those of a recording
 * at `version`: checked before an upgrade, so that a foreign file is never written to. `schema`: its
 * schema's text when already read (readFormatAndSchema).
 */
export function checkRecordingShape(db: Db, file: string, version: number, schema?: SchemaText): void {
  if (version === FORMAT_VERSION && madeAtNewestFormat(db, file, schema)) return;
  const tables = tableNames(db, file);
  const missingTables = RECORDING_TABLES.filter((t) => !tables.includes(t));
  if (missingTables.length > 0) {
    throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (missing tables: ${missingTables.join(', ')})`);
  }
  const absent = missingColumns(db, version);
  if (absent.length > 0) {
    const shown = absent.length > 3 ? `${absent.slice(0, 3).join(', ')} and ${absent.length - 3} more` : absent.join(', ');
    throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (missing columns: ${shown})`);
  }
}

function columnsOf(db: Db, table: string): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>).map((r) => r.name);
}

/** PRAGMA user_version, with "not a database" turned into a typed error. */
export function readFormatVersion(db: Db, file: string): number {
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } catch (error) {
    throw notReadable(error, file);
  }
}

/** The names of the user tables in the file. */
export function tableNames(db: Db, file: string): string[] {
  try {
    const rows = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>;
    return rows.map((r) => r.name);
  } catch (error) {
    throw notReadable(error, file);
  }
}

/**
 * Refuses a file this build cannot use: a newer format, or version 0 with foreign tables
 * (some other SQLite database, which version 1 must not write into).
 */
export function checkFormat(db: Db, file: string, latest: number = FORMAT_VERSION, version: number = readFormatVersion(db, file)): number {
  if (version > latest) {
    throw new StoreError(
      'E_STORE_VERSION',
      file,
      `${file} is recording format ${version}, but this agent-proxy reads formats up to ${latest}; upgrade agent-proxy to open it`,
    );
  }
  if (version === 0) {
    const tables = tableNames(db, file);
    if (tables.length > 0) {
      throw new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (an SQLite database of another kind, with tables ${tables.join(', ')})`);
    }
  }
  return version;
}

/**
 * Brings the file up to the newest version in `migrations`, one transaction per step.
 * Version 0 with no tables is an empty file and gets the whole schema, in one transaction: with
 * this build's own chain, the newest tables made at once (store/newest-schema.ts); with any other
 * list (a test's, or a copy of the chain), each step in turn.
 */
export function migrate(db: Db, file: string, migrations: readonly Migration[] = MIGRATIONS): { from: number; to: number } {
  const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1].version;
  const from = checkFormat(db, file, latest);
  let version = from;
  // An empty file gets every step in one transaction: one commit instead of one per step (a new
  // recording's start), and a crash leaves it empty, never part-made.
  if (from === 0 && migrations.length > 0) {
    try {
      db.transaction(() => {
        if (migrations === MIGRATIONS && NEWEST_SCHEMA.version === FORMAT_VERSION) {
          db.exec(NEWEST_SCHEMA.sql);
          version = FORMAT_VERSION;
        } else {
          for (const step of migrations) {
            if (step.version !== version + 1) throw new StoreError('E_STORE_VERSION', file, `no migration from recording format ${version} to ${version + 1}`);
            step.up(db);
            version = step.version;
          }
        }
        db.pragma(`user_version = ${version}`);
      }).immediate();
    } catch (error) {
      if (error instanceof StoreError) throw error;
      throw new StoreError('E_STORE_WRITE', file, `cannot create recording format ${latest} in ${file}: ${messageOf(error)}`, { cause: error });
    }
    return { from, to: version };
  }
  for (const step of migrations) {
    if (step.version <= version) continue;
    if (step.version !== version + 1) {
      throw new StoreError('E_STORE_VERSION', file, `no migration from recording format ${version} to ${version + 1}`);
    }
    try {
      db.transaction(() => {
        step.up(db);
        if (version >= 1) db.prepare('UPDATE recording SET format_version = ?').run(step.version);
        db.pragma(`user_version = ${step.version}`);
      }).immediate();
    } catch (error) {
      throw new StoreError('E_STORE_WRITE', file, `cannot upgrade ${file} to recording format ${step.version} (${step.description}): ${messageOf(error)}`, { cause: error });
    }
    version = step.version;
  }
  return { from, to: version };
}

function notReadable(error: unknown, file: string): StoreError {
  const code = sqliteCode(error);
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new StoreError('E_STORE_NOT_RECORDING', file, `${file}: not a recording (${sqliteDamage(file)})`, { cause: error });
  }
  return new StoreError('E_STORE_OPEN', file, `cannot read ${file}: ${messageOf(error)}`, { cause: error });
}
