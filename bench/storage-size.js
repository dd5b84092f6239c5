// How big a recording is beside the traffic it holds: realistic traffic goes through the real recorder
// (`startRecorder`, in this process) to an upstream in this process, and the bench prints the bytes that
// crossed the wire between proxy and upstream (every byte either side wrote on those sockets: HTTP heads,
// chunked framing, WebSocket frame heads and bodies), the `.db` once the recorder has closed it (the main
// file: the WAL is checkpointed into it), the NDJSON export of it, and the two ratios. The traffic:
// - an OpenAI chat completion and an Anthropic message streamed token by token over SSE (thousands of
//   small `data:` events, one per write, as a model streams);
// - a Pi daemon WebSocket session: a prompt, then one `message_update` event per token and the events
//   around them, as the daemon sends them;
// - a few REST exchanges: small Pi envelopes, and one large JSON body (a session transcript).
// Then why the `.db` is the size it is: the bytes per message of each part (its bytes, the rest of its row, cell and
// page overhead, the index), the floor of a row that holds nothing but its keys and bytes, and what compressing
// a block of an exchange's messages together would make of the file, with the CPU it costs per message.
// `--columns` also prints where the `.db`'s bytes go: each table's and index's pages (dbstat) and the
// bytes each message column holds, and the bytes each key of an NDJSON message line takes over the whole export. `--blocks` writes the messages into scratch files three ways (plain;
// rewritten into blocks of 16 once written; staged, then moved into blocks of 16) and prints each file's size
// and CPU per message: what a format that compresses blocks has to do for the file to shrink.
// Run:  npm run bench   (or, after a build:  node bench/storage-size.js [--quick] [--columns] [--blocks])
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import WebSocket, { WebSocketServer } from 'ws';
import Database from 'better-sqlite3';
import zlib, { brotliCompressSync, deflateRawSync, inflateRawSync } from 'node:zlib';

const quick = process.argv.includes('--quick');
const COLUMNS = process.argv.includes('--columns');
const BLOCKS = process.argv.includes('--blocks');
/** Tokens per streamed answer, and answers per API. */
const TOKENS = quick ? 500 : 2_000;
const ANSWERS = quick ? 1 : 2;
/** Targets of issue #34. */
const DB_TARGET = 1.2;
const NDJSON_TARGET = 1.5;

const DIST = new URL('../dist/', import.meta.url);
const load = (path) => import(pathToFileURL(new URL(path, DIST).pathname).href);
const { startRecorder } = await load('index.js');
const { RecordingReader } = await load('store/recording-reader.js');
const { exportNdjsonText } = await load('export/ndjson-export.js');
const { openDatabase } = await load('store/open-database.js');
/** A message's bytes in SQL, in its row or its block (format 9); `raw` in a build before it. */
const RAW = await load('store/raw-blocks.js').then((m) => m.rawBytesSql(), () => 'raw');

// ---- the traffic ----------------------------------------------------------------------------------

const WORDS = ('the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were ' +
  'recording proxy agent stream token message session function return value schema verdict replay export import ' +
  'café naïve 東京 — “quoted” ✓').split(' ');
/** A model's tokens: words with their leading space, some split, a newline now and then; deterministic. */
function tokens(n) {
  const out = [];
  let seed = 7;
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const word = WORDS[seed % WORDS.length];
    out.push(seed % 17 === 0 ? '\n\n' : seed % 5 === 0 ? word.slice(0, 2) : ` ${word}`);
  }
  return out;
}

const CHAT_HEAD = { id: 'chatcmpl-AqX9bT3kZq2m8YcVnR7wL5sE1dFhG', object: 'chat.completion.chunk', created: 1_764_900_000, model: 'gpt-4o-mini-2024-07-18', system_fingerprint: 'fp_0ba0d124f1' };
const chatEvent = (delta, finish, usage = null) => `data: ${JSON.stringify({ ...CHAT_HEAD, choices: finish === undefined ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage })}\n\n`;
const anthropicEvent = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

