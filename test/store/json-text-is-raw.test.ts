import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter, type RecordingWriterOptions, type WireMessageInput } from '../../src/store/recording-writer.js';
import type { Verdict } from '../../src/core/verdict.js';
import { scratch } from '../support/temp-dir.js';
import { useCleanups } from '../support/cleanups.js';
import { meta } from './store-fixtures.js';
import { storedBytes } from '../support/stored-bytes.js';

useCleanups();

const KEY = 'sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGH';
const AWS = 'AKIAIOSFODNN7EXAMPLE';
const VALID: Verdict = { status: 'valid', findings: [] };

/** Frames whose text is all of their bytes: plain, with trailing white space, non-ASCII, a literal U+FFFD, credentials. */
const FRAMES: string[] = [
  '{"type":"queue_update","steering":[],"followUp":["message 1"]}',
  '{"type":"queue_update"}\n',
  '  {"a":1} \r\n',
  '{"text":"héllo wörld, 日本 🎉 sk-"}',
  '{"text":"a \uFFFD stand-in, kept as it is"}',
  `{"key":"${KEY}","n":1}`,
  `{"${AWS}":true}`,
  '{"escaped":"\\u0073k-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789"}',
  '[1]',
  '{"jwt":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}',
];

/** SSE events of one data line, `data:` or `data: ` before it: [raw, the framer's data text]. */
const EVENTS: Array<[raw: string, data: string]> = [
  ['data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"tok12 "}\n\n', '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"tok12 "}'],
  ['data:{"a":"no space"}\r\n\r\n', '{"a":"no space"}'],
  ['data: {"a":"trailing space"} \n\n', '{"a":"trailing space"} '],
  ['data: {"a":1}\nid: 7\n\n', '{"a":1}'],
  ['data: 7\nid: 7\n\n', '7'],
  [`data: {"key":"${KEY}"}\n\n`, `{"key":"${KEY}"}`],
  [`data:{"k":"${AWS}"}\n\n`, `{"k":"${AWS}"}`],
  ['data: {"t":"日本 \uFFFD"}\n\n', '{"t":"日本 \uFFFD"}'],
];

/** Each frame written as the recorder writes it, with or without saying its text is all of its bytes; the rows as stored. */
function rows(hinted: boolean, options: RecordingWriterOptions = {}): { stored: unknown[]; read: unknown[]; bytes: Buffer } {
  const file = scratch('agent-proxy-text-is-raw-').file('r.db');
  const writer = RecordingWriter.open(file, meta(), options);
  const id = writer.beginExchange({ transport: 'ws', method: 'GET', path: '/rpc', tOffsetMs: 0 });
  FRAMES.forEach((text, i) => {
    // A view into a larger buffer, as the worker's frames are.
    const batch = Buffer.from(`xx${text}yy`);
    const raw = batch.subarray(2, 2 + Buffer.byteLength(text));
    const input: WireMessageInput = { exchangeId: id, sender: 'server', carrier: 'frame', channel: 'text', tOffsetMs: i, raw, json: JSON.parse(text), jsonText: text, jsonTextAt: hinted ? 0 : undefined, verdict: VALID };
    writer.addMessage(input);
  });
  const sse = writer.beginExchange({ transport: 'sse', method: 'POST', path: '/agent', tOffsetMs: 0 });
  EVENTS.forEach(([event, data], i) => {
    const raw = Buffer.from(event);
    const at = event.startsWith('data: ') ? 6 : 5;
    const input: WireMessageInput = { exchangeId: sse, sender: 'server', carrier: 'event', tOffsetMs: i, raw, json: JSON.parse(data), jsonText: data, jsonTextAt: hinted ? at : undefined, verdict: VALID };
    writer.addMessage(input);
  });
  writer.endExchange(sse, { outcome: 'complete', tOffsetMs: 99 });
  writer.endExchange(id, { outcome: 'complete', tOffsetMs: 99 });
  writer.close();
  const db = new Database(file, { readonly: true });
  const stored = db.prepare('SELECT id, json, json_at AS jsonAt, status, finding_count AS findingCount FROM messages ORDER BY id').all();
  db.close();
  const reader = RecordingReader.open(file);
  const read = [...reader.messages(id), ...reader.messages(sse)].map((m) => ({ raw: m.raw.toString('latin1'), json: m.json, verdict: m.verdict }));
  reader.close();
  return { stored, read, bytes: storedBytes(file) };
}

describe('RecordingWriter: a JSON text whose place in raw is given is stored as any other', () => {
  it('the same rows, json_at and findings as without the hint; no credential on disk', () => {
    const plain = rows(false);
    const hinted = rows(true);
    expect(hinted.stored).toEqual(plain.stored);
    expect(hinted.read).toEqual(plain.read);
    // The cases this holds to: text at 0, text stored whole (trailing white space, U+FFFD), credentials found.
    const at = (plain.stored as Array<{ jsonAt: number | null }>).map((r) => r.jsonAt);
    expect(at.slice(0, 5)).toEqual([0, null, null, 0, null]);
    const findings = (plain.read as Array<{ verdict: Verdict }>).map((m) => m.verdict.findings.length);
    expect(findings).toEqual([0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0]);
    expect(at.slice(FRAMES.length)).toEqual([6, 5, null, null, 12, 6, 5, null]);
    for (const secret of [KEY, AWS]) expect(hinted.bytes.includes(secret)).toBe(false);
  });

  it('keepSecrets: the kept credential is stored as it is either way', () => {
    const options: RecordingWriterOptions = { keepSecrets: [/^sk-proj-/] };
    const plain = rows(false, options);
    const hinted = rows(true, options);
    expect(hinted.stored).toEqual(plain.stored);
    expect(hinted.read).toEqual(plain.read);
    expect(hinted.bytes.includes(KEY)).toBe(true);
    expect(hinted.bytes.includes(AWS)).toBe(false);
  });
});
