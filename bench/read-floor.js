// The floor under reading a message of a recording (issue #34: export, diff and validate of 200,000 messages at
// ≥ 200,000 messages per CPU second each, i.e. ≤ 5 µs a message, start-up included): the least any reader of this
// format (SQLite rows, a message's bytes in its row or in a zlib block of its exchange, format 9) must do, each step
// timed in a fresh process of its own, as a command runs, and then the real `export` to a pipe on the same file.
// The gap between the bare NDJSON writer and `export` is what export spends beyond the floor.
//
// The steps (each a fresh `node`, CPU of the whole process: user + system, all threads, from its own
// process.resourceUsage() at exit; the recording opened read-only by better-sqlite3 with the store's block
// functions registered and a 1 MiB page cache, as the CLI's readers open it; rows read 1,000 at a time by id):
//   node        `node -e 0`
//   open        node + better-sqlite3 loaded, the recording opened and its schema read
//   ids         + every message's id stepped (`SELECT id`)
//   raw         + each message's bytes as text, through the store's expression (its row's `raw`, else its
//               block's slice from the connection's inflated blocks: store/raw-blocks.ts's SQL functions)
//   columns     + the other values export's reader reads of a message (RecordingReader's EXPORT_SELECT: exchange,
//               seq, offset, and a plain message's sender, carrier, channel, status, schema ref and json_at as one
//               integer, store/plain-message-kind.ts; a build without that file, those six values apart)
//   ndjson      ids, json_at and raw's text, and each message's JSON text (raw's text from json_at, its trailing
//               white space cut) written as one line into 1 MiB chunks, to a pipe: a bare minimum NDJSON
//   export      `agent-proxy export FILE --format ndjson`, to a pipe (the recording's, exchanges' and messages' lines)
// Each run of a step is checked: every message stepped, every line read from the pipe.
//
// Run (after a build):  node bench/read-floor.js [--quick | --smoke] [--db FILE] [--runs N] [--bin PATH] [--dist PATH]
//   [--compare PATH]
//   --db FILE   a recording to read (e.g. a copy of read-scale's a.db); without it, one is made as read-scale
//               makes its side A (`node bench/read-scale.js --keep DIR [--quick | --smoke]`), in a temp folder
//   --bin PATH  the build whose `export` is timed (default this one's bin/agent-proxy.js); --dist PATH the dist whose
//               store SQL the steps use (default: the one next to --bin)
//   --compare PATH  also times another build's `export` (PATH: its folder, holding bin/), in each run right after
//               this one's, with the same lines checked: a before/after of the gap in one sitting
//   --smoke     read-scale's smoke recording, one run of each step (test/bench/bench-smoke.test.ts runs it)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const argValue = (name) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const SELF = fileURLToPath(import.meta.url);
const BIN = resolve(argValue('--bin') ?? fileURLToPath(new URL('../bin/agent-proxy.js', import.meta.url)));
const DIST = resolve(argValue('--dist') ?? join(dirname(dirname(BIN)), 'dist'));
const PAGE = 1000;
const TARGET = 200_000;

// --- A step, in the child process --------------------------------------------------------------------------------

/** Runs one step (`--child STEP`): says on stderr how many messages it read, and writes the NDJSON step's lines to stdout. */
async function child(step) {
  const file = argValue('--db');
  const { default: Database } = await import('better-sqlite3');
  const load = (path) => import(pathToFileURL(join(DIST, path)).href);
  const [{ registerRawBlockFunctions, rawBytesSql }, { ROUTE_SQL }] = await Promise.all([load('store/raw-blocks.js'), load('store/message-route.js')]);
  // What a build's export reader reads of a plain message: its kind as one integer (store/plain-message-kind.ts); an
  // earlier build, its route, status, schema ref and json_at apart.
  const { PLAIN_KIND_SQL } = await load('store/plain-message-kind.js').catch(() => ({}));
  const db = new Database(file, { readonly: true, fileMustExist: true });
  registerRawBlockFunctions(db, file);
  db.pragma('cache_size = -1024');
  const tables = db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table'").pluck().get();
  if (step === 'open') return report(0, tables);
  const RAW = rawBytesSql();
  const select = {
    ids: 'SELECT id',
    raw: `SELECT id, CAST(${RAW} AS TEXT)`,
    columns:
      PLAIN_KIND_SQL === undefined
        ? `SELECT id, exchange_id, seq, ${ROUTE_SQL}, t_offset_ms, status, schema_ref_id, json_at, CAST(${RAW} AS TEXT)`
        : `SELECT id, exchange_id, seq, ${PLAIN_KIND_SQL}, t_offset_ms, CAST(${RAW} AS TEXT)`,
    ndjson: `SELECT id, json_at, CAST(${RAW} AS TEXT)`,
  }[step];
  const statement = db.prepare(`${select} FROM messages WHERE id > ? ORDER BY id LIMIT ${PAGE}`).raw(true);
  let messages = 0;
  let chars = 0;
  if (step === 'ndjson') {
    const lines = new Lines();
    for (let after = 0; ; ) {
      const page = statement.all(after);
      for (let i = 0; i < page.length; i++) {
        const [, at, text] = page[i];
        lines.add(at === null ? JSON.stringify(text) : text.slice(at, jsonEnd(text)));
      }
      messages += page.length;
      await lines.flush();
      if (page.length < PAGE) break;
      after = page[page.length - 1][0];
    }
    await lines.end();
    return report(messages, lines.bytes);
  }
  for (let after = 0; ; ) {
    const page = statement.all(after);
    if (step !== 'ids') for (let i = 0; i < page.length; i++) chars += page[i][page[i].length - 1].length;
    messages += page.length;
    if (page.length < PAGE) break;
    after = page[page.length - 1][0];
  }
  return report(messages, chars);
}

