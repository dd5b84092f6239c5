/**
 * `export` and `validate` read a message's raw bytes as text (`CAST(raw AS TEXT)`, or its JSON text
 * taken in SQL) instead of as a Buffer. That is exact only where the bytes are UTF-8: the decoder turns
 * every sequence that is not into U+FFFD, so a text with no U+FFFD is the bytes, and any other message
 * must be read from its bytes. Here, hostile bytes (not UTF-8, cut short, overlong, a surrogate, past
 * U+10FFFF, a literal U+FFFD) before, inside and after a JSON text: the built CLI's export is, line for
 * line, what the bytes give, and the values validate reads are those the bytes hold; and the same
 * with the bytes in a block (format 9), read through the block functions (store/raw-blocks.ts).
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { join } from 'node:path';
import { messageLineText } from '../../src/export/ndjson-export.js';
import { importNdjsonFile } from '../../src/store/ndjson-import.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { scratch } from '../support/temp-dir.js';
import { writeRawMessagesDb } from '../support/raw-messages-db.js';
import { runCli } from '../cli/run-cli.js';

const bytes = (...parts: Array<string | number[]>): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

/** `text`: the JSON text record stores for the bytes (undefined: not JSON); `fromText`: export takes the line from raw's text. */
const MESSAGES: Array<{ carrier: 'frame' | 'event'; raw: Buffer; text?: string; fromText: boolean }> = [
  // UTF-8 throughout: taken from the text.
  { carrier: 'frame', raw: bytes('{"a":"é"}'), text: '{"a":"é"}', fromText: true },
  { carrier: 'event', raw: bytes('data: {"b":"', [0xe6, 0x9d, 0xb1], '"}\n\n'), text: '{"b":"東"}', fromText: true },
  // Before the JSON text: a sequence cut short, a literal U+FFFD, an overlong encoding, a surrogate, past U+10FFFF, a lone byte.
  { carrier: 'event', raw: bytes('event: ', [0xe6, 0x9d], '\ndata: {"c":1}\n\n'), text: '{"c":1}', fromText: false },
  { carrier: 'event', raw: bytes('event: ', [0xef, 0xbf, 0xbd], '\ndata: {"d":1}\n\n'), text: '{"d":1}', fromText: false },
  { carrier: 'frame', raw: bytes([0xc0, 0xaf], '{"e":1}'), text: '{"e":1}', fromText: false },
  { carrier: 'frame', raw: bytes([0xed, 0xa0, 0x80], '{"f":1}'), text: '{"f":1}', fromText: false },
  { carrier: 'frame', raw: bytes([0xf4, 0x90, 0x80, 0x80], '{"g":1}'), text: '{"g":1}', fromText: false },
  { carrier: 'frame', raw: bytes([0x80], '{"h":1}'), text: '{"h":1}', fromText: false },
  // Inside the JSON text: a literal U+FFFD (stored apart: the bytes are not taken for it), bytes that are not UTF-8 (not JSON).
  { carrier: 'frame', raw: bytes('{"i":"', [0xef, 0xbf, 0xbd], '"}'), text: '{"i":"\uFFFD"}', fromText: false },
  { carrier: 'frame', raw: bytes('{"j":"', [0xff], '"}'), fromText: false },
  { carrier: 'event', raw: bytes('data: {"k":"', [0xe6, 0x9d], '"}\n\n'), fromText: false },
  // After it: a sequence cut short (not white space, so not JSON), and white space (taken).
  { carrier: 'frame', raw: bytes('{"l":1}', [0xe2, 0x82]), fromText: false },
  { carrier: 'frame', raw: bytes('{"m":1}\r\n'), text: '{"m":1}', fromText: true },
  // No JSON at all.
  { carrier: 'frame', raw: bytes([0xe6, 0x9d]), fromText: false },
];

/**
 * Moves every message's bytes of `file` into one block, as a writer's close does for messages that
 * compress (these few are too small to be worth it, so it leaves them plain).
 */
function blockEveryMessage(file: string): void {
  const db = new Database(file);
  const rows = db.prepare('SELECT id, exchange_id, raw FROM messages ORDER BY seq').raw(true).all() as Array<[number, number, Buffer]>;
  const plain = Buffer.concat(rows.map((r) => r[2]));
  const block = Number(db.prepare('INSERT INTO raw_blocks (exchange_id, size, data) VALUES (?, ?, ?)').run(rows[0]![1], plain.length, deflateSync(plain)).lastInsertRowid);
  const move = db.prepare("UPDATE messages SET raw = x'', raw_block = ?, raw_at = ?, raw_size = ? WHERE id = ?");
  let at = 0;
  for (const [id, , raw] of rows) {
    move.run(block, at, raw.length, id);
    at += raw.length;
  }
  expect(db.prepare('SELECT count(*) FROM messages WHERE raw_block IS NULL').pluck().get()).toBe(0);
  db.close();
}

