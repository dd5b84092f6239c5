/**
 * Format 9: a writer that closes moves its messages' bytes into compressed blocks of their exchange
 * (store/raw-block-compaction.ts), and every reader reads them from there (store/raw-blocks.ts). Each
 * test compares a compacted file with the same recording whose bytes are all in `raw`.
 */
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { importNdjsonText } from '../../src/store/ndjson-import.js';
import { openDatabase } from '../../src/store/open-database.js';
import { InspectorQueries } from '../../src/store/queries/inspector-queries.js';
import { BLOCK_BYTES, BLOCK_MESSAGES, MIN_RUN_BYTES } from '../../src/store/raw-block-compaction.js';
import { rawBytesSql } from '../../src/store/raw-blocks.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { FORMAT_VERSION } from '../../src/store/migrations.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { recordEveryProtocol } from '../support/every-protocol-recording.js';
import { makeFormatEight } from '../support/format-8-file.js';
import { exportedNdjson } from '../support/ndjson-recording.js';
import { agreementViews } from '../support/recording-agreement.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { tempDir } from '../support/temp-dir.js';
import { meta } from './store-fixtures.js';
import { runBatch } from '../cli/cli-batch.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const valid = { status: 'valid' as const, findings: [] };

/**
 * expect(actual).toEqual(expected), made only on a mismatch: toEqual compares a Buffer a byte at a
 * time, and these hold thousands of messages' bytes (isDeepStrictEqual is stricter, so a match there is one for toEqual).
 */
function expectEqual(actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual).toEqual(expected);
}

/** A copy of `file` with every message's bytes back in `raw` and no block: the recording as format 8 held it, at format 9. */
function plainCopy(file: string, name: string): string {
  const copy = join(tmp.dir, name);
  copyFileSync(file, copy);
  const db = openDatabase(copy);
  try {
    db.exec(`UPDATE messages SET raw = ${rawBytesSql()}, raw_block = NULL, raw_at = NULL, raw_size = NULL WHERE raw_block IS NOT NULL; DELETE FROM raw_blocks; VACUUM`);
  } finally {
    db.close();
  }
  return copy;
}

/** How many messages have their bytes in a block, and how many blocks the file has. */
function blockCounts(file: string): { blocked: number; blocks: number } {
  const db = openDatabase(file, { readonly: true });
  try {
    return db.prepare('SELECT (SELECT count(*) FROM messages WHERE raw_block IS NOT NULL) AS blocked, (SELECT count(*) FROM raw_blocks) AS blocks').get() as { blocked: number; blocks: number };
  } finally {
    db.close();
  }
}

/** Every message's bytes as the reader hands them out, in id order. */
function bytesOf(file: string): Buffer[] {
  const reader = RecordingReader.open(file);
  try {
    return [...reader.messagesInOrder()].map((m) => Buffer.from(m.raw));
  } finally {
    reader.close();
  }
}

const registry = SchemaRegistry.load({ useEnv: false });

/**
 * The files the tests start from, written once for the file (each takes a copy): recordEveryProtocol's
 * recording, and the shapes' compacted and plain recordings. A copy is the same bytes a fresh write makes.
 */
const made = tempDir();
verdictsWrittenByHand(made.dir);
afterAll(() => made.cleanup());
const once = <T>(make: () => T): (() => T) => {
  let value: { made: T } | undefined;
  return () => (value ??= { made: make() }).made;
};
const everyProtocolFile = once(() => {
  const file = made.file('every.db');
  recordEveryProtocol(file, registry);
  return file;
});
/** A copy of recordEveryProtocol's recording at `file`. */
function recordEveryProtocolCopy(file: string): void {
  copyFileSync(everyProtocolFile(), file);
}

describe('every protocol, compacted', () => {
  it('exports the same bytes as the plain file, export → import → export stays the same, and show, findings, validate, the inspector and diff read it alike', () => {
    // Each message judged alone by its checker, not by record's pipeline: validate finds more (as in ndjson-versions.test.ts).
    verdictsWrittenByHand(tmp.dir);
    const file = join(tmp.dir, 'every.db');
    recordEveryProtocolCopy(file);
    expect(blockCounts(file).blocks).toBeGreaterThan(0);
    const plain = plainCopy(file, 'plain.db');
    expect(blockCounts(plain)).toEqual({ blocked: 0, blocks: 0 });
    const text = exportedNdjson(file);
    expect(exportedNdjson(plain)).toBe(text);
    expectEqual(agreementViews(file), agreementViews(plain));
    expect(diffRecordingFiles(file, plain).equal).toBe(true);
    // An import writes through the writer: compacted too.
    const imported = join(tmp.dir, 'imported.db');
    importNdjsonText(text, imported);
    expect(blockCounts(imported)).toEqual(blockCounts(file));
    expect(exportedNdjson(imported)).toBe(text);
  });
});

