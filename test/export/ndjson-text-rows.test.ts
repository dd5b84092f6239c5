import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportNdjsonText, messageLineText, ndjsonByteChunks } from '../../src/export/ndjson-export.js';
import { importNdjsonFile } from '../../src/store/ndjson-import.js';
import { derivedSchemaRef } from '../../src/store/ndjson-derived-ref.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { scratch } from '../support/temp-dir.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { writeRawMessagesDb } from '../support/raw-messages-db.js';

/** Messages whose raw bytes hold their JSON text, or almost: `text` is the JSON text record stored (undefined: not JSON). */
const MESSAGES: Array<{ carrier: 'frame' | 'event'; raw: Buffer; text?: string; fromText: boolean }> = [
  { carrier: 'frame', raw: Buffer.from('{"a":1}'), text: '{"a":1}', fromText: true },
  { carrier: 'event', raw: Buffer.from('data: {"b":"東京"}\n\n'), text: '{"b":"東京"}', fromText: true },
  { carrier: 'event', raw: Buffer.from('data: {"c":[1,2]}\r\n\r\n'), text: '{"c":[1,2]}', fromText: true },
  { carrier: 'frame', raw: Buffer.from('  {"d":1}'), text: '{"d":1}', fromText: true },
  // Spaced, or a repeated key: JSON.stringify writes them otherwise.
  { carrier: 'frame', raw: Buffer.from('{"e": 1}'), text: '{"e": 1}', fromText: false },
  { carrier: 'frame', raw: Buffer.from('{"k":"1","k":"2"}'), text: '{"k":"1","k":"2"}', fromText: false },
  // Not ASCII before json_at, a U+FFFD of its own, a byte that is not UTF-8 before the JSON text.
  { carrier: 'event', raw: Buffer.from('event: é\ndata: {"f":1}\n\n'), text: '{"f":1}', fromText: false },
  { carrier: 'event', raw: Buffer.from('data: {"g":"\uFFFD"}\n\n'), text: '{"g":"\uFFFD"}', fromText: false },
  { carrier: 'frame', raw: Buffer.concat([Buffer.from([0xff]), Buffer.from('{"h":1}')]), text: '{"h":1}', fromText: false },
  { carrier: 'event', raw: Buffer.from('data: [DONE]\n\n'), fromText: false },
];