function chatStream(res, words) {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': 'req_8f2c1b7e9a' });
  res.write(chatEvent({ role: 'assistant', content: '', refusal: null }, null));
  for (const word of words) res.write(chatEvent({ content: word }, null));
  res.write(chatEvent({}, 'stop'));
  res.write(chatEvent(undefined, undefined, { prompt_tokens: 412, completion_tokens: words.length, total_tokens: 412 + words.length }));
  res.end('data: [DONE]\n\n');
}

function messageStream(res, words) {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': 'req_011CVbench' });
  res.write(anthropicEvent({ type: 'message_start', message: { id: 'msg_01XFDUDYJgAACzvnptvVoYEL', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 412, output_tokens: 1 } } }));
  res.write(anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
  for (const word of words) res.write(anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: word } }));
  res.write(anthropicEvent({ type: 'content_block_stop', index: 0 }));
  res.write(anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: words.length } }));
  res.end(anthropicEvent({ type: 'message_stop' }));
}

const HOST_ID = '00000000-0000-4000-8000-00000000d43e';
const envelope = (data) => JSON.stringify({ apiVersion: '1.0', requestId: 'req-bench-1', hostInstanceId: HOST_ID, ok: true, data });
const SESSION = { sessionId: 'agent-a', name: 'bench-agent', generation: 1, revision: 3, residency: 'resident', state: 'idle', createdAt: '2026-12-05T10:00:00.000Z', updatedAt: '2026-12-05T10:00:01.000Z', lastUsedAt: '2026-12-05T10:00:01.000Z' };
/** A long answer: a session's transcript, as a client reads it back. */
const TRANSCRIPT = envelope({ session: SESSION, entries: tokens(3_000).reduce((entries, word, i) => {
  if (i % 60 === 0) entries.push({ type: 'message', id: `e${i}`, timestamp: 1_764_900_000_000 + i, message: { role: i % 120 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text: '' }] } });
  entries[entries.length - 1].message.content[0].text += word;
  return entries;
}, []) });

const cursor = (q) => Buffer.from(JSON.stringify({ v: 1, h: HOST_ID, s: 'agent-a', g: 1, q })).toString('base64url');
/** The Pi daemon's frames for one prompt answered token by token. */
function piSession(ws, words) {
  let sequence = 0;
  const event = (event) => ws.send(JSON.stringify({ kind: 'event', cursor: cursor(++sequence), sequence, event }));
  ws.send(JSON.stringify({ kind: 'attach_ready', connectionId: '00000000-0000-4000-8000-000000000007', role: 'controller', hostInstanceId: HOST_ID, sessionId: 'agent-a', generation: 1, highWaterCursor: cursor(0), snapshot: { session: SESSION } }));
  ws.on('message', (data) => {
    const command = JSON.parse(String(data)).command;
    ws.send(JSON.stringify({ kind: 'response', response: { id: command.id, type: 'response', command: command.type, success: true } }));
    event({ type: 'agent_start' });
    event({ type: 'turn_start' });
    event({ type: 'message_start', message: { role: 'assistant', content: [], timestamp: 1_764_900_000_000 } });
    let text = '';
    for (const word of words) {
      text += word;
      event({ type: 'message_update', assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: word } });
    }
    event({ type: 'message_end', message: { role: 'assistant', content: [{ type: 'text', text }], timestamp: 1_764_900_000_001 } });
    event({ type: 'turn_end' });
    event({ type: 'agent_end' });
    ws.close(1000, 'done');
  });
}

