// A writer's CPU by the size of its SQLite page cache (RecordingWriter's `pageCacheKib`): 300,000 SSE-like messages of
// ~76 bytes over 20 exchanges, written 128 rows a transaction as the recording worker writes them, then the close
// (blocking the messages' bytes, VACUUM, checkpoint). Each size in a process of its own, alternating, several rounds.
// Run after a build:  node bench/writer-page-cache.js [--rounds N] [--sizes 2048,512]   (2048 is a writer's default)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const MESSAGES = 300_000;
const EXCHANGES = 20;
const ROWS_PER_TRANSACTION = 128;

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, sizes: { type: 'string', default: '2048,512' }, child: { type: 'string' } } });

if (values.child !== undefined) {
  const DIST = new URL('../dist/', import.meta.url);
  const load = (path) => import(pathToFileURL(new URL(path, DIST).pathname).href);
  const { RecordingWriter } = await load('store/recording-writer.js');
  const { verdictFrom } = await load('core/verdict.js');
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-writer-cache-'));
  try {
    const meta = { toolVersion: 'bench', target: 'http://127.0.0.1:1', listen: '127.0.0.1:2', mode: 'record', schemaHashes: {}, startedAt: new Date() };
    const writer = RecordingWriter.open(join(dir, 'r.db'), meta, { maxBatch: ROWS_PER_TRANSACTION, pageCacheKib: Number(values.child) });
    const exchanges = [];
    for (let e = 0; e < EXCHANGES; e++) exchanges.push(writer.beginExchange({ transport: 'sse', method: 'POST', url: 'http://127.0.0.1:1/sse', tOffsetMs: e }));
    const verdict = verdictFrom([], undefined);
    const before = process.cpuUsage();
    for (let i = 0; i < MESSAGES; i++) {
      const raw = Buffer.from(`data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"tok${i % 1000} "}\n\n`);
      writer.addMessage({ exchangeId: exchanges[i % EXCHANGES], sender: 'server', carrier: 'sse', tOffsetMs: i, raw, verdict });
      if (i % ROWS_PER_TRANSACTION === ROWS_PER_TRANSACTION - 1) writer.flush();
    }
    writer.flush();
    const written = process.cpuUsage(before);
    const closing = process.cpuUsage();
    writer.close(new Date());
    const closed = process.cpuUsage(closing);
    const s = (u) => (u.user + u.system) / 1e6;
    console.log(JSON.stringify({ write: s(written), close: s(closed) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  const sizes = values.sizes.split(',').map(Number);
  const runs = new Map(sizes.map((size) => [size, []]));
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const size of sizes) {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', String(size)], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(child.stderr);
      runs.get(size).push(JSON.parse(child.stdout));
    }
  }
  const list = (xs) => xs.map((x) => x.toFixed(2)).join(' / ');
  for (const [size, each] of runs) {
    console.log(`page cache ${size} KiB: CPU of writing ${MESSAGES.toLocaleString('en')} messages ${list(each.map((r) => r.write))} s, of the close ${list(each.map((r) => r.close))} s`);
  }
}