describe('the built CLI on a compacted file', () => {
  it('export, show, findings, validate and diff print the same as on the plain file', async () => {
    verdictsWrittenByHand(tmp.dir);
    mkdirSync(join(tmp.dir, 'blocks'));
    mkdirSync(join(tmp.dir, 'plain'));
    const file = join(tmp.dir, 'blocks', 'every.db');
    recordEveryProtocolCopy(file);
    copyFileSync(plainCopy(file, 'plain.db'), join(tmp.dir, 'plain', 'every.db'));
    const plainFile = join(tmp.dir, 'plain', 'every.db');
    const commands = (path: string, other: string) => [
      ['export', path, '--format', 'ndjson'],
      ['show', path, '--json'],
      ['findings', path, '--json'],
      ['validate', path, '--json'],
      ['diff', path, other, '--json'],
    ];
    // In one batch; the first run on each file also as a process of its own (cli-batch.ts).
    const both = await runBatch([...commands(file, plainFile), ...commands(plainFile, file)], { real: [0, 5] });
    const [blocked, plain] = [both.slice(0, 5), both.slice(5)];
    const folders = (text: string) => text.replaceAll(join(tmp.dir, 'blocks'), 'DIR').replaceAll(join(tmp.dir, 'plain'), 'DIR');
    const outputs = (results: typeof blocked) => results.map((r) => ({ code: r.code, stdout: folders(r.stdout), stderr: folders(r.stderr) }));
    expect(blocked[0].stdout.length).toBeGreaterThan(1000);
    expect(outputs(blocked)).toEqual(outputs(plain));
  });
});