/** The upstream, counting every byte either side sent on its sockets. */
async function startUpstream() {
  const wire = { bytes: 0 };
  const words = tokens(TOKENS);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url.startsWith('/v1/chat/completions')) return chatStream(res, words);
      if (req.url.startsWith('/v1/messages')) return messageStream(res, words);
      const body = req.url.startsWith('/v1/session/agent-a/transcript') ? TRANSCRIPT : envelope(req.url.startsWith('/v1/session') ? { session: SESSION } : { ready: true });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.on('connection', (socket) => socket.on('close', () => (wire.bytes += socket.bytesRead + socket.bytesWritten)));
  const wss = new WebSocketServer({ server, perMessageDeflate: false, handleProtocols: (p) => [...p][0] ?? false });
  wss.on('connection', (ws) => piSession(ws, words));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    wire,
    close: () => new Promise((resolve) => { for (const c of wss.clients) c.terminate(); server.closeAllConnections(); server.close(resolve); }),
  };
}

const agent = new Agent({ keepAlive: false });
function call(base, method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, agent, headers: { 'content-type': 'application/json', authorization: 'Bearer pi-bench', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${method} ${path}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function piWebSocket(base) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/session/agent-a/rpc?role=controller`, 'pi-daemon-rpc.v1', { perMessageDeflate: false, headers: { authorization: 'Bearer pi-bench' } });
    ws.once('message', () => ws.send(JSON.stringify({ kind: 'command', command: { id: 'prompt-1', type: 'prompt', message: 'Write me a long story about a proxy.' } })));
    ws.on('close', resolve);
    ws.on('error', reject);
  });
}

async function traffic(base) {
  await call(base, 'GET', '/v1/capabilities');
  await call(base, 'POST', '/v1/session', JSON.stringify({ sessionId: 'agent-a', spec: { cwd: '/srv/work/project-a', name: 'bench-agent' } }), { 'idempotency-key': 'create-1' });
  await call(base, 'GET', '/v1/session/agent-a');
  for (let i = 0; i < ANSWERS; i++) {
    const chat = { model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'system', content: 'You are a storyteller.' }, { role: 'user', content: 'Write me a long story about a proxy.' }] };
    await call(base, 'POST', '/v1/chat/completions', JSON.stringify(chat), { accept: 'text/event-stream' });
    const message = { model: 'claude-sonnet-4-5', max_tokens: 8192, stream: true, system: 'You are a storyteller.', messages: [{ role: 'user', content: 'Write me a long story about a proxy.' }] };
    await call(base, 'POST', '/v1/messages', JSON.stringify(message), { accept: 'text/event-stream', 'x-api-key': 'sk-ant-bench', 'anthropic-version': '2023-06-01' });
    await piWebSocket(base);
  }
  await call(base, 'GET', '/v1/session/agent-a/transcript');
}

// ---- the measurement ------------------------------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-storage-size-'));
try {
  const upstream = await startUpstream();
  const out = join(dir, 'run.db');
  const recorder = await startRecorder({ target: upstream.url, out, listen: 0 });
  await traffic(recorder.url);
  const totals = await recorder.close();
  await upstream.close();

  const wireBytes = upstream.wire.bytes;
  const dbBytes = statSync(out).size;
  const reader = RecordingReader.open(out);
  const ndjson = exportNdjsonText(reader);
  reader.close();
  const ndjsonFile = join(dir, 'run.ndjson');
  writeFileSync(ndjsonFile, ndjson);
  const ndjsonBytes = statSync(ndjsonFile).size;

  const ratio = (n) => (n / wireBytes).toFixed(2);
  console.log(`storage size: ${totals.exchanges} exchanges, ${totals.messages} messages (${TOKENS} tokens per answer, ${ANSWERS} answer(s) per API)`);
  console.log(`  wire bytes (proxy <-> upstream)  ${mb(wireBytes)}`);
  console.log(`  .db bytes                        ${mb(dbBytes)}   ${ratio(dbBytes)}x wire (target <= ${DB_TARGET}x)`);
  console.log(`  NDJSON export bytes              ${mb(ndjsonBytes)}   ${ratio(ndjsonBytes)}x wire (target <= ${NDJSON_TARGET}x)`);
  printFloor(out, wireBytes, dbBytes);
  if (BLOCKS) printBlockWrites(out, dir);
  if (COLUMNS) {
    printColumns(out);
    printNdjsonFields(ndjson);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Why the `.db` is the size it is, per message: what each part of the file costs, the floor of the row layout (a
 * row of id, exchange, seq and the bytes, with its (exchange, seq) index, and the other tables as they are),
 * and the bytes and CPU of compressing the messages of an exchange a block at a time (the bytes of a block
 * one after the other, deflated or brotli'd in one call), projected onto the file as it is otherwise.
 */
function printFloor(file, wireBytes, dbBytes) {
  const db = openDatabase(file, { readonly: true });
  let parts;
  let rows;
  let storedBytes;
  try {
    // A message's bytes in a block (format 9) count as its table's.
    parts = db.prepare(`SELECT
      sum(CASE WHEN name IN ('messages', 'raw_blocks') THEN pgsize END) AS table_bytes,
      sum(CASE WHEN name IN ('messages', 'raw_blocks') THEN payload END) AS payload,
      sum(CASE WHEN name = 'messages_by_exchange' THEN pgsize END) AS index_bytes
      FROM dbstat`).get();
    rows = db.prepare(`SELECT exchange_id AS exchangeId, seq, ${RAW} AS raw FROM messages ORDER BY id`).all();
    const blocks = db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'raw_blocks'").pluck().get() === 1;
    storedBytes = db.prepare(`SELECT (SELECT sum(length(raw)) FROM messages)${blocks ? ' + (SELECT coalesce(sum(length(data)), 0) FROM raw_blocks)' : ''}`).pluck().get();
  } finally {
    db.close();
  }
  const n = rows.length;
  const rawBytes = rows.reduce((sum, r) => sum + r.raw.length, 0);
  const others = dbBytes - parts.table_bytes - parts.index_bytes;
  const per = (bytes) => (bytes / n).toFixed(0);
  const x = (bytes) => `${(bytes / wireBytes).toFixed(2)}x`;
  console.log(`  per message (${n}): ${per(wireBytes)} bytes on the wire; in the .db ${per(storedBytes)} its bytes${storedBytes === rawBytes ? '' : ` (${per(rawBytes)} inflated)`} + ${per(parts.payload - storedBytes)} the rest of its row` +
    ` + ${per(parts.table_bytes - parts.payload)} cell and page overhead (free space too) + ${per(parts.index_bytes)} its (exchange, seq) index + ${per(others)} the other tables`);

  // The layout's floor: nothing in a row but what finds it and its bytes.
  const bare = new Database(':memory:');
  let floorBytes;
  try {
    bare.exec('CREATE TABLE messages (id INTEGER PRIMARY KEY, exchange_id INTEGER NOT NULL, seq INTEGER NOT NULL, raw BLOB NOT NULL); CREATE UNIQUE INDEX messages_by_exchange ON messages (exchange_id, seq)');
    const insert = bare.prepare('INSERT INTO messages (exchange_id, seq, raw) VALUES (?, ?, ?)');
    bare.transaction(() => { for (const r of rows) insert.run(r.exchangeId, r.seq, r.raw); })();
    floorBytes = bare.pragma('page_count', { simple: true }) * bare.pragma('page_size', { simple: true }) + others;
  } finally {
    bare.close();
  }
  console.log(`  layout floor (a row of id, exchange, seq and bytes, its index, the other tables as they are): ${mb(floorBytes)}   ${x(floorBytes)} wire: below takes compression`);

  // Compressing K consecutive messages of an exchange together.
  const byExchange = new Map();
  for (const r of rows) {
    let list = byExchange.get(r.exchangeId);
    if (list === undefined) byExchange.set(r.exchangeId, (list = []));
    list.push(r.raw);
  }
  const codecs = {
    'deflate-raw 1': (b) => deflateRawSync(b, { level: 1 }),
    'brotli 1': (b) => brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }),
  };
  for (const size of [1, 4, 16, 64]) {
    const blocks = [];
    for (const list of byExchange.values()) for (let i = 0; i < list.length; i += size) blocks.push(size === 1 ? list[i] : Buffer.concat(list.slice(i, i + size)));
    const figures = Object.entries(codecs).map(([name, compress]) => {
      let packed = 0;
      for (const b of blocks) packed += compress(b).length;
      const µs = cpuMicros(() => { for (const b of blocks) compress(b); }) / n;
      return `${name}: ${per(packed)} bytes, ${µs.toFixed(1)} µs, .db ~${x(dbBytes - storedBytes + packed)} wire`;
    });
    console.log(`  compressing ${size === 1 ? 'each message alone' : `${size} messages of an exchange together`}, per message: ${figures.join('; ')}`);
  }
}

/**
 * Writes the recording's messages into a scratch file three ways, in transactions of 50 messages and
 * inserts of up to 16 rows, as the recorder's writer does: `plain`, bytes in the row; `rewritten`, bytes in
 * the row, and once 16 messages of an exchange are written their bytes deflated into a block and each
 * row's bytes emptied by an UPDATE; `staged`, the row without its bytes, which wait in a staging table
 * until their block of 16 is complete (not at all when it completes in their own transaction), then the
 * block inserted and the staged rows deleted. Prints each file's size once checkpointed, the CPU per
 * message of writing it, and of reading every message's bytes back in id order (a staged or blocked
 * message's bytes through an SQL function that inflates its block, keeping the last one).
 */
function printBlockWrites(file, dir) {
  const source = openDatabase(file, { readonly: true });
  const rows = source.prepare(`SELECT id, exchange_id AS exchangeId, seq, ${RAW} AS raw FROM messages ORDER BY id`).all();
  source.close();
  const BLOCK = 16;
  const figures = [];
  for (const how of ['plain', 'rewritten', 'staged']) {
    const scratch = join(dir, `blocks-${how}.db`);
    const db = new Database(scratch);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY, exchange_id INTEGER NOT NULL, seq INTEGER NOT NULL, meta TEXT NOT NULL, raw BLOB NOT NULL, raw_at INTEGER, raw_size INTEGER);
      CREATE UNIQUE INDEX messages_by_exchange ON messages (exchange_id, seq);
      CREATE TABLE raw_blocks (exchange_id INTEGER NOT NULL, first_seq INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (exchange_id, first_seq)) WITHOUT ROWID;
      CREATE TABLE raw_staged (id INTEGER PRIMARY KEY, raw BLOB NOT NULL)`);
    const messages = rowInserts(db, 'messages', 7);
    // Staged rows wait for the end of the transaction: those whose block completes in it are never inserted.
    const staged = rowInserts(db, 'raw_staged', 2, false);
    const insertBlock = db.prepare('INSERT INTO raw_blocks VALUES (?, ?, ?)');
    const empty = db.prepare("UPDATE messages SET raw = X'', raw_at = ?, raw_size = ? WHERE id = ?");
    const unstage = db.prepare(`DELETE FROM raw_staged WHERE id IN (${new Array(BLOCK).fill('?').join(', ')})`);
    const open = new Map();
    const nothing = Buffer.alloc(0);
    const before = process.cpuUsage();
    for (let i = 0; i < rows.length; i += 50) {
      db.transaction(() => {
        for (const r of rows.slice(i, i + 50)) {
          let block = open.get(r.exchangeId);
          if (block === undefined) open.set(r.exchangeId, (block = { firstSeq: r.seq, size: 0, parts: [], ids: [] }));
          // What the other columns of a row hold, about: sender, carrier, status and offset as text.
          if (how === 'staged') {
            messages.add(r.id, r.exchangeId, r.seq, 'server event valid 1234.567', nothing, block.size, r.raw.length);
            staged.add(r.id, r.raw);
          } else {
            messages.add(r.id, r.exchangeId, r.seq, 'server event valid 1234.567', r.raw, null, null);
          }
          if (how === 'plain') continue;
          block.parts.push(r.raw);
          block.ids.push(r.id);
          block.size += r.raw.length;
          if (block.parts.length < BLOCK) continue;
          if (how === 'rewritten') messages.flush();
          insertBlock.run(r.exchangeId, block.firstSeq, deflateRawSync(Buffer.concat(block.parts), { level: 1 }));
          if (how === 'staged') {
            // Staged rows not inserted yet never need to be.
            const pending = staged.drop((params) => block.ids.includes(params[0]));
            if (pending < block.ids.length) unstage.run(block.ids);
          } else {
            let at = 0;
            for (let m = 0; m < block.ids.length; m++) empty.run(at, block.parts[m].length, block.ids[m]), (at += block.parts[m].length);
          }
          open.delete(r.exchangeId);
        }
        messages.flush();
        staged.flush();
      })();
    }
    const used = process.cpuUsage(before);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const write = (used.user + used.system) / rows.length;
    const read = readBackMicros(db, rows.length);
    db.close();
    figures.push(`${how} ${mb(statSync(scratch).size)}, write ${write.toFixed(1)} µs, read ${read.toFixed(1)} µs`);
  }
  console.log(`  blocks of ${BLOCK} written (scratch files; file size, CPU per message): ${figures.join('; ')}`);
}

