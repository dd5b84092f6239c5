import Database from 'better-sqlite3';
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
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE messages (id INTEGER PRIMARY KEY, raw BLOB, json TEXT, json_at INTEGER)');
      const insert = db.prepare('INSERT INTO messages (raw, json, json_at) VALUES (?, ?, ?)');
      for (const r of rows) insert.run(r.raw, r.json, r.jsonAt);
      expect(db.prepare(`SELECT ${storedJsonSql()} FROM messages ORDER BY id`).pluck().all()).toEqual(rows.map(storedJsonText));
      expect(db.prepare(`SELECT ${storedJsonSql('m')} FROM messages m ORDER BY m.id`).pluck().all()).toEqual(rows.map(storedJsonText));
    } finally {
      db.close();
    }
  });
});