function report(messages, checked) {
  process.stderr.write(`read ${messages} ${checked}\n`);
}

/** Where a JSON text ends in raw's text: before its trailing white space. */
function jsonEnd(text) {
  let end = text.length;
  for (let c = text.charCodeAt(end - 1); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(end - 1)) end--;
  return end;
}

/** Lines encoded into 1 MiB chunks as they come, each chunk written to stdout and reused once written (as export's ChunkPool). */
class Lines {
  chunk = Buffer.allocUnsafe(1 << 20);
  used = 0;
  bytes = 0;
  full = [];
  free = [];
  add(line) {
    if (this.used + line.length * 3 + 1 > this.chunk.length) {
      this.full.push(this.chunk.subarray(0, this.used));
      this.chunk = this.free.pop() ?? Buffer.allocUnsafe(1 << 20);
      this.used = 0;
    }
    this.used += this.chunk.write(line, this.used);
    this.chunk[this.used++] = 0x0a;
  }
  async flush() {
    for (const chunk of this.full) {
      this.bytes += chunk.length;
      const whole = chunk.buffer;
      if (!process.stdout.write(chunk, () => this.free.length < 4 && this.free.push(Buffer.from(whole)))) await new Promise((ok) => process.stdout.once('drain', ok));
    }
    this.full.length = 0;
  }
  async end() {
    if (this.used > 0) this.full.push(this.chunk.subarray(0, this.used));
    await this.flush();
  }
}

// --- The parent: each step in fresh processes, alternating ---------------------------------------------------------

/** The preload that reports a child's own CPU (µs), peak RSS (KiB) and minor page faults at exit. */
const PRELOAD = "process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nusage '+(u.userCPUTime+u.systemCPUTime)+' '+u.maxRSS+' '+u.minorPageFault+'\\n')})";