/** Inserts rows of `width` values up to 16 at a time, a statement per count; `eager`: as soon as 16 are added, else at flush. */
function rowInserts(db, table, width, eager = true) {
  const statements = new Map();
  const pending = [];
  const statementOf = (count) => {
    let statement = statements.get(count);
    if (statement === undefined) {
      const tuple = `(${new Array(width).fill('?').join(', ')})`;
      statements.set(count, (statement = db.prepare(`INSERT INTO ${table} VALUES ${new Array(count).fill(tuple).join(', ')}`)));
    }
    return statement;
  };
  const flush = () => {
    for (let at = 0; at < pending.length; at += 16) {
      const chunk = pending.slice(at, at + 16);
      statementOf(chunk.length).run(chunk.flat());
    }
    pending.length = 0;
  };
  return {
    add(...values) {
      pending.push(values);
      if (eager && pending.length === 16) flush();
    },
    flush,
    /** Forgets the pending rows `matches`; how many it forgot. */
    drop(matches) {
      const kept = pending.filter((params) => !matches(params));
      const dropped = pending.length - kept.length;
      pending.splice(0, pending.length, ...kept);
      return dropped;
    },
  };
}

/** CPU µs per message of reading every message's bytes back in id order, from its row, its staged row or its block. */
function readBackMicros(db, count) {
  let last = { exchangeId: -1, firstSeq: -1, bytes: null };
  db.function('raw_slice', { deterministic: true }, (exchangeId, firstSeq, packed, at, size) => {
    if (last.exchangeId !== exchangeId || last.firstSeq !== firstSeq) last = { exchangeId, firstSeq, bytes: inflateRawSync(packed) };
    return last.bytes.subarray(at, at + size);
  });
  const read = db.prepare(`SELECT CASE WHEN m.raw_size IS NULL THEN m.raw ELSE coalesce((SELECT s.raw FROM raw_staged s WHERE s.id = m.id),
    (SELECT raw_slice(b.exchange_id, b.first_seq, b.bytes, m.raw_at, m.raw_size) FROM raw_blocks b
      WHERE b.exchange_id = m.exchange_id AND b.first_seq <= m.seq ORDER BY b.first_seq DESC LIMIT 1)) END FROM messages m ORDER BY m.id`).pluck();
  let bytes = 0;
  const µs = cpuMicros(() => { bytes = 0; for (const raw of read.iterate()) bytes += raw.length; });
  if (bytes === 0) throw new Error('read nothing back');
  return µs / count;
}

