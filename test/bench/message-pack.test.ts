/**
 * The rows `node bench/record-floor.js --pack N` times (bench/lib/message-pack.js, packed-row-store.js): what
 * is stored N messages to a row comes back as each message's row would hold it, through a real SQLite file,
 * with packs that do not end with their transactions, a last pack short of N, and the messages whose verdict
 * is not the plain case kept with their pack.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A build's module, as the bench loads it (its stores are the build's). */
const load = (path: string) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
const benchLib = (name: string) => import(pathToFileURL(join(ROOT, 'bench', 'lib', name)).href);

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('messages stored N to a row (record-floor --pack)', () => {
  it('hands back every message with its bytes, time, seq, kind and verdict, packs held over a commit included', async () => {
    const { openPackedRowStore } = await benchLib('packed-row-store.js');
    const { unpack } = await benchLib('message-pack.js');
    dir = mkdtempSync(join(tmpdir(), 'agent-proxy-message-pack-'));
    // 8 a row, a transaction per 5 messages: packs straddle commits; 21 messages leave a last pack of 5.
    const store = await openPackedRowStore({
      load,
      dir,
      name: 'packs',
      message: { transport: 'ws', sender: 'client', carrier: 'frame', channel: 'binary', jsonAt: 0 },
      schemaRef: 'https://example.test/schema#/x',
      perRow: 8,
      messagesPerTransaction: 5,
    });
    const raws = Array.from({ length: 21 }, (_, i) => Buffer.from(`{"i":${i}}${'x'.repeat(i * 7)}`));
    const exceptions = new Map<number, Record<string, unknown>>([
      [2, { status: 'invalid', reason: 'schema', findingCount: 2 }],
      [11, { status: 'unchecked', reason: 'no schema', json: '{"deep":1}', rawTruncatedFrom: 4096 }],
    ]);
    raws.forEach((raw, i) => store.add(raw, 10.5 + i * 0.25, exceptions.get(i)));
    store.close();
    expect(store.verify()).toMatchObject({ rows: 3, messages: 21, rawBytes: raws.reduce((n, raw) => n + raw.length, 0), metaBytes: 21 * 24, exceptions: 2 });

    const db = new Database(store.file, { readonly: true });
    try {
      const packs = db.prepare('SELECT id, exchange_id AS exchangeId, first_seq AS firstSeq, count, raw, meta, exceptions FROM message_packs ORDER BY first_seq').all() as Array<Record<string, unknown>>;
      expect(packs.map((p) => [p.id, p.exchangeId, p.firstSeq, p.count])).toEqual([
        [1, 1, 1, 8],
        [2, 1, 9, 8],
        [3, 1, 17, 5],
      ]);
      expect(db.prepare('SELECT id FROM message_packs WHERE exceptions IS NOT NULL').pluck().all()).toEqual([1, 2]);
      const messages = packs.flatMap((pack) => unpack(pack) as Array<Record<string, unknown>>);
      expect(messages).toHaveLength(21);
      messages.forEach((m, i) => {
        expect(Buffer.compare(m.raw as Buffer, raws[i]!), `message ${i}'s bytes`).toBe(0);
        const e = exceptions.get(i);
        expect({ ...m, raw: undefined }).toEqual({
          seq: i + 1,
          tOffsetMs: 10.5 + i * 0.25,
          raw: undefined,
          jsonAt: 0,
          schemaRefId: 1,
          sender: 'client',
          carrier: 'frame',
          channel: 'binary',
          status: e?.status ?? 'valid',
          reason: e?.reason ?? null,
          findingCount: e?.findingCount ?? 0,
          json: e?.json ?? null,
          schemaRef: null,
          rawTruncatedFrom: e?.rawTruncatedFrom ?? null,
        });
      });
      // The indexes a reader needs: an exchange's packs by first seq (one pack per start), the flagged ones.
      const indexes = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'message_packs' ORDER BY name").all();
      expect(indexes).toEqual([
        { name: 'message_packs_by_exchange', sql: 'CREATE UNIQUE INDEX message_packs_by_exchange ON message_packs (exchange_id, first_seq)' },
        { name: 'message_packs_flagged', sql: 'CREATE INDEX message_packs_flagged ON message_packs (id) WHERE exceptions IS NOT NULL' },
      ]);
    } finally {
      db.close();
    }
  });

  it('refuses a message kind or a JSON offset its meta cannot hold', async () => {
    const { PackBuilder, messageKind } = await benchLib('message-pack.js');
    expect(() => messageKind('server', 'datagram', null)).toThrow(RangeError);
    const pack = new PackBuilder(4);
    expect(() => pack.add(Buffer.from('{}'), 0, 1, messageKind('server', 'event', null), 0xffff, null, undefined)).toThrow(/json_at 65535/);
    expect(() => new PackBuilder(1 << 16)).toThrow(RangeError);
  });
});
