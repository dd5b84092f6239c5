/**
 * `validate`'s reader cuts a message's JSON text from its inflated block in JavaScript
 * (store/block-json-texts.ts) instead of taking it in SQL (storedJsonSql). Here, every row of a file
 * with its bytes in blocks, rows changed by hand among them (offsets out of place or of another type,
 * a row left out of its block, a block the file lacks), gives the text storedJsonSql() gives, or
 * fails as it does.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { deflateSync } from 'node:zlib';
import { BlockJsonTexts, JSON_END_SQL, JSON_START_SQL, JSON_TEXT_OR_START_SQL } from '../../src/store/block-json-texts.js';
import { storedJsonSql } from '../../src/store/stored-json.js';
import { registerRawBlockFunctions } from '../../src/store/raw-blocks.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { scratch } from '../support/temp-dir.js';
import { writeRawMessagesDb, type RawMessageByHand } from '../support/raw-messages-db.js';

const frame = (text: string, after = ''): RawMessageByHand => ({ carrier: 'frame', raw: Buffer.from(text + after), text });

/** ASCII texts, and trailing white space of each kind rtrim takes (and a form feed, which it does not). */
const ASCII: RawMessageByHand[] = [
  frame('{"a":1}'),
  frame('{"b":2}', ' \t\r\n'),
  frame('{"c":3}', '\n\n'),
  { carrier: 'frame', raw: Buffer.from('{"d":4}\f') },
  { carrier: 'event', raw: Buffer.from('data: {"e":5}\n\n'), text: '{"e":5}' },
  { carrier: 'frame', raw: Buffer.from('not json') },
];
/** Text that is not ASCII: a block holding it is read as UTF-8. */
const UNICODE: RawMessageByHand[] = [frame('{"f":"é"}'), frame('{"g":"東"}', ' '), frame('{"h":"x"}')];

/** Moves the messages `ids` of `file` into one block of their bytes, in id order. */
function blockOf(db: Database.Database, ids: number[]): number {
  const rows = ids.map((id) => db.prepare('SELECT exchange_id, raw FROM messages WHERE id = ?').raw(true).get(id) as [number, Buffer]);
  const plain = Buffer.concat(rows.map((r) => r[1]));
  const block = Number(db.prepare('INSERT INTO raw_blocks (exchange_id, size, data) VALUES (?, ?, ?)').run(rows[0]![0], plain.length, deflateSync(plain)).lastInsertRowid);
  let at = 0;
  ids.forEach((id, i) => {
    db.prepare("UPDATE messages SET raw = x'', raw_block = ?, raw_at = ?, raw_size = ? WHERE id = ?").run(block, at, rows[i]![1].length, id);
    at += rows[i]![1].length;
  });
  return block;
}

/**
 * Every message's text by BlockJsonTexts from the columns (`cut`: the stored text and its start apart;
 * `merged`: as one value, validate's read), and by storedJsonSql() (an Error where it throws).
 */
function bothTexts(file: string): { cut: unknown[]; merged: unknown[]; sql: unknown[] } {
  const db = new Database(file, { readonly: true });
  registerRawBlockFunctions(db, file);
  const texts = new BlockJsonTexts(db);
  const attempt = (read: () => unknown): unknown => {
    try {
      return read();
    } catch (error) {
      return error;
    }
  };
  try {
    const rows = db.prepare(`SELECT id, json, raw_block, ${JSON_START_SQL}, ${JSON_END_SQL} FROM messages ORDER BY id`).raw(true).all() as Array<[number, string | null, number | null, number | null, number | null]>;
    const mergedRows = db.prepare(`SELECT id, ${JSON_TEXT_OR_START_SQL}, raw_block, ${JSON_END_SQL} FROM messages ORDER BY id`).raw(true).all() as Array<[number, string | number | null, number | null, number | null]>;
    const bySql = db.prepare(`SELECT ${storedJsonSql()} FROM messages WHERE id = ?`).pluck();
    return {
      cut: rows.map((r) => attempt(() => texts.text(...r))),
      merged: mergedRows.map((r) => attempt(() => texts.textOf(...r))),
      sql: rows.map((r) => attempt(() => bySql.get(r[0]))),
    };
  } finally {
    db.close();
  }
}

