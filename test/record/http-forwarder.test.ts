/**
 * HTTP forwarding as `proxy record` does it, in both pipelines (inline, and the worker of the built
 * package): bytes go through unchanged, and every body is stored whole, whether it was small enough
 * to be collected in the capture thread or large enough to be streamed to the recorder.
 */
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { COLLECTED_BODY_BYTES } from '../../src/record/pipeline/body-taps.js';
import { endToEndHeaders, headerRecord } from '../../src/net/headers.js';
import { HeaderRedactor } from '../../src/judge/header-redaction.js';
import { startRecorder as startInline } from '../../src/record/start-recorder.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { tempDir } from '../support/temp-dir.js';

type StartRecorder = typeof startInline;
const dist = (await import(new URL('../../dist/index.js', import.meta.url).href)) as { startRecorder: StartRecorder };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

/** An upstream that records what reached it and answers with `reply`. */
async function startUpstream(reply: (req: IncomingMessage, body: Buffer) => { status: number; headers: string[]; body: Buffer }): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, body });
      const answer = reply(req, body);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function send(base: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; rawHeaders: string[]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function record(start: StartRecorder, pipeline: 'inline' | 'worker', target: string, exchange: (url: string) => Promise<void>) {
  const dir = tempDir();
  cleanups.push(() => dir.cleanup());
  const out = dir.file(`${pipeline}.db`);
  const recorder = await start({ target, listen: 0, out, pipeline });
  try {
    await exchange(recorder.url);
  } finally {
    await recorder.close();
  }
  const reader = RecordingReader.open(out);
  cleanups.push(() => reader.close());
  return reader;
}

const pipelines: Array<[string, () => StartRecorder, 'inline' | 'worker']> = [
  ['inline', () => startInline, 'inline'],
  ['worker', () => dist.startRecorder, 'worker'],
];

describe.each(pipelines)('HTTP forwarding (%s pipeline)', (_name, start, pipeline) => {
  it('forwards a small JSON exchange unchanged and stores each body once, whole, with redacted headers', async () => {
    const answer = Buffer.from(JSON.stringify({ ok: true, items: [1, 2, 3] }));
    const upstream = await startUpstream(() => ({ status: 201, headers: ['Content-Type', 'application/json', 'Set-Cookie', 'sid=1', 'X-Twice', 'a', 'x-twice', 'b'], body: answer }));
    const sent = Buffer.from(JSON.stringify({ hello: 'world' }));
    let response!: Awaited<ReturnType<typeof send>>;
    const reader = await record(start(), pipeline, upstream.url, async (url) => {
      response = await send(url, 'POST', '/v1/things?b=2&a=1', { 'Content-Type': 'application/json', Authorization: 'Bearer secret-token' }, sent);
    });

    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0].url).toBe('/v1/things?b=2&a=1');
    expect(upstream.seen[0].body).toEqual(sent);
    // Credentials are forwarded as they are; only the stored copy is redacted.
    expect(headerRecord(upstream.seen[0].rawHeaders)).toMatchObject({ Authorization: 'Bearer secret-token' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual(answer);

    const [exchange] = reader.exchanges();
    expect(exchange).toMatchObject({ transport: 'http', method: 'POST', path: '/v1/things', query: 'b=2&a=1', status: 201, outcome: 'complete' });
    expect(exchange.requestHeaders).toMatchObject({ Authorization: 'Bearer <redacted>', 'Content-Type': 'application/json' });
    expect(exchange.responseHeaders).toMatchObject({ 'Set-Cookie': '<redacted>', 'X-Twice': ['a', 'b'] });
    const messages = reader.messages(exchange.id);
    expect(messages.map((m) => [m.sender, m.carrier, m.raw.toString()])).toEqual([
      ['client', 'body', sent.toString()],
      ['server', 'body', answer.toString()],
    ]);
    expect(messages.map((m) => m.json)).toEqual([{ hello: 'world' }, { ok: true, items: [1, 2, 3] }]);
    expect(messages[0].tOffsetMs).toBeLessThanOrEqual(messages[1].tOffsetMs);
  });

  it('stores no message for a body-less request and an empty response', async () => {
    const upstream = await startUpstream(() => ({ status: 204, headers: [], body: Buffer.alloc(0) }));
    const reader = await record(start(), pipeline, upstream.url, async (url) => {
      expect((await send(url, 'DELETE', '/v1/x', {})).status).toBe(204);
    });
    const [exchange] = reader.exchanges();
    expect(exchange).toMatchObject({ method: 'DELETE', status: 204, outcome: 'complete' });
    expect(reader.messages(exchange.id)).toEqual([]);
  });

  it('streams bodies larger than the collected size to the recorder and still stores them whole', async () => {
    const big = Buffer.alloc(COLLECTED_BODY_BYTES * 3 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
    const upstream = await startUpstream((_req, body) => ({ status: 200, headers: ['Content-Type', 'application/octet-stream'], body: Buffer.from(body).reverse() }));
    let response!: Awaited<ReturnType<typeof send>>;
    const reader = await record(start(), pipeline, upstream.url, async (url) => {
      response = await send(url, 'PUT', '/blob', { 'Content-Type': 'application/octet-stream' }, big);
    });
    expect(upstream.seen[0].body.equals(big)).toBe(true);
    expect(response.body.equals(Buffer.from(big).reverse())).toBe(true);
    const [exchange] = reader.exchanges();
    const messages = reader.messages(exchange.id);
    expect(messages.map((m) => [m.sender, m.carrier, m.raw.length])).toEqual([
      ['client', 'body', big.length],
      ['server', 'body', big.length],
    ]);
    expect(messages[0].raw.equals(big)).toBe(true);
    expect(messages[1].raw.equals(response.body)).toBe(true);
    expect(messages.map((m) => m.verdict.status)).toEqual(['unchecked', 'unchecked']);
  });
});

/** Exchanges on the wire, byte for byte: repeated and multi-valued names, credentials by name and by format, escapes. */
const RAW_EXCHANGES: Array<{ request: string[]; response: string[] }> = [
  {
    request: ['Host', 'upstream', 'X-Multi', 'a', 'x-multi', 'b', 'X-MULTI', 'c', 'Authorization', 'Bearer tok-1', 'Cookie', 'a=ck-one', 'cookie', 'b=ck-two', 'X-Note', `sk-proj-${'A1b2C3d4'.repeat(6)}`, 'Connection', 'close'],
    response: ['Set-Cookie', 'sid=1', 'Set-Cookie', 'sid=2', 'Location', '/next?token=tok-q-7&b=2', 'X-Api-Key', 'k-1', 'X-Dup', '1', 'x-dup', '2', 'Content-Length', '2', 'Connection', 'close'],
  },
  {
    // No name twice: the pairs' text is written from them directly.
    request: ['Host', 'upstream', 'Accept', 'say "hi" \\ there\tnow', 'X-Latin', 'caf\u00e9', 'x-request-id', 'r1', 'Connection', 'close'],
    response: ['Content-Type', 'application/json', 'Content-Length', '2', 'Connection', 'close'],
  },
  {
    request: ['Host', 'upstream', '__proto__', 'p', 'Proxy-Authorization', 'Basic Zm9v', 'X-Key', `ghp_${'x1Y2'.repeat(9)}`, 'Connection', 'close'],
    // A name that is an array index comes first in a record, and so in its text.
    response: ['Content-Length', '2', '9', 'nine', 'Connection', 'close'],
  },
];

const headLines = (first: string, pairs: string[]) => Buffer.from(`${first}\r\n${pairs.map((v, i) => (i % 2 === 0 ? `${v}: ` : `${v}\r\n`)).join('')}\r\n`, 'latin1');

/** An upstream that answers each connection's request with the next raw response head, body `{}`. */
async function startRawUpstream(responses: string[][]): Promise<string> {
  let next = 0;
  const server = createTcpServer((socket) => {
    let head = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.includes('\r\n\r\n')) socket.end(Buffer.concat([headLines('HTTP/1.1 200 OK', responses[next++]), Buffer.from('{}')]));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Sends a raw GET with exactly these header pairs and reads the answer to its end. */
async function rawGet(url: string, pairs: string[]): Promise<string> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(headLines('GET /h HTTP/1.1', pairs));
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  await once(socket, 'close');
  return Buffer.concat(chunks).toString('latin1');
}

type HeaderColumns = { request_headers: string; response_headers: string };

describe.each(pipelines)('stored headers (%s pipeline)', (_name, start, pipeline) => {
  it('are byte for byte what the writer stores for the record of the redacted pairs', async () => {
    const upstream = await startRawUpstream(RAW_EXCHANGES.map((e) => e.response));
    const dir = tempDir();
    cleanups.push(() => dir.cleanup());
    const out = dir.file(`${pipeline}.db`);
    const recorder = await start()({ target: upstream, listen: 0, out, pipeline });
    try {
      for (const e of RAW_EXCHANGES) expect(await rawGet(recorder.url, e.request)).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      await recorder.close();
    }
    // What storing them as records (the writer's other callers, and capture before) gives, read the same way.
    const redactor = new HeaderRedactor();
    const expectedFile = dir.file('records.db');
    const writer = RecordingWriter.open(expectedFile, { toolVersion: 'test', mode: 'record', schemaHashes: {}, startedAt: new Date() });
    for (const e of RAW_EXCHANGES) {
      const id = writer.beginExchange({ transport: 'http', method: 'GET', path: '/h', url: '/h', requestHeaders: redactor.record(e.request), tOffsetMs: 0 });
      writer.updateExchange(id, { status: 200, responseHeaders: redactor.record(e.response) });
      writer.endExchange(id, { outcome: 'complete', tOffsetMs: 1 });
    }
    writer.close();
    const columns = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare('SELECT request_headers, response_headers FROM exchanges ORDER BY id').all() as HeaderColumns[];
      } finally {
        db.close();
      }
    };
    const stored = columns(out);
    expect(stored).toEqual(columns(expectedFile));
    expect(stored).toHaveLength(3);
    const all = stored.map((row) => row.request_headers + row.response_headers).join('\n');
    for (const secret of ['tok-1', 'ck-one', 'ck-two', 'sk-proj-', 'ghp_', 'tok-q-7', 'k-1', 'Zm9v']) expect(all).not.toContain(secret);
    expect(JSON.parse(stored[0].request_headers)).toMatchObject({ 'X-Multi': ['a', 'b', 'c'], Cookie: ['<redacted>', '<redacted>'], Authorization: 'Bearer <redacted>', 'X-Note': '<redacted>' });
    expect(JSON.parse(stored[1].request_headers)).toMatchObject({ Accept: 'say "hi" \\ there\tnow', 'X-Latin': 'caf\u00e9' });
    expect(JSON.parse(stored[0].response_headers)).toMatchObject({ 'Set-Cookie': ['<redacted>', '<redacted>'], Location: '/next?token=%3Credacted%3E&b=2', 'X-Dup': ['1', '2'] });
    // A credential found by its format is a finding on the exchange, as before.
    const reader = RecordingReader.open(out);
    cleanups.push(() => reader.close());
    expect([...reader.findings()].map((f) => f.rule)).toContain('secret-in-traffic');
  });
});

describe('headers', () => {
  it('keeps the first spelling of a repeated name and collects its values', () => {
    expect(headerRecord(['Accept', 'a', 'accept', 'b', 'ACCEPT', 'c', 'x', '1'])).toEqual({ Accept: ['a', 'b', 'c'], x: '1' });
  });

  it('stores names that are also Object properties as plain fields', () => {
    const record = headerRecord(['constructor', 'c', '__proto__', 'p', 'toString', 't']);
    expect(JSON.stringify(record)).toBe('{"constructor":"c","__proto__":"p","toString":"t"}');
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
  });

  it('redacts while building the record exactly as redacting first would', () => {
    const redactor = new HeaderRedactor(['X-Secret']);
    const raw = ['Authorization', 'Bearer abc', 'cookie', 'a=1', 'Cookie', 'b=2', 'x-secret', 's', 'Proxy-Authorization', 'opaque', 'Accept', '*/*'];
    expect(redactor.record(raw)).toEqual(headerRecord(redactor.redact(raw)));
    expect(redactor.record(raw)).toEqual({
      Authorization: 'Bearer <redacted>',
      cookie: ['<redacted>', '<redacted>'],
      'x-secret': '<redacted>',
      'Proxy-Authorization': '<redacted>',
      Accept: '*/*',
    });
  });

  it('drops hop-by-hop headers and those Connection names, per call', () => {
    const raw = ['Host', 'a', 'Connection', 'keep-alive, X-Trace', 'X-Trace', '1', 'Keep-Alive', 'timeout=5', 'Accept', '*/*'];
    expect(endToEndHeaders(raw, { host: 'b:1' })).toEqual(['Host', 'b:1', 'Accept', '*/*']);
    // What one request's Connection header named does not leak into the next call.
    expect(endToEndHeaders(['X-Trace', '2', 'TE', 'trailers'])).toEqual(['X-Trace', '2']);
    expect(endToEndHeaders(['Sec-Foo', '1', 'Accept', '*/*'], { drop: ['sec-foo'] })).toEqual(['Accept', '*/*']);
    expect(endToEndHeaders(['X-Trace', '3'])).toEqual(['X-Trace', '3']);
  });
});