describe('messages of every shape', () => {
  /**
   * Exchanges streamed side by side (their messages interleaved by id), more of them than the reader
   * keeps inflated, and in the first one: an empty message, a cut one, bytes that are not UTF-8, one
   * bigger than a block.
   */
  function record(file: string, scratch = false): Buffer[] {
    const w = RecordingWriter.open(file, meta(), { scratch });
    const streams = Array.from({ length: 40 }, (_, i) => w.beginExchange({ transport: 'sse', method: 'POST', path: `/run/${i}`, tOffsetMs: i }));
    const written: Buffer[] = [];
    const add = (exchangeId: number, raw: Buffer, json: unknown, extra: { rawTruncatedFrom?: number } = {}) => {
      w.addMessage({ exchangeId, sender: 'server', carrier: 'event', tOffsetMs: written.length, raw, json, verdict: json === undefined ? { status: 'unchecked', reason: 'not JSON', findings: [] } : valid, ...extra });
      written.push(raw);
    };
    const [first] = streams;
    for (let round = 0; round < BLOCK_MESSAGES + 3; round++) {
      if (round === 5) {
        add(first, Buffer.alloc(0), undefined);
        add(first, Buffer.from('data: {"type":"TEXT","delta":"cut he'), undefined, { rawTruncatedFrom: 4096 });
        add(first, Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80]), undefined);
        const big = { type: 'SNAPSHOT', rows: Array.from({ length: 4000 }, (_, i) => ({ i, text: `row ${i} of the snapshot` })) };
        add(first, Buffer.from(`data: ${JSON.stringify(big)}\n\n`), big);
      }
      for (const exchangeId of streams) {
        const event = { type: 'TEXT_MESSAGE_CONTENT', delta: ` word${round} in ${exchangeId}`, needle: round === 40 && exchangeId === 7 ? 'findme-inside-a-block' : undefined };
        add(exchangeId, Buffer.from(`data: ${JSON.stringify(event)}\n\n`), event);
      }
    }
    for (const id of streams) w.endExchange(id, { outcome: 'complete', tOffsetMs: written.length });
    w.close(new Date('2026-01-02T03:05:00.000Z'));
    return written;
  }

  /** The compacted recording, written once for the file (in a folder of its own, whose verdicts the agreement check reads as it did in each test's); each test reads a copy of it. */
  const shapesMade = tempDir();
  afterAll(() => shapesMade.cleanup());
  const compacted = once(() => ({ file: shapesMade.file('shapes.db'), written: record(shapesMade.file('shapes.db')) }));
  function recordCopy(file: string): Buffer[] {
    const { file: made, written } = compacted();
    copyFileSync(made, file);
    return written;
  }

  it('reads back every message byte for byte, in id order and by exchange, and the inspector shows the same bytes, sizes, labels and search', () => {
    const file = join(tmp.dir, 'shapes.db');
    const written = recordCopy(file);
    const plain = join(tmp.dir, 'plain.db');
    record(plain, true);
    expect(blockCounts(plain)).toEqual({ blocked: 0, blocks: 0 });
    // All but the empty message are in blocks, blocks of at most BLOCK_MESSAGES, the big message alone; but for
    // each of the 39 other exchanges' last 3 events, after its block of BLOCK_MESSAGES: too few bytes to try.
    const lastRounds = written.slice(-3 * 40);
    const tails = Array.from({ length: 39 }, (_, i) => [0, 1, 2].reduce((bytes, round) => bytes + lastRounds[round * 40 + i + 1].length, 0));
    expect(Math.max(...tails)).toBeLessThan(MIN_RUN_BYTES);
    const counts = blockCounts(file);
    expect(counts.blocked).toBe(written.length - 1 - 39 * 3);
    expect(statSync(file).size).toBeLessThan(statSync(plain).size / 2);
    const db = openDatabase(file, { readonly: true });
    try {
      expect(db.prepare('SELECT max(n) FROM (SELECT count(*) AS n FROM messages WHERE raw_block IS NOT NULL GROUP BY raw_block)').pluck().get()).toBe(BLOCK_MESSAGES);
      expect(db.prepare(`SELECT count(*) FROM messages WHERE raw_block IN (SELECT raw_block FROM messages WHERE raw_size > ${BLOCK_BYTES})`).pluck().get()).toBe(1);
      expect(db.prepare('SELECT count(*) FROM messages WHERE raw_block IS NULL AND length(raw) = 0').pluck().get()).toBe(1);
      expect(db.prepare('SELECT count(*) FROM messages WHERE raw_block IS NULL AND exchange_id > 1 AND seq > ?').pluck().get(BLOCK_MESSAGES)).toBe(39 * 3);
    } finally {
      db.close();
    }

    const read = bytesOf(file);
    expect(read.length).toBe(written.length);
    read.forEach((bytes, i) => {
      if (!bytes.equals(written[i])) throw new Error(`message ${i + 1} reads back otherwise`);
    });
    const firstOfPlain = (() => {
      const reader = RecordingReader.open(plain);
      try {
        return reader.messages(1).map((m) => Buffer.from(m.raw).toString('base64'));
      } finally {
        reader.close();
      }
    })();
    const reader = RecordingReader.open(file);
    try {
      const firstStream = reader.messages(1);
      expect(firstStream.length).toBe(BLOCK_MESSAGES + 3 + 4);
      expect(firstStream.filter((m) => m.rawTruncatedFrom === 4096).map((m) => m.seq)).toEqual([7]);
      expect(firstStream.map((m) => Buffer.from(m.raw).toString('base64'))).toEqual(firstOfPlain);
    } finally {
      reader.close();
    }
    expect(exportedNdjson(file)).toBe(exportedNdjson(plain));

    const inspect = (path: string) => {
      const idb = openDatabase(path, { readonly: true });
      try {
        const q = new InspectorQueries(idb);
        return {
          first: Array.from({ length: 10 }, (_, i) => q.message(1, i + 1)?.raw),
          pages: [1, 7, 40].map((id) => q.page(id, 500, 0, false)),
          found: q.timeline({ q: 'findme-inside-a-block' }).map((e) => e.id),
        };
      } finally {
        idb.close();
      }
    };
    const shown = inspect(file);
    expect(shown.found).toEqual([7]);
    expect(shown.first[8]?.length).toBeGreaterThan(BLOCK_BYTES);
    expectEqual(shown, inspect(plain));
  });

  it('an append to a compacted file leaves its rows and blocks as they were and blocks only its own', () => {
    const file = join(tmp.dir, 'appended.db');
    const written = recordCopy(file);
    const snapshot = (path: string) => {
      const db = openDatabase(path, { readonly: true });
      try {
        return { messages: db.prepare('SELECT * FROM messages ORDER BY id').all(), blocks: db.prepare('SELECT * FROM raw_blocks ORDER BY id').all() };
      } finally {
        db.close();
      }
    };
    const before = snapshot(file);
    const w = RecordingWriter.append(file);
    const id = w.beginExchange({ transport: 'sse', tOffsetMs: 9000 });
    const more = Array.from({ length: 30 }, (_, i) => Buffer.from(`data: {"type":"TEXT_MESSAGE_CONTENT","delta":"more ${i}"}\n\n`));
    for (const raw of more) w.addMessage({ exchangeId: id, sender: 'server', carrier: 'event', tOffsetMs: 9001, raw, json: JSON.parse(raw.toString().slice(6)), verdict: valid });
    w.endExchange(id, { outcome: 'complete', tOffsetMs: 9002 });
    w.close(new Date('2026-01-02T03:06:00.000Z'));
    const after = snapshot(file);
    expectEqual(after.messages.slice(0, before.messages.length), before.messages);
    expectEqual(after.blocks.slice(0, before.blocks.length), before.blocks);
    expect(after.blocks.length).toBe(before.blocks.length + 1);
    expectEqual(bytesOf(file), [...written, ...more]);
  });
});

