import { deflateSync } from 'node:zlib';
import { openDatabase } from '../../src/store/open-database.js';
import { describe, expect, it } from 'vitest';
import { jsonStartIn, jsonTextAt, storedJsonSql, storedJsonText } from '../../src/store/stored-json.js';

const at = (raw: string, json: string) => jsonStartIn(Buffer.from(raw), json);

describe('jsonStartIn: where raw holds the JSON text as it is', () => {
  it('finds a body, a line, an SSE event and an event with its event: line, up to their trailing white space', () => {
    expect(at('{"a":1}', '{"a":1}')).toBe(0);
    expect(at('{"a":1}\n', '{"a":1}')).toBe(0);
    expect(at('data: {"a":"東京"}\n\n', '{"a":"東京"}')).toBe(6);
    expect(at('event: delta\ndata: {"a":1}\r\n\r\n', '{"a":1}')).toBe(19);
    expect(at('1 ', '1')).toBe(0);
  });

  it('refuses a JSON text raw does not hold byte for byte', () => {
    expect(at('{ "a": 1 }', '{"a":1}')).toBeNull();
    expect(at('data: {"a":1}\ndata: {"b":2}\n\n', '{"a":1}\n{"b":2}')).toBeNull();
    expect(at('{"a":"\\u00e9"}', '{"a":"é"}')).toBeNull();
    expect(at('{"a":1}', '{"a":1,"b":2}')).toBeNull();
    expect(at('', '1')).toBeNull();
    // Bytes that are not UTF-8 decode to U+FFFD, which the JSON text may hold: never taken for it.
    expect(jsonStartIn(Buffer.from([0x22, 0xff, 0x22]), '"\uFFFD"')).toBeNull();
  });
});

describe('the JSON text read back', () => {
  const rows: Array<{ raw: Buffer; json: string | null; jsonAt: number | null }> = [
    { raw: Buffer.from('data: {"a":"café"}\r\n\r\n'), json: null, jsonAt: 6 },
    { raw: Buffer.from('{"b":[1,2]} \t\n'), json: null, jsonAt: 0 },
    { raw: Buffer.from('{ "c": 1 }'), json: '{"c":1}', jsonAt: null },
    { raw: Buffer.from('not json'), json: null, jsonAt: null },
  ];

  it('is the same in JavaScript and in SQLite', () => {
    expect(rows.map(storedJsonText)).toEqual(['{"a":"café"}', '{"b":[1,2]}', '{"c":1}', null]);
    expect(jsonTextAt(rows[0].raw, 6)).toBe('{"a":"café"}');
    const db = openDatabase(':memory:');
    try {
      db.exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY, raw BLOB, json TEXT, json_at INTEGER, raw_block INTEGER, raw_at INTEGER, raw_size INTEGER);
        CREATE TABLE raw_blocks (id INTEGER PRIMARY KEY, exchange_id INTEGER NOT NULL, size INTEGER NOT NULL, data BLOB NOT NULL)`);
      const insert = db.prepare('INSERT INTO messages (raw, json, json_at) VALUES (?, ?, ?)');
      for (const r of rows) insert.run(r.raw, r.json, r.jsonAt);
      // The same rows again with their bytes in one block (store/raw-blocks.ts).
      const block = Buffer.concat(rows.map((r) => r.raw));
      db.prepare('INSERT INTO raw_blocks (id, exchange_id, size, data) VALUES (1, 1, ?, ?)').run(block.length, deflateSync(block));
      const inBlock = db.prepare("INSERT INTO messages (raw, json, json_at, raw_block, raw_at, raw_size) VALUES (x'', ?, ?, 1, ?, ?)");
      let at = 0;
      for (const r of rows) {
        inBlock.run(r.json, r.jsonAt, at, r.raw.length);
        at += r.raw.length;
      }
      const twice = [...rows, ...rows].map(storedJsonText);
      expect(db.prepare(`SELECT ${storedJsonSql()} FROM messages ORDER BY id`).pluck().all()).toEqual(twice);
      expect(db.prepare(`SELECT ${storedJsonSql('m')} FROM messages m ORDER BY m.id`).pluck().all()).toEqual(twice);
    } finally {
      db.close();
    }
  });
});
