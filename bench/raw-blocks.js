// What format 9's blocks cost (src/store/raw-block-compaction.ts, src/store/raw-blocks.ts), on a copy of a recording
// whose messages are plain (read-scale's, or any format 8 file): the CPU of blocking every message as a writer's
// close does (VACUUM and checkpoint included) and the file's size before and after; then the CPU per row of reading
// every message's bytes in id order three ways: plain `raw` (the copy before), the store's expression (the block
// read only when the connection does not hold it inflated), and the block's row passed to the function on every row.
// Run after a build:  node bench/raw-blocks.js FILE [--out COPY]   (e.g. /tmp/rs200k/a.db; FILE itself is not changed;
//   --out keeps the blocked copy, e.g. for `read-scale.js --keep` with both of its sides blocked)
// or:  node bench/raw-blocks.js --exchanges N [--bytes B] [--dist DIR]: the close of a recording of N REST exchanges of one
//   B-byte JSON body each (default 20,000 of 128), written plain by the store's writer: what closing costs an exchange
//   (a query, a zlib stream, a block row and an update each, before runs under MIN_RUN_BYTES stayed plain); --dist
//   times another build's dist/ (before/after).
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const argValue = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const DIST = argValue('--dist') ? pathToFileURL(`${argValue('--dist').replace(/\/$/, '')}/`) : new URL('../dist/', import.meta.url);
const load = (path) => import(pathToFileURL(new URL(path, DIST).pathname).href);
const { openDatabase } = await load('store/open-database.js');
const { migrate } = await load('store/migrations.js');
const { compactMessages } = await load('store/raw-block-compaction.js');
const { finishRecordingFile } = await load('store/recording-lifecycle.js');
const { rawBytesSql } = await load('store/raw-blocks.js');

const out = process.argv.indexOf('--out') > 0 ? process.argv[process.argv.indexOf('--out') + 1] : undefined;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
if (argValue('--exchanges')) {
  await closeOfSmallExchanges(Number(argValue('--exchanges')), Number(argValue('--bytes') ?? 128));
  process.exit(0);
}

/** Writes N exchanges of one body each with the store's writer, plain (not compacted), then times the close's blocking. */
async function closeOfSmallExchanges(n, bytes) {
  const { RecordingWriter } = await load('store/recording-writer.js');
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-raw-blocks-'));
  try {
    const file = join(dir, 'rest.db');
    const w = RecordingWriter.open(file, { toolVersion: 'bench', target: 'http://127.0.0.1:1', listen: '127.0.0.1:2', mode: 'record', schemaHashes: {}, startedAt: new Date(0) }, { compact: false });
    for (let i = 0; i < n; i++) {
      const exchangeId = w.beginExchange({ transport: 'http', method: 'GET', path: `/v1/models/m-${i}`, tOffsetMs: i });
      const json = { id: `m-${i}`, object: 'model', created: 1_700_000_000 + i, owned_by: 'bench', note: '' };
      json.note = 'x'.repeat(Math.max(0, bytes - Buffer.byteLength(JSON.stringify(json))));
      w.addMessage({ exchangeId, sender: 'server', carrier: 'body', tOffsetMs: i, raw: Buffer.from(JSON.stringify(json)), json, verdict: { status: 'unchecked', reason: 'bench', findings: [] } });
      w.endExchange(exchangeId, { outcome: 'complete', tOffsetMs: i });
    }
    w.close(new Date(1));
    const db = openDatabase(file);
    const t0 = cpuMs();
    const done = compactMessages(db, 1);
    finishRecordingFile(db);
    const closeMs = cpuMs() - t0;
    db.close();
    console.log(`close of ${n} exchanges of one ${bytes}-byte body: ${done.blocks} blocks, ${done.messages} messages blocked (${mb(done.plainBytes)} → ${mb(done.blockBytes)}), vacuumed: ${done.vacuumed}`);
    console.log(`  CPU ${closeMs.toFixed(0)} ms, ${((closeMs * 1000) / n).toFixed(1)} µs an exchange; file ${mb(statSync(file).size)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const source = process.argv[2];
if (!source) throw new Error('usage: node bench/raw-blocks.js FILE [--out COPY] | --exchanges N [--bytes B] [--dist DIR]');
const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-raw-blocks-'));
try {
  const plain = join(dir, 'plain.db');
  const blocked = join(dir, 'blocked.db');
  copyFileSync(source, plain);
  for (const file of [plain]) {
    const db = openDatabase(file);
    migrate(db, file);
    finishRecordingFile(db);
    db.close();
  }
  copyFileSync(plain, blocked);
  const db = openDatabase(blocked);
  const n = db.prepare('SELECT count(*) FROM messages').pluck().get();
  const t0 = cpuMs();
  const done = compactMessages(db, 1);
  finishRecordingFile(db);
  const closeMs = cpuMs() - t0;
  db.close();
  console.log(`raw blocks: ${n} messages, ${done.blocks} blocks (${mb(done.plainBytes)} of bytes → ${mb(done.blockBytes)}), vacuumed: ${done.vacuumed}`);
  console.log(`  file ${mb(statSync(plain).size)} → ${mb(statSync(blocked).size)}; close's blocking: CPU ${closeMs.toFixed(0)} ms, ${((closeMs * 1000) / n).toFixed(2)} µs a message`);

  const always = 'CASE WHEN raw_block IS NULL THEN raw ELSE raw_block_slice(raw_block, raw_at, raw_size, (SELECT b.data FROM raw_blocks b WHERE b.id = messages.raw_block)) END';
  const ways = [
    ['plain raw', plain, 'SELECT raw FROM messages ORDER BY id'],
    ['blocks, the store\'s expression', blocked, `SELECT ${rawBytesSql()} FROM messages ORDER BY id`],
    ['blocks, the block row on every row', blocked, `SELECT ${always} FROM messages ORDER BY id`],
  ];
  const best = new Map();
  // Alternating, best of all: the machine is shared.
  for (let round = 0; round < 5; round++) {
    for (const [name, file, sql] of ways) {
      const reader = openDatabase(file, { readonly: true });
      const statement = reader.prepare(sql).raw(true);
      const start = cpuMs();
      let bytes = 0;
      for (const [raw] of statement.iterate()) bytes += raw.length;
      const µs = ((cpuMs() - start) * 1000) / n;
      reader.close();
      best.set(name, Math.min(best.get(name) ?? Infinity, µs));
    }
  }
  for (const [name, µs] of best) console.log(`  reading every message's bytes in id order, ${name}: ${µs.toFixed(2)} µs a row`);
  if (out) copyFileSync(blocked, out);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
