import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { error, warning } from '../../src/core/finding.js';
import { verdictFrom } from '../../src/core/verdict.js';
import { exportNdjsonText } from '../../src/export/ndjson-export.js';
import { importNdjsonFile, importNdjsonText } from '../../src/store/ndjson-import.js';
import type { Column, Columns } from '../../src/store/columns.js';
import { FORMAT_VERSION, MIGRATIONS, migrate } from '../../src/store/migrations.js';
import { NEWEST_SCHEMA } from '../../src/store/newest-schema.js';
import { openDatabase } from '../../src/store/open-database.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import {
  EXCHANGE_COLUMNS,
  EXCHANGE_END_FIELDS,
  EXCHANGE_START_FIELDS,
  EXCHANGE_UPDATE_FIELDS,
  TABLES,
  type ExchangeFields,
} from '../../src/store/schema.js';
import type { ExchangeEnd, ExchangeStart, ExchangeUpdate } from '../../src/store/store-types.js';
import { meta, thrown } from './store-fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const EXAMPLES = fileURLToPath(new URL('../../recordings/examples/', import.meta.url));

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

interface TableInfo {
  name: string;
  type: string;
  notnull: number;
  pk: number;
}

/** Each table's columns as the file has them: name, SQL type, NOT NULL (a rowid primary key is never null). */
function columnsInFile(file: string): Record<string, string[]> {
  const db = openDatabase(file, { readonly: true });
  try {
    const out: Record<string, string[]> = {};
    for (const table of Object.keys(TABLES)) {
      const info = db.prepare('SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid').all(table) as TableInfo[];
      out[table] = info.map((c) => `${c.name} ${c.type}${c.notnull === 1 || c.pk > 0 ? ' NOT NULL' : ''}`);
    }
    return out;
  } finally {
    db.close();
  }
}

function columnsInSchema(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [table, columns] of Object.entries(TABLES) as Array<[string, Columns]>) {
    out[table] = Object.values(columns).map((c) => `${c.name} ${c.type}${c.notNull ? ' NOT NULL' : ''}`);
  }
  return out;
}

/** Every row of every table, every column (`SELECT *`): what the file holds, whatever the schema module says. */
function everyRow(file: string): Record<string, unknown[]> {
  const db = openDatabase(file, { readonly: true });
  try {
    const out: Record<string, unknown[]> = {};
    for (const table of Object.keys(TABLES)) out[table] = db.prepare(`SELECT * FROM ${table} ORDER BY id`).all();
    return out;
  } finally {
    db.close();
  }
}

