import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { error } from '../../src/core/finding.js';
import { verdictFrom, type Verdict } from '../../src/core/verdict.js';
import { exportedNdjson } from '../support/ndjson-recording.js';
import { exportNdjsonText } from '../../src/export/ndjson-export.js';
import { importNdjsonText } from '../../src/store/ndjson-import.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { meta, thrown } from './store-fixtures.js';
import { tempDir } from '../support/temp-dir.js';
import { validateView } from '../support/recording-agreement.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { recordEveryProtocol } from '../support/every-protocol-recording.js';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { openRecording } from '../../src/store/open-recording.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const valid = { status: 'valid' as const, findings: [] };

/** One message of each form a line can take. */
function recordEveryForm(file: string): void {
  const w = RecordingWriter.open(file, meta());
  const sse = w.beginExchange({ transport: 'sse', tOffsetMs: 0 });
  const add = (raw: Buffer | string, json: unknown, extra: object = {}) =>
    w.addMessage({ exchangeId: sse, sender: 'server', carrier: 'event', tOffsetMs: 1.5, raw: Buffer.from(raw), json, verdict: valid, ...extra });
  add('data: {"type":"TEXT","delta":"café 東京\\n"}\n\n', { type: 'TEXT', delta: 'café 東京\n' }); // rawJson between rawBefore and rawAfter
  add('{"a":1}', { a: 1 }, { verdict: verdictFrom([error('schema.required', '/b', 'b is required')], 'https://example.test/s.json#/$defs/A') }); // rawJson alone
  add('data: {"a": 1.0}\r\n\r\n', { a: 1 }, { jsonText: '{"a": 1.0}' }); // raw with jsonAt: the wire's spacing kept
  add('data: {"a":1}\ndata: {"b":2}\n\n', { a: 1, b: 2 }); // raw with json: not in the bytes as it is
  add('data: [DONE]\n\n', undefined); // raw, not JSON
  add(Buffer.from([0xff, 0x00, 0x7b]), undefined, { channel: 'binary', rawTruncatedFrom: 9 }); // rawBase64
  add(Buffer.concat([Buffer.from([0xfe]), Buffer.from('{"a":2}')]), { a: 2 }, { channel: 'binary' }); // rawBase64 with json: what comes before the JSON is not UTF-8
  // AG-UI events, whose refs are derived from their type (store/ndjson-derived-ref.ts).
  const agui = w.beginExchange({ transport: 'sse', tOffsetMs: 2 });
  w.updateExchange(agui, { protocol: 'agui' });
  const event = (json: object, verdict: Verdict, raw = `data: ${JSON.stringify(json)}\n\n`) =>
    w.addMessage({ exchangeId: agui, sender: 'server', carrier: 'event', tOffsetMs: 3, raw: Buffer.from(raw), json, verdict });
  event({ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { ...valid, schemaRef: RUN_STARTED }); // plain valid with the derived ref: no verdict
  event({ type: 'RUN_STARTED', threadId: 't' }, verdictFrom([error('schema.required', '', 'runId is required')], RUN_STARTED)); // the derived ref left out of an invalid verdict
  event({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' }, { ...valid, schemaRef: `${AGUI}#Event` }); // judged by another ref: written
  event({ type: 'RUN_ERROR', message: 'x' }, valid, `event: error\ndata: {"type":"RUN_ERROR","message":"x"}\n`); // no ref though one is derived: null; its own framing
  w.close(new Date('2026-01-02T03:05:00.000Z'));
}

const AGUI = 'https://ag-ui.com/spec/draft/schema.json';
const RUN_STARTED = `${AGUI}#RunStartedEvent`;

function messageRows(file: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT * FROM messages ORDER BY id').all();
  } finally {
    db.close();
  }
}

describe('NDJSON message lines (version 3)', () => {
  it('write each message in its form, null fields, derived refs and SSE framing left out, and export → import → export gives the same bytes and rows', () => {
    const original = join(tmp.dir, 'original.db');
    recordEveryForm(original);
    const text = exportedNdjson(original);
    expect(text.slice(0, 200)).toContain('"version":3');
    const lines = text.trimEnd().split('\n').slice(3);
    expect(lines).toEqual([
      '{"type":"message","exchange":1,"seq":1,"sender":"server","carrier":"event","tOffsetMs":1.5,"rawJson":{"type":"TEXT","delta":"café 東京\\n"}}',
      '{"type":"message","exchange":1,"seq":2,"sender":"server","carrier":"event","tOffsetMs":1.5,"verdict":{"status":"invalid","schemaRef":"https://example.test/s.json#/$defs/A","findings":[{"rule":"schema.required","severity":"error","pointer":"/b","message":"b is required"}]},"rawBefore":"","rawAfter":"","rawJson":{"a":1}}',
      '{"type":"message","exchange":1,"seq":3,"sender":"server","carrier":"event","tOffsetMs":1.5,"raw":"data: {\\"a\\": 1.0}\\r\\n\\r\\n","jsonAt":6}',
      '{"type":"message","exchange":1,"seq":4,"sender":"server","carrier":"event","tOffsetMs":1.5,"raw":"data: {\\"a\\":1}\\ndata: {\\"b\\":2}\\n\\n","json":{"a":1,"b":2}}',
      '{"type":"message","exchange":1,"seq":5,"sender":"server","carrier":"event","tOffsetMs":1.5,"raw":"data: [DONE]\\n\\n"}',
      '{"type":"message","exchange":1,"seq":6,"sender":"server","carrier":"event","channel":"binary","tOffsetMs":1.5,"rawTruncatedFrom":9,"rawBase64":"/wB7"}',
      '{"type":"message","exchange":1,"seq":7,"sender":"server","carrier":"event","channel":"binary","tOffsetMs":1.5,"rawBase64":"/nsiYSI6Mn0=","json":{"a":2}}',
      '{"type":"message","exchange":2,"seq":1,"sender":"server","carrier":"event","tOffsetMs":3,"rawJson":{"type":"RUN_STARTED","threadId":"t","runId":"r"}}',
      '{"type":"message","exchange":2,"seq":2,"sender":"server","carrier":"event","tOffsetMs":3,"verdict":{"status":"invalid","findings":[{"rule":"schema.required","severity":"error","pointer":"","message":"runId is required"}]},"rawJson":{"type":"RUN_STARTED","threadId":"t"}}',
      `{"type":"message","exchange":2,"seq":3,"sender":"server","carrier":"event","tOffsetMs":3,"verdict":{"status":"valid","schemaRef":"${AGUI}#Event"},"rawJson":{"type":"RUN_FINISHED","threadId":"t","runId":"r"}}`,
      '{"type":"message","exchange":2,"seq":4,"sender":"server","carrier":"event","tOffsetMs":3,"verdict":{"status":"valid","schemaRef":null},"rawBefore":"event: error\\ndata: ","rawAfter":"\\n","rawJson":{"type":"RUN_ERROR","message":"x"}}',
    ]);
    const copy = join(tmp.dir, 'copy.db');
    importNdjsonText(text, copy);
    expect(messageRows(copy)).toEqual(messageRows(original));
    expect(exportedNdjson(copy)).toBe(text);
  });

  it('a version 2 recording (every verdict and framing written) imports to the same rows', () => {
    const original = join(tmp.dir, 'original.db');
    recordEveryForm(original);
    const reader = RecordingReader.open(original);
    const [recording, ...exchanges] = exportNdjsonText(reader).split('\n').slice(0, 3);
    const v2 = [
      recording.replace('"version":3', '"version":2'),
      ...exchanges,
      ...[1, 2].flatMap((e) => reader.messages(e)).map((m) => {
        const { status, schemaRef, reason, findings } = m.verdict;
        const verdict = { status, ...(schemaRef === undefined ? {} : { schemaRef }), ...(reason === undefined ? {} : { reason }), ...(findings.length === 0 ? {} : { findings }) };
        const head = { type: 'message', exchange: m.exchangeId, seq: m.seq, sender: m.sender, carrier: m.carrier, ...(m.channel === null ? {} : { channel: m.channel }), tOffsetMs: m.tOffsetMs, ...(m.rawTruncatedFrom === null ? {} : { rawTruncatedFrom: m.rawTruncatedFrom }), verdict };
        const text = m.json === undefined ? undefined : JSON.stringify(m.json);
        const at = text === undefined ? -1 : m.raw.toString('utf8').lastIndexOf(text);
        if (m.channel !== 'binary' && at >= 0 && m.raw.toString('utf8').slice(at + text!.length).trim() === '') {
          const before = m.raw.toString('utf8').slice(0, at);
          const after = m.raw.toString('utf8').slice(at + text!.length);
          return `${JSON.stringify({ ...head, ...(before === '' ? {} : { rawBefore: before }), ...(after === '' ? {} : { rawAfter: after }) }).slice(0, -1)},"rawJson":${text}}`;
        }
        return JSON.stringify({ ...head, ...(m.channel === 'binary' ? { rawBase64: m.raw.toString('base64') } : { raw: m.raw.toString('utf8') }), ...(m.json === undefined ? {} : { json: m.json }) });
      }),
    ].join('\n');
    reader.close();
    const copy = join(tmp.dir, 'v2.db');
    importNdjsonText(`${v2}\n`, copy);
    const rows = (file: string) => (messageRows(file) as Array<Record<string, unknown>>).map(({ json_at: _, json: __, ...rest }) => rest);
    // The same bytes and verdicts (a ref the file has none of stays none); the third's JSON text is the value's, as version 2 wrote it.
    expect(rows(copy)).toEqual(rows(original));
    expect(exportedNdjson(copy)).toBe(exportedNdjson(original));
  });

  it('a version 1 recording (raw, json and every null field on each line) imports to the same rows', () => {
    const original = join(tmp.dir, 'original.db');
    recordEveryForm(original);
    const reader = RecordingReader.open(original);
    const [recording, ...exchanges] = exportNdjsonText(reader).split('\n').slice(0, 3);
    const v1 = [
      recording.replace('"version":3', '"version":1'),
      ...exchanges,
      ...[1, 2].flatMap((e) => reader.messages(e)).map((m) =>
        JSON.stringify({
          type: 'message',
          exchange: m.exchangeId,
          seq: m.seq,
          sender: m.sender,
          carrier: m.carrier,
          channel: m.channel,
          tOffsetMs: m.tOffsetMs,
          ...(m.channel === 'binary' ? { rawBase64: m.raw.toString('base64') } : { raw: m.raw.toString('utf8') }),
          rawTruncatedFrom: m.rawTruncatedFrom,
          ...(m.json === undefined ? {} : { json: m.json }),
          verdict: { status: m.verdict.status, schemaRef: m.verdict.schemaRef ?? null, reason: m.verdict.reason ?? null, findings: m.verdict.findings },
        }),
      ),
    ].join('\n');
    reader.close();
    const copy = join(tmp.dir, 'v1.db');
    importNdjsonText(`${v1}\n`, copy);
    const rows = (file: string) => (messageRows(file) as Array<Record<string, unknown>>).map(({ json_at: _, json: __, ...rest }) => rest);
    // The same bytes and verdicts; the JSON text of the third is the value's (version 1 did not keep the wire's spacing).
    expect(rows(copy)).toEqual(rows(original));
    expect(exportedNdjson(copy).split('\n').slice(3, 5)).toEqual(exportedNdjson(original).split('\n').slice(3, 5));
  });

  it('refuses a line with two forms of the bytes, rawAfter that is not white space, or no verdict before version 3', () => {
    const original = join(tmp.dir, 'original.db');
    recordEveryForm(original);
    const [recording, exchange, , , message] = exportedNdjson(original).split('\n');
    const withLine = (line: string) => `${recording}\n${exchange}\n${line}\n`;
    const both = message.replace('"rawBefore":""', '"raw":""');
    expect(String(thrown(() => importNdjsonText(withLine(both), join(tmp.dir, 'a.db'))))).toContain('either "raw" (or "rawBase64") or "rawJson"');
    const after = message.replace('"rawAfter":""', '"rawAfter":"x"');
    expect(String(thrown(() => importNdjsonText(withLine(after), join(tmp.dir, 'b.db'))))).toContain('"rawAfter" must be white space');
    // Only version 3 leaves a verdict out.
    const plain = exportedNdjson(original).split('\n')[3];
    expect(plain).not.toContain('"verdict"');
    const v2 = `${recording.replace('"version":3', '"version":2')}\n${exchange}\n${plain}\n`;
    expect(String(thrown(() => importNdjsonText(v2, join(tmp.dir, 'c.db'))))).toContain('"verdict" is missing');
  });
});

const registry = SchemaRegistry.load({ useEnv: false });

/** Every message's verdict as the reader hands it out (what show, findings and the inspector read). */
function verdicts(file: string): unknown[] {
  const reader = openRecording(file);
  try {
    return [...reader.messagesInOrder()].map((m) => ({ exchange: m.exchangeId, seq: m.seq, ...m.verdict }));
  } finally {
    reader.close();
  }
}

describe('NDJSON version 3 of every protocol', () => {
  it('leaves out derived refs, is byte-stable across export → import → export, and show, validate and diff of the file read the verdicts of the .db', () => {
    // Each message judged alone by its checker, not by record's pipeline (no stream ends, no exchange context): validate finds more.
    verdictsWrittenByHand(tmp.dir);
    const original = join(tmp.dir, 'every.db');
    recordEveryProtocol(original, registry);
    const text = exportedNdjson(original);
    const ndjson = join(tmp.dir, 'every.ndjson');
    writeFileSync(ndjson, text);
    // The token streams' and frames' lines carry no verdict.
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; verdict?: unknown });
    expect(lines.filter((l) => l.type === 'message' && l.verdict === undefined).length).toBeGreaterThan(10);
    const copy = join(tmp.dir, 'copy.db');
    importNdjsonText(text, copy);
    expect(messageRows(copy)).toEqual(messageRows(original));
    expect(exportedNdjson(copy)).toBe(text);
    expect(verdicts(ndjson)).toEqual(verdicts(original));
    expect(validateView(ndjson, registry)).toEqual(validateView(original, registry));
    const diff = diffRecordingFiles(original, ndjson);
    expect({ verdicts: diff.options.verdicts, equal: diff.equal }).toEqual({ verdicts: 'recorded', equal: true });
  });
});
