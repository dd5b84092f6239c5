// The least program that does what `replay` must do to answer bench/startup.js's first request from a small
// recording (bench/startup-floor.js times it beside the CLI): better-sqlite3 required with its addon's path (as
// the product hands it in), the .db opened read-only, node:http listening on 127.0.0.1:0, and the request answered
// with its recorded exchange: the status and headers, then each server message's bytes, inflated from the
// exchange's raw block (zlib), in their order. Hand-written, no project module, no option parser; no check of the
// file's format, no match on the request's body, no verdicts: a replay of this design does all that and more.
// Usage: node bench/lib/floor-replay.cjs <better-sqlite3's folder> <recording.db>
'use strict';
const { createServer } = require('node:http');
const { inflateSync } = require('node:zlib');
const { join } = require('node:path');

const [sqliteDir, file] = process.argv.slice(2);
const Database = require(sqliteDir);
const db = new Database(file, { readonly: true, fileMustExist: true, nativeBinding: join(sqliteDir, 'build/Release/better_sqlite3.node') });

// Response headers the server of the recording wrote for its own connection, not for this one.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/** The recorded answer to METHOD PATH: status, headers, and the server's messages' bytes in order, or undefined. */
function recordedAnswer(method, path) {
  const exchange = db.prepare('SELECT id, status, response_headers FROM exchanges WHERE method = ? AND path = ? ORDER BY id LIMIT 1').get(method, path);
  if (exchange === undefined) return undefined;
  const messages = db.prepare("SELECT raw, raw_block, raw_at, raw_size FROM messages WHERE exchange_id = ? AND sender = 'server' ORDER BY seq").all(exchange.id);
  const blocks = new Map();
  const blockOf = (id) => {
    if (!blocks.has(id)) blocks.set(id, inflateSync(db.prepare('SELECT data FROM raw_blocks WHERE id = ?').get(id).data));
    return blocks.get(id);
  };
  const bodies = messages.map((m) => (m.raw_block === null ? m.raw : blockOf(m.raw_block).subarray(m.raw_at, m.raw_at + m.raw_size)));
  const headers = {};
  for (const [name, value] of Object.entries(JSON.parse(exchange.response_headers ?? '{}'))) if (!HOP_BY_HOP.has(name.toLowerCase())) headers[name] = value;
  // What the product adds to a replayed event stream, so a proxy in front does not hold its events back.
  if (/^text\/event-stream/i.test(headers['Content-Type'] ?? headers['content-type'] ?? '')) headers['X-Accel-Buffering'] = 'no';
  return { status: exchange.status, headers, bodies };
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const answer = recordedAnswer(req.method, req.url);
    if (answer === undefined) return res.writeHead(404).end();
    res.writeHead(answer.status, answer.headers);
    for (const body of answer.bodies) res.write(body);
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGINT', () => process.exit(0));