describe('raw bytes read as text', () => {
  it.each(['in their rows', 'in a block'])('gives what the bytes give, for bytes that are not UTF-8 or hold U+FFFD (%s)', async (where) => {
    const dir = scratch('agent-proxy-raw-text-').dir;
    verdictsWrittenByHand(dir);
    const file = writeRawMessagesDb(dir, 'hostile.db', MESSAGES);
    if (where === 'in a block') blockEveryMessage(file);

    const reader = RecordingReader.open(file);
    let fromBytes: string[];
    try {
      const read = [...reader.messagesInOrder()];
      // The bytes are stored as they came.
      expect(read.map((m) => m.raw)).toEqual(MESSAGES.map((m) => m.raw));
      expect(read.map((m) => m.json)).toEqual(MESSAGES.map((m) => (m.text === undefined ? undefined : JSON.parse(m.text))));
      // Which messages export takes from raw's text: only those whose bytes are UTF-8 with no U+FFFD.
      expect([...RecordingReader.messagesWithTextInOrder(reader)].map((r) => r.raw === null)).toEqual(MESSAGES.map((m) => m.fromText));
      // What validate judges: the values the bytes hold.
      expect([...RecordingReader.messagesToJudgeInOrder(reader)].map((m) => m.json)).toEqual(read.map((m) => m.json));
      expect([...RecordingReader.messagesToJudgeInOrder(reader)].map((m) => m.raw)).toEqual(read.map((m) => (m.json === undefined ? m.raw : null)));
      // Each line as the bytes give it (the Buffer path).
      fromBytes = read.map((m) => messageLineText({ ...m, jsonText: undefined, textBefore: '', textAfter: '' }));
    } finally {
      reader.close();
    }
    const exported = await runCli(['export', file, '--format', 'ndjson']);
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout.trimEnd().split('\n').slice(-MESSAGES.length)).toEqual(fromBytes);
    // The bytes that are not UTF-8 are written as base64, the others as text (a literal U+FFFD too).
    const utf8 = (raw: Buffer): boolean => Buffer.from(raw.toString('utf8')).equals(raw);
    expect(fromBytes.map((l) => l.includes('"rawBase64"'))).toEqual(MESSAGES.map((m) => !utf8(m.raw)));
    // And read back, they are the bytes that came.
    writeFileSync(join(dir, 'hostile.ndjson'), exported.stdout);
    importNdjsonFile(join(dir, 'hostile.ndjson'), join(dir, 'back.db'));
    const back = RecordingReader.open(join(dir, 'back.db'));
    try {
      expect([...back.messagesInOrder()].map((m) => m.raw)).toEqual(MESSAGES.map((m) => m.raw));
    } finally {
      back.close();
    }
  });

  it.each(['in their rows', 'in a block'])('reads the bytes when a row says its JSON text is where they are not UTF-8 (a file changed by hand, %s)', async (where) => {
    const dir = scratch('agent-proxy-raw-text-').dir;
    verdictsWrittenByHand(dir);
    const texts = ['{"n":"x"}', '{"o":"xy"}', '{"p":1}'];
    const file = writeRawMessagesDb(dir, 'edited.db', texts.map((text) => ({ carrier: 'frame', raw: Buffer.from(text), text })));
    // The same rows (JSON text at json_at 0), their bytes changed: a lone byte, a sequence cut short.
    const db = new Database(file);
    const edit = db.prepare('UPDATE messages SET raw = ? WHERE seq = ?');
    edit.run(bytes('{"n":"', [0xff], '"}'), 1);
    edit.run(bytes('{"o":"', [0xe6, 0x9d], '"}'), 2);
    expect(db.prepare('SELECT json IS NULL AND json_at = 0 FROM messages ORDER BY id').pluck().all()).toEqual([1, 1, 1]);
    db.close();
    if (where === 'in a block') blockEveryMessage(file);

    const reader = RecordingReader.open(file);
    let fromBytes: string[];
    try {
      const read = [...reader.messagesInOrder()];
      expect([...RecordingReader.messagesWithTextInOrder(reader)].map((r) => r.raw === null)).toEqual([false, false, true]);
      expect([...RecordingReader.messagesToJudgeInOrder(reader)].map((m) => m.json)).toEqual(read.map((m) => m.json));
      fromBytes = read.map((m) => messageLineText({ ...m, jsonText: undefined, textBefore: '', textAfter: '' }));
    } finally {
      reader.close();
    }
    const exported = await runCli(['export', file, '--format', 'ndjson']);
    expect(exported.code).toBe(0);
    expect(exported.stdout.trimEnd().split('\n').slice(-texts.length)).toEqual(fromBytes);
    expect(fromBytes.map((l) => l.includes('"rawBase64"'))).toEqual([true, true, false]);
  });
});
