/**
 * A new recording's tables at the newest format, one CREATE each: what the migration chain
 * (store/migrations.ts) makes of an empty file, without replaying it (version 1's tables, then
 * each step's ALTER TABLE, each of which rewrites the table's entry in sqlite_schema: ~1.7 ms of
 * every `record` start and every test that makes a recording). Older files still go through the
 * chain. The same columns in the same order, the same types, constraints and indexes:
 * test/store/schema.test.ts holds a fresh file to a file migrated from each older format.
 * A new format adds its step to the chain and changes this text to match.
 */
export const NEWEST_SCHEMA = {
  version: 9,
  sql: `
CREATE TABLE recording (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  format_version  INTEGER NOT NULL,
  tool_version    TEXT NOT NULL,
  target          TEXT,
  listen          TEXT,
  mode            TEXT NOT NULL,
  started_at      TEXT NOT NULL,
  ended_at        TEXT,
  schema_hashes   TEXT NOT NULL DEFAULT '{}',
  rules_version   INTEGER
);

CREATE TABLE exchanges (
  id                 INTEGER PRIMARY KEY,
  transport          TEXT NOT NULL,
  protocol           TEXT,
  method             TEXT,
  path               TEXT,
  query              TEXT,
  url                TEXT,
  status             INTEGER,
  subprotocol        TEXT,
  request_headers    TEXT,
  response_headers   TEXT,
  started_ms         REAL NOT NULL,
  ended_ms           REAL,
  outcome            TEXT,
  error_code         TEXT,
  error_message      TEXT,
  close_code         INTEGER,
  close_reason       TEXT,
  exit_code          INTEGER,
  signal             TEXT,
  tls                TEXT,
  protocol_evidence  TEXT,
  stdin_ended_ms     REAL,
  tunnel             TEXT
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
  finding_count       INTEGER NOT NULL DEFAULT 0,
  json_at             INTEGER,
  schema_ref_id       INTEGER,
  raw_block           INTEGER,
  raw_at              INTEGER,
  raw_size            INTEGER
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

CREATE TABLE schema_refs (id INTEGER PRIMARY KEY, ref TEXT NOT NULL UNIQUE);

CREATE TABLE raw_blocks (id INTEGER PRIMARY KEY, exchange_id INTEGER NOT NULL, size INTEGER NOT NULL, data BLOB NOT NULL);
`,
} as const;

/**
 * Each table's and index's text as sqlite_schema keeps it in a file NEWEST_SCHEMA made (the statement
 * as written, without its semicolon), by name: opening a recording compares its schema with these in
 * one query instead of reading each table's columns (store/migrations.ts, checkRecordingShape).
 * test/store/schema.test.ts holds them to a fresh file's.
 */
export const NEWEST_SCHEMA_TEXT: ReadonlyMap<string, string> = new Map(
  NEWEST_SCHEMA.sql
    .split(';')
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '')
    .map((statement) => [/^CREATE (?:UNIQUE )?(?:TABLE|INDEX) (\w+)/.exec(statement)![1], statement]),
);