/** A value for one column that no other column has, of the column's type (JSON columns get header-shaped objects). */
function sampleValue(field: string, column: Column, n: number): unknown {
  if (field === 'transport') return 'ws';
  if (field === 'outcome') return 'error';
  if (field === 'tls') return { protocol: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', subject: 'CN=localhost', issuer: 'CN=Test CA', validFrom: '2026-01-01T00:00:00.000Z', validTo: '2027-01-01T00:00:00.000Z', fingerprint256: 'AB:CD', authorized: false, authorizationError: 'CERT_HAS_EXPIRED' };
  if (field === 'tunnel') return { clientBytes: 1234, serverBytes: 56789 };
  if (column.json) return { [`x-${field.toLowerCase()}`]: [`${field}-1`, `${field}-2`] };
  if (column.type === 'INTEGER') return 100 + n;
  if (column.type === 'REAL') return 10.25 + n;
  return `${field} ${n}`;
}

/** An exchange with every column set, from the schema: what a start, an update and an end give. */
function everyColumn(): { start: ExchangeStart; update: ExchangeUpdate; end: ExchangeEnd } {
  const values = new Map<string, unknown>();
  (Object.entries(EXCHANGE_COLUMNS) as Array<[string, Column]>).forEach(([field, column], n) => values.set(field, sampleValue(field, column, n)));
  const pick = (fields: readonly string[]) => Object.fromEntries(fields.map((f) => [f, values.get(f)]));
  return {
    start: { ...pick(EXCHANGE_START_FIELDS), tOffsetMs: values.get('startedMs') } as ExchangeStart,
    update: pick(EXCHANGE_UPDATE_FIELDS) as ExchangeUpdate,
    end: { ...pick(EXCHANGE_END_FIELDS), tOffsetMs: values.get('endedMs') } as ExchangeEnd,
  };
}

/**
 * Everything SQLite keeps of a file's shape: each table's and index's CREATE text (white space
 * evened out: ALTER TABLE appends a column as `\n, name TYPE`), each table's columns (order, type,
 * NOT NULL, default, primary key), indexes (unique, partial, columns) and foreign keys.
 */
function shapeOf(file: string): Record<string, unknown> {
  const db = openDatabase(file, { readonly: true });
  try {
    const all = (sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as Array<Record<string, unknown>>;
    const entries = (db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name').all() as Array<{ type: string; name: string; tbl_name: string; sql: string | null }>).map(
      (entry) => ({ ...entry, sql: entry.sql?.replace(/\s+/g, ' ').replace(/\s*([(),])\s*/g, '$1') ?? null }),
    );
    const tables = entries.filter((e) => e.type === 'table').map((e) => e.name);
    const indexes = entries.filter((e) => e.type === 'index').map((e) => e.name);
    return {
      userVersion: db.pragma('user_version', { simple: true }),
      entries,
      columns: Object.fromEntries(tables.map((t) => [t, all('SELECT * FROM pragma_table_xinfo(?) ORDER BY cid', t)])),
      indexes: Object.fromEntries(tables.map((t) => [t, all('SELECT name, "unique", origin, partial FROM pragma_index_list(?) ORDER BY name', t)])),
      indexColumns: Object.fromEntries(indexes.map((i) => [i, all('SELECT * FROM pragma_index_xinfo(?) ORDER BY seqno', i)])),
      foreignKeys: Object.fromEntries(tables.map((t) => [t, all('SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq', t)])),
    };
  } finally {
    db.close();
  }
}

/** A file made by `migrate` with `migrations` (default: this build's own chain, which makes a new file's tables at once). */
function migrated(name: string, migrations?: typeof MIGRATIONS): string {
  const file = join(tmp.dir, name);
  const db = openDatabase(file);
  try {
    migrate(db, file, migrations);
  } finally {
    db.close();
  }
  return file;
}

describe("a new recording's tables", () => {
  it('are made at the newest format at once', () => {
    expect(NEWEST_SCHEMA.version).toBe(FORMAT_VERSION);
    const shape = shapeOf(migrated('fresh.db'));
    expect(shape.userVersion).toBe(FORMAT_VERSION);
    expect(Object.keys(shape.columns as object).sort()).toEqual(Object.keys(TABLES).sort());
  });

  it('are those the migration chain makes of an empty file, step by step: columns, types, constraints, indexes', () => {
    // A copy of the chain is not the build's own list, so migrate runs each step.
    expect(shapeOf(migrated('fresh.db'))).toEqual(shapeOf(migrated('chain.db', [...MIGRATIONS])));
  });

  it('are those of a file of each older format once upgraded', () => {
    const fresh = shapeOf(migrated('fresh.db'));
    for (let version = 1; version < FORMAT_VERSION; version++) {
      const file = migrated(`v${version}.db`, MIGRATIONS.slice(0, version));
      expect(shapeOf(file).userVersion, `format ${version}`).toBe(version);
      const db = openDatabase(file);
      try {
        expect(migrate(db, file)).toEqual({ from: version, to: FORMAT_VERSION });
      } finally {
        db.close();
      }
      expect(shapeOf(file), `format ${version}, upgraded`).toEqual(fresh);
    }
  });
});

describe('the schema module', () => {
  it('lists exactly the columns a migrated recording has, in order, with their types', () => {
    expect(columnsInSchema()).toEqual(columnsInFile(migrated('fresh.db')));
    expect(columnsInSchema()).toEqual(columnsInFile(migrated('chain.db', [...MIGRATIONS])));
  });

  it('lists the columns of the committed example recordings once imported', () => {
    const examples = readdirSync(EXAMPLES).filter((f) => f.endsWith('.ndjson'));
    expect(examples.length).toBeGreaterThan(0);
    for (const name of examples) {
      const out = join(tmp.dir, `${name}.db`);
      importNdjsonFile(join(EXAMPLES, name), out);
      expect(columnsInFile(out), name).toEqual(columnsInSchema());
      // The NDJSON form is unchanged: what was committed is what an export writes.
      const reader = RecordingReader.open(out);
      try {
        expect(exportNdjsonText(reader), name).toBe(readFileSync(join(EXAMPLES, name), 'utf8'));
      } finally {
        reader.close();
      }
    }
  });

  it('lets the writer set every exchange column: each is the start, an update or the end', () => {
    const set = new Set<string>(['id', 'startedMs', 'endedMs', ...EXCHANGE_START_FIELDS, ...EXCHANGE_UPDATE_FIELDS, ...EXCHANGE_END_FIELDS]);
    expect([...set].sort()).toEqual(Object.keys(EXCHANGE_COLUMNS).sort());
  });
});

describe('writer → reader → NDJSON export → import → reader', () => {
  it('keeps every column of every table', () => {
    const original = join(tmp.dir, 'original.db');
    const writer = RecordingWriter.open(original, meta());
    const { start, update, end } = everyColumn();
    const id = writer.beginExchange(start);
    writer.flush(); // the update and the end go through UPDATE statements, not the queued INSERT
    writer.updateExchange(id, update);
    writer.endExchange(id, end);
    const merged = writer.beginExchange(start); // ... and here they merge into the queued INSERT
    writer.updateExchange(merged, update);
    writer.endExchange(merged, end);
    // The first message's raw holds its JSON text as it is (json_at), the second's (an event of two data lines) does not (json).
    // The first's trailing spaces make its bytes worth a block when the writer closes (raw_block, raw_blocks).
    for (const [exchangeId, raw] of [[id, `{"type":"x"}${' '.repeat(256)}`], [merged, 'data: {"type":\ndata: "x"}\n\n']] as const) {
      writer.addMessage({
        exchangeId,
        sender: 'server',
        carrier: 'frame',
        channel: 'text',
        tOffsetMs: 12.5,
        raw: Buffer.from(raw),
        json: { type: 'x' },
        rawTruncatedFrom: 4096,
        verdict: { ...verdictFrom([error('schema.required', '/a', 'a is required'), warning('schema.extra', '/b', 'b is extra')], 'https://example.test/s.json#/$defs/X'), reason: 'checked' },
      });
    }
    writer.close(new Date('2026-01-02T03:05:00.000Z'));

    const stored = everyRow(original);
    // Every column is set in some row (a message's JSON is in json or at json_at), so that a column the
    // round trip dropped would show; but schema_ref, which only rows written before format 8 and
    // verdicts rewritten in a scratch copy hold (the writer names the ref by schema_ref_id).
    for (const [table, rows] of Object.entries(stored) as Array<[string, Array<Record<string, unknown>>]>) {
      expect(rows.length, table).toBeGreaterThan(0);
      for (const column of Object.keys(rows[0])) {
        if (`${table}.${column}` !== 'messages.schema_ref') expect(rows.some((row) => row[column] !== null), `${table}.${column}`).toBe(true);
      }
    }
    const reader = RecordingReader.open(original);
    const exchanges = reader.exchanges();
    const expected = Object.fromEntries(
      Object.keys(EXCHANGE_COLUMNS).map((f) => [f, f === 'startedMs' ? start.tOffsetMs : f === 'endedMs' ? end.tOffsetMs : { ...start, ...update, ...end }[f as keyof ExchangeStart]]),
    ) as unknown as Omit<ExchangeFields, 'id'>;
    expect(exchanges).toEqual([
      { ...expected, id, messageCount: 1, invalidCount: 1, uncheckedCount: 0 },
      { ...expected, id: merged, messageCount: 1, invalidCount: 1, uncheckedCount: 0 },
    ]);
    const text = exportNdjsonText(reader);
    reader.close();

    const copy = join(tmp.dir, 'copy.db');
    importNdjsonText(text, copy);
    expect(everyRow(copy)).toEqual(stored);
    const again = RecordingReader.open(copy);
    try {
      expect(again.exchanges()).toEqual(exchanges);
      expect(exportNdjsonText(again)).toBe(text);
    } finally {
      again.close();
    }
  });

  it('refuses an NDJSON exchange line whose column holds a value of the wrong type, naming the field', () => {
    const original = join(tmp.dir, 'original.db');
    const writer = RecordingWriter.open(original, meta());
    writer.beginExchange({ transport: 'http', tOffsetMs: 1 });
    writer.close();
    const reader = RecordingReader.open(original);
    const [recordingLine, exchangeLine] = exportNdjsonText(reader).trimEnd().split('\n');
    reader.close();
    const checked = (Object.entries(EXCHANGE_COLUMNS) as Array<[string, Column]>).filter(([, column]) => !column.json);
    expect(checked.length).toBeGreaterThan(10);
    for (const [field] of checked) {
      const line = { ...JSON.parse(exchangeLine), [field]: { not: 'a column value' } };
      const out = join(tmp.dir, `${field}.db`);
      const problem = thrown(() => importNdjsonText(`${recordingLine}\n${JSON.stringify(line)}\n`, out));
      expect(problem, field).toMatchObject({ code: 'E_INPUT_MALFORMED' });
      expect((problem as Error).message, field).toContain(`line 2: "${field}" must be`);
    }
  });

  it('refuses an NDJSON exchange line whose tls is not an object with "authorized"', () => {
    const original = join(tmp.dir, 'original.db');
    const writer = RecordingWriter.open(original, meta());
    writer.beginExchange({ transport: 'http', tOffsetMs: 1 });
    writer.close();
    const reader = RecordingReader.open(original);
    const [recordingLine, exchangeLine] = exportNdjsonText(reader).trimEnd().split('\n');
    reader.close();
    for (const tls of ['TLSv1.3', { protocol: 'TLSv1.3' }]) {
      const line = { ...JSON.parse(exchangeLine), tls };
      const problem = thrown(() => importNdjsonText(`${recordingLine}\n${JSON.stringify(line)}\n`, join(tmp.dir, `tls-${typeof tls}.db`)));
      expect((problem as Error).message).toContain('line 2: "tls" must be an object with "authorized" or null');
    }
  });

  it('keeps a recording that never ended, its mode, and an exchange still open, as they were', () => {
    const original = join(tmp.dir, 'original.db');
    const writer = RecordingWriter.open(original, meta({ mode: 'harvested' }));
    writer.beginExchange({ transport: 'sse', tOffsetMs: 1 });
    writer.close(null);
    const reader = RecordingReader.open(original);
    const text = exportNdjsonText(reader);
    reader.close();
    expect(JSON.parse(text.split('\n')[0])).toMatchObject({ mode: 'harvested', endedAt: null });

    const copy = join(tmp.dir, 'copy.db');
    importNdjsonText(text, copy);
    expect(everyRow(copy)).toEqual(everyRow(original));
    const again = RecordingReader.open(copy);
    try {
      expect(again.recording()).not.toHaveProperty('endedAt');
      expect(again.exchanges()[0]).toMatchObject({ outcome: null, endedMs: null });
    } finally {
      again.close();
    }
  });
});
