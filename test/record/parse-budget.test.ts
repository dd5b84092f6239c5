import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { decode } from '@ag-ui/proto';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonParseCost } from '../../src/core/json-parse-cost.js';
import { protoDecodeCost } from '../../src/judge/proto-decode-cost.js';
import { parseBudgetBytes, recorderHeapMb } from '../../src/record/worker/recorder-memory.js';
import { RecordingClock } from '../../src/core/recording-clock.js';
import { TrafficRecorder } from '../../src/record/pipeline/traffic-recorder.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { tempDir } from '../support/temp-dir.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** JS heap that `make()`'s result holds once garbage is collected. */
function heapOf(make: () => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  gc();
  const size = process.memoryUsage().heapUsed - before;
  expect(kept).toBeDefined();
  return size;
}

const MB = 1024 * 1024;
const repeat = (unit: string, bytes: number) => unit.repeat(Math.floor(bytes / unit.length));

/** The shapes that parse to the most heap per character, a megabyte each. */
const COSTLY_JSON: Record<string, string> = {
  'nested arrays': `${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}`,
  'empty objects': `[${repeat('{},', MB)}{}]`,
  'empty arrays': `[${repeat('[],', MB)}[]]`,
  zeros: `[${repeat('0,', MB)}0]`,
  'one-key objects': `[${repeat('{"a":0},', MB)}{}]`,
  'distinct keys': `{${Array.from({ length: MB / 12 }, (_, i) => `"k${i}":0`).join(',')}}`,
  'objects of a distinct key each': `[${Array.from({ length: MB / 14 }, (_, i) => `{"k${i}":${i}}`).join(',')}]`,
  'nested objects of a distinct key each': `${Array.from({ length: MB / 10 }, (_, i) => `{"k${i}":`).join('')}0${'}'.repeat(MB / 10)}`,
  'empty strings': `[${repeat('"",', MB)}""]`,
};

describe('jsonParseCost', () => {
  it.each(Object.entries(COSTLY_JSON))('errs high for %s', (_shape, text) => {
    const estimate = jsonParseCost(text, 0);
    const real = heapOf(() => JSON.parse(text));
    expect(estimate).toBeGreaterThanOrEqual(real);
    expect(estimate).toBeLessThan(real * 16);
  });

  it('counts a long string as its characters, whatever they are', () => {
    const text = JSON.stringify({ delta: repeat('[{,:"\\ ', 4 * MB) });
    expect(jsonParseCost(text, 0)).toBeLessThan(text.length + 1000);
  });

  it('does not look at a text whose worst case fits the budget', () => {
    expect(jsonParseCost(COSTLY_JSON['nested arrays'], 100 * MB)).toBe(0);
    expect(jsonParseCost(COSTLY_JSON['nested arrays'], 10 * MB)).toBeGreaterThan(10 * MB);
  });
});

describe('protoDecodeCost', () => {
  /** Event.messagesSnapshot (field 9): a base event and `n` empty Message entries (field 2). */
  function emptyMessages(n: number): Buffer {
    const inner = Buffer.concat([Buffer.from('0a020808', 'hex'), Buffer.alloc(2 * n, Buffer.from('1200', 'hex'))]);
    return Buffer.concat([Buffer.from([0x4a]), varint(inner.length), inner]);
  }

  it('errs high for a snapshot of empty messages, which decodes to hundreds of times its size', () => {
    const payload = emptyMessages(20_000);
    const real = heapOf(() => decode(payload));
    expect(real).toBeGreaterThan(payload.length * 100);
    expect(protoDecodeCost(payload, 0)).toBeGreaterThanOrEqual(real);
  });

  it('counts a long string field as its bytes', () => {
    // Event.textMessageContent (field 4): messageId and a 1 MB delta.
    const delta = Buffer.from(repeat('some text, ', MB));
    const inner = Buffer.concat([Buffer.from('12016d1a', 'hex'), varint(delta.length), delta]);
    const payload = Buffer.concat([Buffer.from([0x22]), varint(inner.length), inner]);
    expect(protoDecodeCost(payload, 0)).toBeLessThan(payload.length + 10_000);
  });
});

describe('the recorder within its budget', () => {
  const folder = tempDir('agent-proxy-budget-');
  afterAll(() => folder.cleanup());
  const dir = folder.dir;

  it('scales the worker heap with --max-body and gives a parse three eighths of it', () => {
    expect(recorderHeapMb()).toBe(64);
    expect(parseBudgetBytes()).toBe(24 * MB);
    expect(recorderHeapMb(100 * MB)).toBe(640);
  });

  it('stores a message too costly to parse whole and unparsed, with a complex-message warning, and parses the next', () => {
    const file = join(dir, 'complex.db');
    const registry = SchemaRegistry.load({ useEnv: false });
    const writer = RecordingWriter.open(file, { toolVersion: 'test', mode: 'record', schemaHashes: registry.hashes(), startedAt: new Date() });
    const recorder = new TrafficRecorder({ writer, registry, clock: new RecordingClock() });
    const exchange = recorder.openExchange({ transport: 'http', method: 'GET', path: '/' });
    const costly = Buffer.from(COSTLY_JSON['empty objects']);
    exchange.record('server', costly, { carrier: 'body' });
    exchange.record('server', Buffer.from('{"ok":true}'), { carrier: 'body' });
    exchange.end({ outcome: 'complete' });
    writer.close();
    const reader = RecordingReader.open(file);
    try {
      const [unparsed, parsed] = reader.messages(1);
      expect(unparsed.raw.equals(costly)).toBe(true);
      expect(unparsed.rawTruncatedFrom).toBeNull();
      expect(unparsed.json).toBeUndefined();
      expect(unparsed.verdict).toMatchObject({ status: 'unchecked', findings: [{ rule: 'complex-message', severity: 'warning' }] });
      expect(unparsed.verdict.findings[0].message).toMatch(/parsing it would take about \d+ MiB of memory, more than the recorder's 24 MiB/);
      expect(parsed.json).toEqual({ ok: true });
    } finally {
      reader.close();
    }
  });
});

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n > 127) {
    bytes.push((n & 127) | 128);
    n >>>= 7;
  }
  bytes.push(n);
  return Buffer.from(bytes);
}
