// What one SSE event's `messages` row costs SQLite, and what each choice of the table, its indexes and the
// connection adds or saves: better-sqlite3 alone, no writer. Each variant inserts the same rows (one stream's,
// 16 per statement, 1,024 per transaction, WAL, synchronous=NORMAL, the writer's 2 MiB cache) into a fresh file
// of the newest schema, then closes it (the close's checkpoint counted: a variant that only defers work saves
// nothing); CPU per row (user + system), the variants alternating within each round.
// Run after a build:  node bench/sqlite-row.js [--rows N] [--rounds N] [--only a,b]
//   writer: the rows as the writer inserts them (the chunk's shared sender, carrier, channel, status and
//     finding count as literals in the statement); the others change one thing against it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const argValue = (name) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const ROWS = Number(argValue('--rows') ?? 200_000);
const ROUNDS = Number(argValue('--rounds') ?? 5);
const ONLY = argValue('--only')?.split(',');
const PER_STATEMENT = 16;
const PER_TRANSACTION = 1024;
const Database = createRequire(import.meta.url)('better-sqlite3');
const { NEWEST_SCHEMA } = await import(pathToFileURL(new URL('../dist/store/newest-schema.js', import.meta.url).pathname).href);

/** An AG-UI text delta as the bench upstream writes it. */
const RAW = Buffer.from('data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"tok12 "}\n\n');
const COLUMNS = ['id', 'exchange_id', 'seq', 'sender', 'carrier', 'channel', 't_offset_ms', 'raw', 'status', 'finding_count', 'json_at', 'schema_ref_id'];
const LITERALS = { sender: "'server'", carrier: "'event'", channel: 'NULL', status: "'valid'", finding_count: '0.0' };

const variants = {
  writer: {},
  'all-bound': { literals: {}, values: (id) => [id, 1, id, 'server', 'event', null, id / 64, RAW, 'valid', 0, 6, 1] },
  'no-unique-index': { sql: 'DROP INDEX messages_by_exchange' },
  'exchange-index': { sql: 'DROP INDEX messages_by_exchange; CREATE INDEX messages_by_exchange ON messages (exchange_id)' },
  'no-invalid-index': { sql: 'DROP INDEX messages_invalid' },
  'no-indexes': { sql: 'DROP INDEX messages_by_exchange; DROP INDEX messages_invalid' },
  'foreign-keys-off': { foreignKeys: false },
  'page-8k': { pageSize: 8192 },
  'page-16k': { pageSize: 16384 },
  '32-per-statement': { perStatement: 32 },
  'checkpoint-at-close': { sql: 'PRAGMA wal_autocheckpoint = 0' },
};

function run(name, v) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-sqlite-row-'));
  try {
    const db = new Database(join(dir, 'r.db'));
    if (v.pageSize) db.pragma(`page_size = ${v.pageSize}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -2048');
    db.pragma(`foreign_keys = ${v.foreignKeys === false ? 'OFF' : 'ON'}`);
    db.exec(NEWEST_SCHEMA.sql);
    if (v.sql) db.exec(v.sql);
    db.prepare("INSERT INTO exchanges (id, transport, started_ms) VALUES (1, 'sse', 0)").run();
    const literals = v.literals ?? LITERALS;
    const per = v.perStatement ?? PER_STATEMENT;
    const tuple = `(${COLUMNS.map((c) => literals[c] ?? '?').join(', ')})`;
    const insert = db.prepare(`INSERT INTO messages (${COLUMNS.join(', ')}) VALUES ${new Array(per).fill(tuple).join(', ')}`);
    const values = v.values ?? ((id) => [id, 1, id, id / 64, RAW, 6, 1]);
    const params = new Array(values(1).length * per);
    let id = 1;
    const transaction = db.transaction((statements) => {
      for (let s = 0; s < statements; s++) {
        let k = 0;
        for (let r = 0; r < per; r++, id++) for (const value of values(id)) params[k++] = value;
        insert.run(params);
      }
    });
    const before = process.cpuUsage();
    while (id <= ROWS) transaction(PER_TRANSACTION / per);
    db.close();
    const cpu = process.cpuUsage(before);
    // Every row is there as the writer stores it, whatever the variant: a bench that measures nothing fails.
    const check = new Database(join(dir, 'r.db'), { readonly: true });
    const stored = check.prepare("SELECT count(*) AS n, sum(sender = 'server' AND carrier = 'event' AND channel IS NULL AND status = 'valid' AND finding_count = 0 AND length(raw) = ?) AS same FROM messages").get(RAW.length);
    check.close();
    if (stored.n !== id - 1 || stored.same !== id - 1) throw new Error(`${name}: ${stored.n} rows stored (${stored.same} as written), not ${id - 1}`);
    return (cpu.user + cpu.system) / (id - 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const names = Object.keys(variants).filter((name) => !ONLY || ONLY.includes(name));
const results = new Map(names.map((name) => [name, []]));
// A first run warms the JIT and the allocator up, so that the first variant measured does not pay for it.
run('warm-up', { ...variants.writer });
for (let round = 0; round < ROUNDS; round++) for (const name of names) results.get(name).push(run(name, variants[name]));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const min = (xs) => Math.min(...xs);
const base = median(results.get('writer') ?? [NaN]);
const baseMin = min(results.get('writer') ?? [NaN]);
// On a shared machine other work inflates a round's CPU (caches, the other hyperthread): the least round is the
// steadier figure, the median the usual one.
const signed = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
console.log(`sqlite-row: ${ROWS.toLocaleString('en')} rows of ${RAW.length} raw bytes, ${PER_STATEMENT} per statement, ${PER_TRANSACTION} per transaction, ${ROUNDS} rounds; µs CPU per row, close included: median, least`);
for (const name of names) {
  const xs = results.get(name);
  const m = median(xs);
  const delta = name === 'writer' || Number.isNaN(base) ? '' : `  ${signed(m - base)} / ${signed(min(xs) - baseMin)} against writer`;
  console.log(`  ${name.padEnd(20)} ${m.toFixed(2)} ${min(xs).toFixed(2)}  (rounds ${xs.map((x) => x.toFixed(2)).join(' / ')})${delta}`);
}
