// What format 9's blocks cost (src/store/raw-block-compaction.ts, src/store/raw-blocks.ts), on a copy of a recording
// whose messages are plain (read-scale's, or any format 8 file): the CPU of blocking every message as a writer's
// close does (VACUUM and checkpoint included) and the file's size before and after; then the CPU per row of reading
// every message's bytes in id order three ways: plain `raw` (the copy before), the store's expression (the block
// read only when the connection does not hold it inflated), and the block's row passed to the function on every row.
// Run after a build:  node bench/raw-blocks.js FILE [--out COPY]   (e.g. /tmp/rs200k/a.db; FILE itself is not changed;
//   --out keeps the blocked copy, e.g. for `read-scale.js --keep` with both of its sides blocked)
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const DIST = new URL('../dist/', import.meta.url);
const load = (path) => import(pathToFileURL(new URL(path, DIST).pathname).href);
const { openDatabase } = await load('store/open-database.js');
const { migrate } = await load('store/migrations.js');
const { compactMessages } = await load('store/raw-block-compaction.js');
const { finishRecordingFile } = await load('store/recording-lifecycle.js');
const { rawBytesSql } = await load('store/raw-blocks.js');

const source = process.argv[2];
if (!source) throw new Error('usage: node bench/raw-blocks.js FILE [--out COPY]');
const out = process.argv.indexOf('--out') > 0 ? process.argv[process.argv.indexOf('--out') + 1] : undefined;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
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
