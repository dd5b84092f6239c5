import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { createRecordingFile } from '../../src/store/recording-lifecycle.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { tempDir } from '../support/temp-dir.js';

// SQLite reports a cache size given in KiB as its negative.
const cacheKibOf = (db: ReturnType<typeof openDatabase>): number => -(db.pragma('cache_size', { simple: true }) as number);

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
  // Files with tables and no traffic: nothing for the agreement check to read.
  verdictsWrittenByHand(tmp.dir);
});
afterEach(() => tmp.cleanup());

describe("a writer's page cache", () => {
  it('is 2 MiB unless the opener asks for another size', () => {
    const file = join(tmp.dir, 'default.db');
    const db = openDatabase(file);
    try {
      expect(cacheKibOf(db)).toBe(2048);
    } finally {
      db.close();
    }
    const smaller = openDatabase(file, { cacheKib: 512 });
    try {
      expect(cacheKibOf(smaller)).toBe(512);
    } finally {
      smaller.close();
    }
  });

  it("is the size a new recording's writer asks for (the recording worker's)", () => {
    const kib = createRecordingFile(join(tmp.dir, 'new.db'), { pageCacheKib: 512 }, (db) => {
      const size = cacheKibOf(db);
      db.close();
      return size;
    });
    expect(kib).toBe(512);
  });
});