/** CPU microseconds (user + system, this process) of one run of `work`, the mean of as many runs as fit in ~0.3 s. */
function cpuMicros(work) {
  work();
  const before = process.cpuUsage();
  const until = performance.now() + 300;
  let runs = 0;
  do {
    work();
    runs++;
  } while (performance.now() < until);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / runs;
}

function mb(n) {
  return `${(n / 1e6).toFixed(2)} MB`;
}

/**
 * Where the NDJSON's bytes go: over the whole export, the bytes each key of a message line takes with its
 * value (`"key":value` and its comma; the verdict's keys one by one), and the other lines as one figure each.
 */
function printNdjsonFields(ndjson) {
  const fields = new Map();
  const add = (name, bytes) => fields.set(name, (fields.get(name) ?? 0) + bytes);
  const size = (text) => Buffer.byteLength(text);
  let messages = 0;
  for (const line of ndjson.split('\n')) {
    if (line === '') continue;
    const value = JSON.parse(line);
    if (value.type !== 'message') {
      add(`(${value.type} lines)`, size(line) + 1);
      continue;
    }
    messages++;
    // Each `"key":value` is counted with a comma; a line's last key has none, and its braces and LF take 3 bytes.
    add('(braces, LF)', 2);
    for (const [key, v] of Object.entries(value)) {
      if (key !== 'verdict') {
        add(key, size(`"${key}":${JSON.stringify(v)},`));
        continue;
      }
      const inner = Object.entries(v);
      add('verdict', size('"verdict":{},') - (inner.length > 0 ? 1 : 0));
      for (const [k, x] of inner) add(`verdict.${k}`, size(`"${k}":${JSON.stringify(x)},`));
    }
  }
  const total = size(ndjson);
  console.log(`  NDJSON bytes per field (${messages} message lines; ${total} bytes in all):`);
  for (const [name, bytes] of [...fields].sort((a, b) => b[1] - a[1])) {
    console.log(`    ${name.padEnd(24)} ${String(bytes).padStart(10)}  ${((100 * bytes) / total).toFixed(1).padStart(5)} %`);
  }
}