describe("a message's JSON text cut from its block in JavaScript", () => {
  it('is the text storedJsonSql() reads, on rows in blocks, out of them and changed by hand', () => {
    const dir = scratch('agent-proxy-block-texts-').dir;
    verdictsWrittenByHand(dir);
    const file = writeRawMessagesDb(dir, 'texts.db', [...ASCII, ...UNICODE, ...ASCII]);
    const db = new Database(file);
    blockOf(db, [1, 2, 3, 4, 5, 6]);
    blockOf(db, [7, 8, 9]);
    // Messages 10–15 are left in their rows, but for 12–15, moved into a block and then changed.
    blockOf(db, [12, 13, 14, 15]);
    db.prepare('UPDATE messages SET json_at = raw_size + 1 WHERE id = 12').run();
    // An offset of another type: a text that does not look like a number (the column's INTEGER affinity turns one that does back into an integer).
    db.prepare("UPDATE messages SET raw_at = 'x' || raw_at WHERE id = 13").run();
    expect(db.prepare('SELECT typeof(raw_at) FROM messages WHERE id = 13').pluck().get()).toBe('text');
    db.prepare('UPDATE messages SET raw_size = raw_size + 1000 WHERE id = 14').run();
    db.prepare('UPDATE messages SET json_at = 0.5 WHERE id = 15').run();
    // A stored text wins over the bytes.
    db.prepare(`UPDATE messages SET json = '{"stored":true}' WHERE id = 1`).run();
    // A stored `json` that is not text (its column's TEXT affinity keeps a blob as it is), and one that looks like a number.
    db.prepare(`UPDATE messages SET json = CAST('{"blob":1}' AS BLOB) WHERE id = 10`).run();
    expect(db.prepare('SELECT typeof(json) FROM messages WHERE id = 10').pluck().get()).toBe('blob');
    db.prepare(`UPDATE messages SET json = '-1' WHERE id = 11`).run();
    db.close();

    const { cut, merged, sql } = bothTexts(file);
    expect(cut).toEqual(sql);
    expect(merged).toEqual(sql);
    expect(sql.slice(9, 11)).toEqual([Buffer.from('{"blob":1}'), '-1']);
    // What the unchanged rows read: the texts, less their trailing white space; null for what is not JSON.
    expect(sql.slice(0, 9)).toEqual(['{"stored":true}', '{"b":2}', '{"c":3}', null, '{"e":5}', null, '{"f":"é"}', '{"g":"東"}', '{"h":"x"}']);
  });

  it('fails as storedJsonSql() does on a block the file lacks, and validate reports it the same way', () => {
    const dir = scratch('agent-proxy-block-texts-').dir;
    verdictsWrittenByHand(dir);
    const file = writeRawMessagesDb(dir, 'lacking.db', ASCII);
    const db = new Database(file);
    const block = blockOf(db, [1, 2, 3, 4, 5, 6]);
    db.prepare('DELETE FROM raw_blocks WHERE id = ?').run(block);
    db.close();

    const { cut, merged, sql } = bothTexts(file);
    expect(cut).toEqual(sql);
    expect(merged).toEqual(sql);
    expect(cut[0]).toMatchObject({ code: 'E_STORE_NOT_RECORDING', message: expect.stringContaining(`which raw_blocks does not hold`) });
    const reader = RecordingReader.open(file);
    try {
      expect(() => [...RecordingReader.messagesToJudgeInOrder(reader)]).toThrow(expect.objectContaining({ code: 'E_STORE_NOT_RECORDING' }));
    } finally {
      reader.close();
    }
  });
});