describe('a run of fewer bytes than a block is worth', () => {
  it('stays plain and reads back as written: an exchange of small messages, and one whose messages together reach MIN_RUN_BYTES', () => {
    const file = join(tmp.dir, 'small.db');
    const w = RecordingWriter.open(file, meta());
    const small = (i: number) => Buffer.from(JSON.stringify({ object: 'model', id: `m-${i}` }));
    const written: Buffer[] = [];
    const add = (exchangeId: number, raw: Buffer) => {
      w.addMessage({ exchangeId, sender: 'server', carrier: 'body', tOffsetMs: written.length, raw, json: JSON.parse(raw.toString()), verdict: valid });
      written.push(raw);
    };
    // Fifty exchanges of one small body each: none tried. Then one of small bodies whose sum reaches MIN_RUN_BYTES: one block.
    for (let i = 0; i < 50; i++) {
      const id = w.beginExchange({ transport: 'http', method: 'GET', path: `/v1/models/${i}`, tOffsetMs: i });
      add(id, small(i));
      w.endExchange(id, { outcome: 'complete', tOffsetMs: i });
    }
    const many = w.beginExchange({ transport: 'sse', method: 'GET', path: '/v1/stream', tOffsetMs: 60 });
    let bytes = 0;
    for (let i = 0; bytes < MIN_RUN_BYTES; i++) {
      add(many, small(1000 + i));
      bytes += written[written.length - 1].length;
    }
    w.endExchange(many, { outcome: 'complete', tOffsetMs: 61 });
    w.close(new Date('2026-01-02T03:05:00.000Z'));

    expect(small(49).length).toBeLessThan(MIN_RUN_BYTES);
    expect(blockCounts(file)).toEqual({ blocked: written.length - 50, blocks: 1 });
    expectEqual(bytesOf(file), written);
    expect(exportedNdjson(file)).toBe(exportedNdjson(plainCopy(file, 'small-plain.db')));
  });
});

describe('a damaged file', () => {
  it('a message whose block is missing: E_STORE_NOT_RECORDING, naming the block', () => {
    const file = join(tmp.dir, 'damaged.db');
    const w = RecordingWriter.open(file, meta());
    const id = w.beginExchange({ transport: 'sse', tOffsetMs: 0 });
    for (let i = 0; i < 20; i++) w.addMessage({ exchangeId: id, sender: 'server', carrier: 'event', tOffsetMs: 1, raw: Buffer.from(`data: {"n":${i},"text":"the same words"}\n\n`), json: { n: i, text: 'the same words' }, verdict: valid });
    w.close();
    const db = openDatabase(file);
    db.exec('DELETE FROM raw_blocks');
    db.close();
    const reader = RecordingReader.open(file);
    try {
      const damaged = expect.objectContaining({ code: 'E_STORE_NOT_RECORDING', message: expect.stringMatching(/damaged\.db: not a recording \(damaged: a message's bytes are in block 1, which raw_blocks does not hold\)$/) });
      expect(() => [...reader.messagesInOrder()]).toThrow(damaged);
      // export's and validate's readers, which read fewer columns of a message (the bytes as text).
      expect(() => [...RecordingReader.messagesWithTextInOrder(reader)]).toThrow(damaged);
      expect(() => [...RecordingReader.messagesToJudgeInOrder(reader)]).toThrow(damaged);
    } finally {
      reader.close();
    }
  });
});

describe('a format 8 file', () => {
  it('opens, is upgraded to format 9 with its rows as they were, exports the same, and an append blocks only the new messages', () => {
    verdictsWrittenByHand(tmp.dir);
    const file = join(tmp.dir, 'current.db');
    recordEveryProtocolCopy(file);
    const old = join(tmp.dir, 'v8.db');
    copyFileSync(file, old);
    makeFormatEight(old);
    const text = exportedNdjson(file);
    expect(exportedNdjson(old)).toBe(text);
    const db = openDatabase(old, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(FORMAT_VERSION);
    } finally {
      db.close();
    }
    expect(blockCounts(old)).toEqual({ blocked: 0, blocks: 0 });
    const w = RecordingWriter.append(old);
    const id = w.beginExchange({ transport: 'sse', tOffsetMs: 100 });
    for (let i = 0; i < 10; i++) w.addMessage({ exchangeId: id, sender: 'server', carrier: 'event', tOffsetMs: 101, raw: Buffer.from(`data: {"n":${i},"text":"the same words again"}\n\n`), json: { n: i, text: 'the same words again' }, verdict: valid });
    w.endExchange(id, { outcome: 'complete', tOffsetMs: 102 });
    w.close();
    expect(blockCounts(old)).toEqual({ blocked: 10, blocks: 1 });
    const before = bytesOf(file);
    expectEqual(bytesOf(old).slice(0, before.length), before);
  });
});