/** Runs `args` under node with the preload, its stdout to a pipe read here: CPU, RSS, faults, bytes and lines read, stderr. */
function runChild(preload, args) {
  return new Promise((ok, fail) => {
    const proc = spawn(process.execPath, ['--require', preload, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let bytes = 0;
    let lines = 0;
    let stderr = '';
    proc.stdout.on('data', (chunk) => {
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
    });
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    proc.on('error', fail);
    proc.on('close', (code) => {
      const usage = /\nusage (\d+) (\d+) (\d+)\n$/.exec(stderr);
      if (code !== 0 || usage === null) return fail(new Error(`${args.join(' ')} exited ${code}: ${stderr.trim()}`));
      ok({ cpu: Number(usage[1]) / 1e6, rssMb: Number(usage[2]) / 1024, faults: Number(usage[3]), bytes, lines, stderr: stderr.slice(0, usage.index) });
    });
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** A recording as read-scale makes its side A, in `dir`. */
function makeRecording(dir, size) {
  const args = [fileURLToPath(new URL('./read-scale.js', import.meta.url)), '--keep', dir, '--only', 'none'];
  if (size) args.push(`--${size}`);
  const made = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (made.status !== 0) throw new Error(`bench/read-scale.js failed (exit ${made.status}):\n${made.stdout}`);
  return join(dir, `a${size ? `-${size}` : ''}.db`);
}

async function main() {
  const quick = process.argv.includes('--quick');
  const smoke = process.argv.includes('--smoke');
  const RUNS = Number(argValue('--runs') ?? (smoke ? 1 : quick ? 3 : 5));
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-read-floor-'));
  try {
    const preload = join(dir, 'usage.cjs');
    writeFileSync(preload, PRELOAD);
    const file = argValue('--db') !== undefined ? resolve(argValue('--db')) : makeRecording(dir, smoke ? 'smoke' : quick ? 'quick' : undefined);
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(file, { readonly: true, fileMustExist: true });
    const messages = db.prepare('SELECT count(*) FROM messages').pluck().get();
    const exchanges = db.prepare('SELECT count(*) FROM exchanges').pluck().get();
    db.close();

    const inChild = (step) => [SELF, '--child', step, '--db', file, '--dist', DIST];
    const steps = [
      ['node', 'node -e 0', ['-e', '0'], 0],
      ['open', 'node + better-sqlite3, the recording opened', inChild('open'), 0],
      ['ids', "+ every message's id stepped", inChild('ids'), 0],
      ['raw', "+ raw's text (the store's block functions)", inChild('raw'), 0],
      ['columns', "+ the other values export's reader reads", inChild('columns'), 0],
      ['ndjson', 'bare NDJSON: its JSON text a line, to a pipe', inChild('ndjson'), messages],
      ['export', '`export --format ndjson`, to a pipe', [BIN, 'export', file, '--format', 'ndjson'], 1 + exchanges + messages],
    ];
    const compare = argValue('--compare');
    if (compare !== undefined) steps.push(['compare', `… of ${compare}`, [join(resolve(compare), 'bin/agent-proxy.js'), 'export', file, '--format', 'ndjson'], 1 + exchanges + messages]);
    const runs = new Map(steps.map(([key]) => [key, []]));
    // Alternating: each run takes every step in turn, so that the machine's load falls on all of them alike.
    for (let r = 0; r < RUNS; r++) {
      for (const [key, , args, lines] of steps) {
        const run = await runChild(preload, args);
        if (run.lines !== lines) throw new Error(`${key}: ${run.lines} lines read from its pipe, not ${lines}`);
        if (args[1] === '--child' && key !== 'open' && key !== 'node') {
          const read = /^read (\d+) /m.exec(run.stderr);
          if (Number(read?.[1]) !== messages) throw new Error(`${key}: ${read?.[1]} messages read, not ${messages}`);
        }
        runs.get(key).push(run);
      }
    }

    console.log(`reading's floor per message: ${file}, ${fmt(messages)} messages; CPU of a fresh process (user + system, all threads), median of ${RUNS} (min–max), node ${process.version}`);
    console.log(`  ${'step'.padEnd(50)} ${'CPU s'.padStart(6)} ${'(min–max)'.padEnd(13)} ${'µs/msg'.padStart(7)} ${'step µs'.padStart(8)} ${'msg/CPU s'.padStart(10)} ${'faults'.padStart(7)} ${'MB out'.padStart(7)}`);
    const cpu = (key) => median(runs.get(key).map((run) => run.cpu));
    let before;
    for (const [key, label] of steps) {
      const all = runs.get(key);
      const c = cpu(key);
      const min = Math.min(...all.map((run) => run.cpu));
      const max = Math.max(...all.map((run) => run.cpu));
      // A step's own µs: above the step it adds to (the NDJSON writer and export: above the open recording).
      const base = key === 'node' ? undefined : key === 'ndjson' || key === 'export' || key === 'compare' ? 'open' : before;
      const own = base === undefined ? '' : (((c - cpu(base)) * 1e6) / messages).toFixed(2);
      const perMessage = key === 'node' || key === 'open' ? '' : ((c * 1e6) / messages).toFixed(2);
      const perSecond = key === 'node' || key === 'open' ? '' : fmt(messages / c);
      const out = all[0].bytes === 0 ? '' : (all[0].bytes / 1e6).toFixed(1);
      console.log(
        `  ${label.padEnd(50)} ${c.toFixed(3).padStart(6)} ${`(${min.toFixed(3)}–${max.toFixed(3)})`.padEnd(13)} ${perMessage.padStart(7)} ${own.padStart(8)} ${perSecond.padStart(10)} ${String(Math.round(median(all.map((run) => run.faults)))).padStart(7)} ${out.padStart(7)}`,
      );
      before = key;
    }
    const floor = cpu('ndjson');
    const gap = cpu('export') - floor;
    const budget = messages / TARGET;
    console.log(`  (µs/msg: the whole process's CPU ÷ messages; step µs: above the step before; the NDJSON writer and each export above the open recording)`);
    console.log(`  floor: the bare NDJSON writer, ${((floor * 1e6) / messages).toFixed(2)} µs a message → ${fmt(messages / floor)} messages per CPU second; ${fmt(TARGET)}/s (${budget.toFixed(2)} s here) ${floor <= budget ? 'is' : 'is not'} reachable by a reader of this format`);
    console.log(`  gap: export − the floor ${gap.toFixed(3)} s, ${((gap * 1e6) / messages).toFixed(2)} µs a message (export ${fmt(messages / cpu('export'))} messages per CPU second, ${(runs.get('export')[0].bytes / messages).toFixed(0)} bytes a message out)`);
    if (compare !== undefined) {
      const other = cpu('compare') - floor;
      const same = runs.get('compare')[0].bytes === runs.get('export')[0].bytes ? 'as many bytes out' : 'NOT as many bytes out';
      console.log(`  gap of ${compare}'s export: ${other.toFixed(3)} s, ${((other * 1e6) / messages).toFixed(2)} µs a message (${fmt(messages / cpu('compare'))} messages per CPU second; ${same})`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (argValue('--child') !== undefined) await child(argValue('--child'));
else await main();
