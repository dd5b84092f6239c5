/**
 * An NDJSON recording opened for reading (replay, validate, diff, show) is imported into a scratch
 * copy: journal in memory, nothing synced. It must hold exactly what a durable import holds, and
 * leave nothing behind.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importNdjsonFile } from '../../src/store/ndjson-import.js';
import { openRecording } from '../../src/store/open-recording.js';
import { exportedNdjson } from '../support/ndjson-recording.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { meta } from './store-fixtures.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const EXAMPLE = fileURLToPath(new URL('../../recordings/examples/agui-sse-run.ndjson', import.meta.url));

let tmp: TempDir;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

describe('a scratch import', () => {
  it('holds what a durable import holds, in a file with a plain rollback journal and no journal files beside it', () => {
    const durable = join(tmp.dir, 'durable.db');
    const scratch = join(tmp.dir, 'scratch.db');
    expect(importNdjsonFile(EXAMPLE, scratch, { scratch: true })).toEqual(importNdjsonFile(EXAMPLE, durable));
    expect(exportedNdjson(scratch)).toBe(exportedNdjson(durable));
    const db = new Database(scratch, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    } finally {
      db.close();
    }
    expect(readdirSync(tmp.dir).sort()).toEqual(['durable.db', 'scratch.db']);
  });

  it('with compact: false (the work copy of a fixture, only exported again) leaves the bytes plain, where a durable import blocks them, and holds the same', () => {
    const blocked = join(tmp.dir, 'blocked.db');
    const plain = join(tmp.dir, 'plain.db');
    expect(importNdjsonFile(EXAMPLE, plain, { compact: false })).toEqual(importNdjsonFile(EXAMPLE, blocked));
    expect(exportedNdjson(plain)).toBe(exportedNdjson(blocked));
    const blockedMessages = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare('SELECT count(*) FROM messages WHERE raw_block IS NOT NULL').pluck().get();
      } finally {
        db.close();
      }
    };
    expect(blockedMessages(blocked)).toBeGreaterThan(0);
    expect(blockedMessages(plain)).toBe(0);
  });

  it('writes no journal file beside its file while it is open, where a durable recording has its WAL', () => {
    const journalsWhileWriting = (name: string, scratch: boolean) => {
      const file = join(tmp.dir, name);
      const writer = RecordingWriter.open(file, meta(), { scratch });
      try {
        writer.beginExchange({ transport: 'http', tOffsetMs: 0 });
        writer.flush();
        return ['-wal', '-journal'].filter((suffix) => existsSync(file + suffix));
      } finally {
        writer.close();
      }
    };
    expect(journalsWhileWriting('scratch.db', true)).toEqual([]);
    expect(journalsWhileWriting('durable.db', false)).toEqual(['-wal']);
  });

  it('is what openRecording reads an NDJSON recording through, and closing the reader deletes it', () => {
    const reader = openRecording(EXAMPLE);
    const copy = reader.file;
    expect(dirname(copy)).not.toBe(dirname(EXAMPLE));
    expect(reader.totals().exchanges).toBeGreaterThan(0);
    reader.close();
    expect(existsSync(copy)).toBe(false);
    expect(existsSync(dirname(copy))).toBe(false);
  });
});
