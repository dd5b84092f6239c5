/**
 * The labels the inspector's message pages give messages longer than 64 KB, which SQLite names from
 * their stored JSON (in a statement of their own) instead of handing the JSON to JavaScript: the same
 * labels the short ones get, on every path that reads a summary row (a page, the invalid ones' page,
 * one row's label).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InspectorData } from '../../src/ui/server/inspector-data.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { TOOL_VERSION } from '../../src/core/version.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { tempDir } from '../support/temp-dir.js';

const folder = tempDir('agent-proxy-long-labels-');
const FILE = folder.file('long.db');
const LONG = 'x'.repeat(70 * 1024);

/** Nested arrays deeper than SQLite reads JSON (1000 levels), padded past 64 KB: parsed by JavaScript after all. */
const deep = (): unknown => {
  let value: unknown = { type: 'DEEP_EVENT', pad: LONG };
  for (let i = 0; i < 1001; i++) value = [value];
  return { type: 'DEEP', nested: value, pad: LONG };
};

/** [sender, carrier, JSON or raw text, the label its row shows, invalid]. */
const MESSAGES: Array<[sender: 'client' | 'server', carrier: 'body' | 'event', json: unknown, label: string, invalid: boolean]> = [
  ['client', 'body', { note: LONG }, 'POST /long', false],
  ['server', 'event', { type: 'SHORT_EVENT' }, 'SHORT_EVENT', false],
  ['server', 'event', { type: 'TEXT_MESSAGE_CONTENT', delta: LONG }, 'TEXT_MESSAGE_CONTENT', true],
  ['server', 'event', { kind: 'chunk', data: LONG }, 'chunk', false],
  ['server', 'event', [LONG], 'object', true],
  ['server', 'event', deep(), 'DEEP', true],
  ['server', 'event', { type: 'LAST_EVENT' }, 'LAST_EVENT', false],
];

let data: InspectorData;

beforeAll(() => {
  const writer = RecordingWriter.open(FILE, { toolVersion: TOOL_VERSION, schemaHashes: SchemaRegistry.load().hashes(), target: 'http://127.0.0.1:1', mode: 'record', startedAt: new Date() });
  verdictsWrittenByHand(FILE);
  const id = writer.beginExchange({ transport: 'sse', protocol: 'agui', method: 'POST', path: '/long', requestHeaders: { 'content-type': 'application/json' }, tOffsetMs: 0 });
  writer.updateExchange(id, { status: 200, responseHeaders: { 'content-type': 'text/event-stream' } });
  MESSAGES.forEach(([sender, carrier, json, , invalid], i) => {
    const text = JSON.stringify(json);
    const raw = Buffer.from(carrier === 'event' ? `data: ${text}\n\n` : text);
    const findings = invalid ? [{ rule: 'synthetic', severity: 'error' as const, pointer: '', message: 'synthetic finding' }] : [];
    writer.addMessage({ exchangeId: id, sender, carrier, tOffsetMs: i, raw, json, verdict: { status: invalid ? 'invalid' : 'valid', findings } });
  });
  writer.endExchange(id, { outcome: 'complete', tOffsetMs: MESSAGES.length });
  writer.close();
  data = InspectorData.open(FILE);
});

afterAll(() => {
  data?.close();
  folder.cleanup();
});

describe('the labels of messages longer than 64 KB', () => {
  it('are the ones short messages get, on a page, on the invalid ones’ page and by one row', () => {
    const expected = MESSAGES.map(([, , , label]) => label);
    expect(data.messages(1, 0, 100).items.map((m) => m.label)).toEqual(expected);
    // A page that starts and ends between long messages.
    expect(data.messages(1, 2, 3).items.map((m) => m.label)).toEqual(expected.slice(2, 5));
    const invalid = MESSAGES.flatMap(([, , , label, bad], i) => (bad ? [{ seq: i + 1, label }] : []));
    expect(data.messages(1, 0, 100, true).items.map((m) => ({ seq: m.seq, label: m.label }))).toEqual(invalid);
    expect(MESSAGES.map((_, i) => data.label(1, i + 1))).toEqual(expected);
  });

  it('carry the size and verdict of the message, not its JSON', () => {
    const page = data.messages(1, 0, 100).items;
    expect(page[2]).toMatchObject({ seq: 3, carrier: 'event', status: 'invalid', findingCount: 1 });
    expect(page[2].size).toBeGreaterThan(70 * 1024);
    expect(data.message(1, 3)?.label).toBe('TEXT_MESSAGE_CONTENT');
  });
});