describe('export of a message from its raw text', () => {
  it('writes the line its bytes give, and reads the bytes only when the text cannot give it', () => {
    const dir = scratch('agent-proxy-export-text-').dir;
    verdictsWrittenByHand(dir);
    const file = writeRawMessagesDb(dir, 'text.db', MESSAGES);
    const reader = RecordingReader.open(file);
    try {
      const rows = [...RecordingReader.messagesWithTextInOrder(reader)];
      expect(rows.map((r) => r.raw === null)).toEqual(MESSAGES.map((m) => m.fromText));
      // Each line as the bytes give it: the way every message took before its text was read.
      const fromBytes = [...reader.messagesInOrder()].map((m) => messageLineText({ ...m, jsonText: undefined, textBefore: '', textAfter: '' }));
      const text = exportNdjsonText(reader);
      expect(text.trimEnd().split('\n').slice(-MESSAGES.length)).toEqual(fromBytes);
      // The bytes `export` writes (a line's JSON text encoded apart from its head) are the text's.
      expect(Buffer.concat([...ndjsonByteChunks(reader)]).toString('utf8')).toBe(text);
      expect(fromBytes[2]).toContain('"rawAfter":"\\r\\n\\r\\n"');
      expect(fromBytes[3]).toContain('"rawBefore":"  "');
      writeFileSync(join(dir, 'text.ndjson'), text);
      importNdjsonFile(join(dir, 'text.ndjson'), join(dir, 'back.db'));
      const back = RecordingReader.open(join(dir, 'back.db'));
      try {
        expect(exportNdjsonText(back)).toBe(text);
      } finally {
        back.close();
      }
    } finally {
      reader.close();
    }
  });

  it('leaves out the ref it derives from the text as it would from the value, which it does not parse', () => {
    const dir = scratch('agent-proxy-export-text-').dir;
    verdictsWrittenByHand(dir);
    const file = join(dir, 'refs.db');
    const chunk = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: '{"object":"x"}' } }] };
    const ref = derivedSchemaRef('openai', 'server', 'event', chunk)!;
    const events: Array<{ text: string; ref: string; verdictWritten: boolean; fromText: boolean }> = [
      { text: JSON.stringify(chunk), ref, verdictWritten: false, fromText: true },
      { text: JSON.stringify(chunk), ref: `${ref}x`, verdictWritten: true, fromText: true },
      { text: JSON.stringify({ ...chunk, error: null }), ref, verdictWritten: true, fromText: true },
      { text: JSON.stringify({ choices: [{ object: 'chat.completion.chunk' }] }), ref, verdictWritten: true, fromText: true },
      { text: JSON.stringify(chunk, null, 1), ref, verdictWritten: false, fromText: false },
    ];
    const writer = RecordingWriter.open(file, { toolVersion: '0.1.0', mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
    const id = writer.beginExchange({ transport: 'http', protocol: 'openai', path: '/v1/chat/completions', method: 'POST', tOffsetMs: 1 });
    events.forEach((e, i) => {
      writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'event', tOffsetMs: 2 + i, raw: Buffer.from(`data: ${e.text}\n\n`), json: JSON.parse(e.text), jsonText: e.text, verdict: { status: 'valid', schemaRef: e.ref, findings: [] } });
    });
    writer.close();
    const reader = RecordingReader.open(file);
    try {
      const rows = [...RecordingReader.messagesWithTextInOrder(reader)];
      expect(rows.map((r) => r.raw === null)).toEqual(events.map((e) => e.fromText));
      // Taken from the text: not parsed.
      expect(rows.filter((r) => r.raw === null).map((r) => r.json)).toEqual(events.filter((e) => e.fromText).map(() => undefined));
      const fromValues = [...reader.messagesInOrder()].map((m) => messageLineText({ ...m, jsonText: undefined, textBefore: '', textAfter: '' }, 'openai'));
      const text = exportNdjsonText(reader);
      const lines = text.trimEnd().split('\n').slice(-events.length);
      expect(lines).toEqual(fromValues);
      expect(Buffer.concat([...ndjsonByteChunks(reader)]).toString('utf8')).toBe(text);
      expect(lines.map((l) => l.includes('"verdict"'))).toEqual(events.map((e) => e.verdictWritten));
      writeFileSync(join(dir, 'refs.ndjson'), text);
      importNdjsonFile(join(dir, 'refs.ndjson'), join(dir, 'back.db'));
      const back = RecordingReader.open(join(dir, 'back.db'));
      try {
        expect([...back.messagesInOrder()].map((m) => m.verdict.schemaRef)).toEqual(events.map((e) => e.ref));
        expect(exportNdjsonText(back)).toBe(text);
      } finally {
        back.close();
      }
    } finally {
      reader.close();
    }
  });

  it('writes as bytes the lines it writes as text, past the line parts it keeps and with parts not ASCII', () => {
    const dir = scratch('agent-proxy-export-text-').dir;
    verdictsWrittenByHand(dir);
    const file = join(dir, 'many.db');
    const writer = RecordingWriter.open(file, { toolVersion: '0.1.0', mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
    // More exchanges than the export keeps line parts for (4,096), each message's head its own past them;
    // offsets in ms to the µs, whole, and of more digits; channels and a text around the JSON not ASCII.
    for (let i = 0; i < 4200; i++) {
      const id = writer.beginExchange({ transport: 'ws', path: '/t', method: 'GET', tOffsetMs: 1 });
      const tOffsetMs = [i / 1000 + 1, i, i / 7, -0][i % 4]!;
      const text = JSON.stringify({ type: 'x', n: i, s: i % 5 === 0 ? 'é 😀' : 's' });
      const raw = Buffer.from(i % 3 === 0 ? `${text}\n` : text);
      writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'frame', channel: i % 2 === 0 ? 'text' : `é${i % 9}`, tOffsetMs, raw, json: JSON.parse(text), jsonText: text, verdict: { status: 'valid', findings: [] } });
    }
    writer.close();
    const reader = RecordingReader.open(file);
    try {
      const rows = [...RecordingReader.messagesWithTextInOrder(reader)];
      expect(rows.every((r) => r.raw === null)).toBe(true);
      const text = exportNdjsonText(reader);
      const lines = text.trimEnd().split('\n');
      expect(lines).toHaveLength(1 + 4200 + 4200);
      // The text's lines are what the reader of whole rows gives, line by line.
      expect(lines.slice(-4200)).toEqual([...reader.messagesInOrder()].map((m) => messageLineText({ ...m, jsonText: undefined, textBefore: '', textAfter: '' })));
      expect(Buffer.concat([...ndjsonByteChunks(reader)]).toString('utf8')).toBe(text);
    } finally {
      reader.close();
    }
  });
});