/** Where the `.db`'s bytes go: pages per table and index (dbstat, when SQLite has it), bytes per message column. */
function printColumns(file) {
  const db = new Database(file, { readonly: true });
  try {
    try {
      const pages = db.prepare('SELECT name, sum(pgsize) AS bytes, sum(payload) AS payload, sum(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC').all();
      console.log('  pages (dbstat): name, bytes, payload, unused');
      for (const p of pages) console.log(`    ${p.name.padEnd(24)} ${String(p.bytes).padStart(10)} ${String(p.payload).padStart(10)} ${String(p.unused).padStart(10)}`);
    } catch (error) {
      console.log(`  (no dbstat: ${error.message})`);
    }
    const columns = db.prepare("SELECT name FROM pragma_table_info('messages')").pluck().all();
    const sums = db.prepare(`SELECT ${columns.map((c) => `coalesce(sum(length(${c})), 0) AS ${c}`).join(', ')} FROM messages`).get();
    console.log('  bytes per messages column (sum of length()):');
    for (const c of columns) console.log(`    ${c.padEnd(24)} ${String(sums[c]).padStart(10)}`);
    // What compressing each message's bytes alone would save, all of them or only the large ones.
    const sizes = { all: [0, 0, 0, 0], large: [0, 0, 0, 0] };
    for (const raw of db.prepare('SELECT raw FROM messages').pluck().iterate()) {
      const packed = [1, raw.length, deflateRawSync(raw).length, brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }).length];
      for (let i = 0; i < 4; i++) sizes.all[i] += packed[i];
      if (raw.length >= 1024) for (let i = 0; i < 4; i++) sizes.large[i] += packed[i];
    }
    for (const [name, [n, raw, deflated, brotli]] of Object.entries(sizes)) {
      console.log(`  raw of ${name === 'all' ? 'every message' : 'messages of 1 KiB or more'} (${n}): ${raw} bytes; each deflated ${deflated}, each brotli(5) ${brotli}`);
    }
  } finally {
    db.close();
  }
}
