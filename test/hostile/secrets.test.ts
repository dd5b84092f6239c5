/**
 * Secrets outside the default-redacted headers, driven through the built CLI as a child process:
 * a token in an SSE URL, an access token in a WebSocket URL, X-Auth-Token, JSON body fields (default
 * names, --redact-field key names and pointers), --redact-query, and Pi session env values.
 *
 * Each case asserts that the proxy survives, that the upstream got every real value (forwarding is
 * unchanged), that none of the secret bytes reaches the .db (or its -wal), the HAR and NDJSON
 * exports, the inspector's search, or the CLI's own output, that a control request afterwards is
 * still recorded, and that a replay matches live requests carrying other secrets and says so.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { RecordingReader, type ExchangeRow } from '../../src/store/recording-reader.js';
import { runCli, type CliProcess } from '../cli/run-cli.js';
import { closeServerOnCleanup, onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { startPiDaemon } from '../support/pi-daemon-standin.js';
import { expectAbsent, recordingBytes } from '../record/pi-helpers.js';
import { startCli as cli } from './cli-child.js';

useCleanups();

/** Distinctive values, each long enough that an accidental match is impossible. */
const S = {
  sseToken: 'sse-query-token-4f1e2d3c4b5a6978',
  wsToken: 'ws-access-token-8a7b6c5d4e3f2a1b',
  authHeader: 'x-auth-token-value-1c2d3e4f5a6b7c8d',
  rawAuthHeader: 'raw-x-auth-token-9e8d7c6b5a4f3e2d',
  encodedName: 'encoded-name-token-2b3c4d5e6f7a8b9c',
  customQuery: 'custom-query-sig-5d6e7f8a9b0c1d2e',
  apiKey: 'body-api-key-3e4f5a6b7c8d9e0f',
  password: 'body-password-6f7a8b9c0d1e2f3a',
  pointer: 'pointer-field-secret-7a8b9c0d1e2f3a4b',
  customKey: 'custom-key-secret-0d1e2f3a4b5c6d7e',
  serverSecret: 'server-sse-access-token-4b5c6d7e8f9a',
  wsPassword: 'ws-frame-password-1a2b3c4d5e6f7a8b',
  goog: 'goog-api-key-value-8c9d0e1f2a3b4c5d',
  referer: 'referer-access-token-6e7f8a9b0c1d2e3f',
  location: 'location-signature-2f3a4b5c6d7e8f9a',
};
const ALL = Object.values(S);

interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

/** An upstream that keeps what it received: an SSE stream, a JSON echo, a plain page and a WebSocket acker. */
async function upstream(): Promise<{ url: string; received: Received[]; frames: string[] }> {
  const received: Received[] = [];
  const frames: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) });
      if (req.url!.startsWith('/events')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"n":1}\n\n');
        res.end(`data: {"n":2,\ndata: "accessToken":"${S.serverSecret}"}\n\n`);
      } else if (req.url!.startsWith('/json')) {
        res.writeHead(200, { 'content-type': 'application/json', 'Content-Location': `/json/1?n=1&sig=${S.location}` });
        res.end(JSON.stringify({ ok: true, bytes: chunks.reduce((n, c) => n + c.length, 0) }));
      } else {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
        res.end('ok');
      }
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    received.push({ method: 'UPGRADE', url: req.url!, rawHeaders: req.rawHeaders, body: Buffer.alloc(0) });
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data) => {
        frames.push(String(data));
        ws.send(JSON.stringify({ type: 'ack' }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeServerOnCleanup(server, wss);
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, received, frames };
}

async function stop(child: CliProcess): Promise<void> {
  // Survived everything so far: still running until told to stop, then a clean exit.
  expect(child.child.exitCode, child.stderr()).toBeNull();
  child.child.kill('SIGINT');
  expect(await child.exited).toEqual({ code: 0, signal: null });
}

/** A request written byte for byte on a raw socket (mixed-case header names, a percent-encoded parameter name). */
function rawRequest(url: string, head: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

function wsExchange(url: string, frame: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let answer: string | undefined;
    ws.on('open', () => ws.send(frame));
    ws.on('message', (data) => {
      answer ??= String(data);
      ws.close(1000);
    });
    ws.on('close', (code, reason) => (answer !== undefined ? resolve(answer) : reject(new Error(`closed ${code} ${String(reason)} before an answer`))));
    ws.on('error', reject);
  });
}

function header(e: ExchangeRow, name: string, which: 'requestHeaders' | 'responseHeaders' = 'requestHeaders'): unknown {
  const headers = e[which] ?? {};
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

function expectNoSecret(text: string, where: string): void {
  for (const secret of ALL) expect(text.includes(secret), `${secret} appears in ${where}`).toBe(false);
}

const jsonBody = (values: { apiKey: string; pointer: string; customKey: string; password: string }) =>
  `{ "model": "m",  "apiKey" : "${values.apiKey}",\n "spec": {"innerToken": "${values.pointer}", "keep": "visible"}, "customKey": "${values.customKey}", "list": [{"password": "${values.password}"}, 1.50] }`;

describe('hostile peers: secrets outside the redacted headers never reach the disk', () => {
  it('query tokens, X-Auth-Token, body fields and WebSocket tokens are forwarded unchanged and stored redacted; replay matches other values', async () => {
    const up = await upstream();
    const dir = scratch('agent-proxy-secrets-').dir;
    const out = join(dir, 'secrets.db');
    const rec = cli(['record', '--target', up.url, '--listen', '0', '--out', out, '--json', '--redact-query', 'x-sig2', '--redact-field', '/spec/innerToken', '--redact-field', 'customKey']);
    const listening = JSON.parse(await rec.waitForLine(/"event":"listening"/)) as { url: string };
    const proxy = listening.url;
    const wsProxy = proxy.replace(/^http:/, 'ws:');

    // 1. A token in an SSE URL; the server sends a secret field in an event spread over two data lines.
    const sse = await fetch(`${proxy}/events?a=1&token=${S.sseToken}&b=2`);
    const sseText = await sse.text();
    expect(sse.status).toBe(200);
    expect(sseText).toBe(`data: {"n":1}\n\ndata: {"n":2,\ndata: "accessToken":"${S.serverSecret}"}\n\n`);

    // 2. Raw bytes no ordinary client sends: a mixed-case X-Auth-Token, a percent-encoded parameter name.
    const raw = await rawRequest(
      proxy,
      `GET /plain?acc%65ss_token=${S.encodedName}&x_sig2=${S.customQuery}&page=3 HTTP/1.1\r\nHost: x\r\nx-AUTH-token: ${S.rawAuthHeader}\r\nX-Goog-Api-Key: ${S.goog}\r\nREFERER: http://app.test/page?access_token=${S.referer}\r\nConnection: close\r\n\r\n`,
    );
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw.endsWith('ok')).toBe(true);

    // 3. A JSON body with a default field name, a --redact-field pointer and key, and X-Auth-Token.
    const body = jsonBody({ apiKey: S.apiKey, pointer: S.pointer, customKey: S.customKey, password: S.password });
    const posted = await fetch(`${proxy}/json`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Auth-Token': S.authHeader }, body });
    expect(await posted.json()).toEqual({ ok: true, bytes: Buffer.byteLength(body) });

    // 4. A WebSocket authenticated in its URL, with a secret field in a client frame.
    expect(await wsExchange(`${wsProxy}/ws?access_token=${S.wsToken}`, `{"type":"hello","password":"${S.wsPassword}"}`)).toBe('{"type":"ack"}');

    // 5. A control request afterwards is still served and recorded.
    const control = await fetch(`${proxy}/plain?page=9`);
    expect(await control.text()).toBe('ok');
    await stop(rec);

    // The upstream got every real value: the proxy redacts storage, not traffic.
    expect(up.received.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET /events?a=1&token=${S.sseToken}&b=2`,
      `GET /plain?acc%65ss_token=${S.encodedName}&x_sig2=${S.customQuery}&page=3`,
      'POST /json',
      `UPGRADE /ws?access_token=${S.wsToken}`,
      'GET /plain?page=9',
    ]);
    expect(up.received[1].rawHeaders).toEqual(expect.arrayContaining(['x-AUTH-token', S.rawAuthHeader, 'X-Goog-Api-Key', S.goog]));
    expect(up.received[2].rawHeaders).toEqual(expect.arrayContaining([S.authHeader]));
    expect(up.received[2].body.toString()).toBe(body);
    expect(up.frames).toEqual([`{"type":"hello","password":"${S.wsPassword}"}`]);

    // What was stored: the values replaced, everything else as it travelled.
    const reader = RecordingReader.open(out);
    onCleanup(() => reader.close());
    const exchanges = reader.exchanges();
    expect(exchanges.map((e) => [e.transport, e.path, e.query, e.url])).toEqual([
      ['sse', '/events', 'a=1&token=%3Credacted%3E&b=2', '/events?a=1&token=%3Credacted%3E&b=2'],
      ['http', '/plain', 'acc%65ss_token=%3Credacted%3E&x_sig2=%3Credacted%3E&page=3', '/plain?acc%65ss_token=%3Credacted%3E&x_sig2=%3Credacted%3E&page=3'],
      ['http', '/json', null, '/json'],
      ['ws', '/ws', 'access_token=%3Credacted%3E', '/ws?access_token=%3Credacted%3E'],
      ['http', '/plain', 'page=9', '/plain?page=9'],
    ]);
    expect(header(exchanges[1], 'x-auth-token')).toBe('<redacted>');
    expect(header(exchanges[1], 'x-goog-api-key')).toBe('<redacted>');
    expect(header(exchanges[2], 'x-auth-token')).toBe('<redacted>');
    // URL-valued headers keep the URL, with its secret parameters redacted.
    expect(header(exchanges[1], 'referer')).toBe('http://app.test/page?access_token=%3Credacted%3E');
    expect(header(exchanges[2], 'content-location', 'responseHeaders')).toBe('/json/1?n=1&sig=%3Credacted%3E');
    const events = reader.messages(exchanges[0].id);
    expect(events[1].raw.toString()).toBe('data: {"n":2,\ndata: "accessToken":"<redacted>"}\n\n');
    expect(events[1].json).toEqual({ n: 2, accessToken: '<redacted>' });
    const [request] = reader.messages(exchanges[2].id);
    const redactedBody = jsonBody({ apiKey: '<redacted>', pointer: '<redacted>', customKey: '<redacted>', password: '<redacted>' });
    expect(request.raw.toString()).toBe(redactedBody);
    expect(request.json).toEqual(JSON.parse(redactedBody));
    const frame = reader.messages(exchanges[3].id).find((m) => m.sender === 'client' && m.channel === 'text')!;
    expect(frame.raw.toString()).toBe('{"type":"hello","password":"<redacted>"}');
    expect(exchanges[4].outcome).toBe('complete');

    // No secret anywhere on disk, in the exports, in the inspector's search, or in what the CLI printed.
    const bytes = recordingBytes(out);
    for (const secret of ALL) expectAbsent(bytes, secret, secret);
    expectNoSecret(rec.stdout() + rec.stderr(), 'the output of proxy record');
    for (const format of ['har', 'ndjson']) {
      const exported = await runCli(['export', out, '--format', format]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout).toContain('redacted');
      expectNoSecret(exported.stdout + exported.stderr, `export --format ${format}`);
    }
    const view = cli(['view', out, '--listen', '0']);
    const inspector = /^inspector on (\S+)$/.exec(await view.waitForLine(/^inspector on /))![1];
    const search = async (q: string) => ((await (await fetch(`${inspector}/api/exchanges?q=${encodeURIComponent(q)}`)).json()) as Array<{ id: number }>).map((e) => e.id);
    expect(await search('redacted')).toEqual([1, 2, 3, 4]);
    for (const secret of ALL) expect(await search(secret), secret).toEqual([]);
    await stop(view);

    // Replay serves live requests with other secrets, and says how many redacted values matched any.
    const replay = cli(['replay', out, '--listen', '0', '--timing', 'none']);
    const replayUrl = /^listening on (\S+)$/.exec(await replay.waitForLine(/^listening on /))![1];
    const other = (s: string) => `other-${s.split('').reverse().join('')}`;
    const replayed = await fetch(`${replayUrl}/events?a=1&token=${other(S.sseToken)}&b=2`);
    expect(await replayed.text()).toBe('data: {"n":1}\n\ndata: {"n":2,\ndata: "accessToken":"<redacted>"}\n\n');
    expect(await replay.waitForLine(/^#1 /)).toBe('#1 GET /events 200 sse 2 messages 1 redacted value matched any');
    const replayedRaw = await rawRequest(replayUrl, `GET /plain?acc%65ss_token=x&x_sig2=y&page=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(replayedRaw.endsWith('ok')).toBe(true);
    expect(await replay.waitForLine(/^#2 /)).toBe('#2 GET /plain 200 http 1 message 2 redacted values matched any');
    const replayedJson = await fetch(`${replayUrl}/json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: jsonBody({ apiKey: 'a', pointer: 'b', customKey: 'c', password: 'd' }),
    });
    expect(replayedJson.status).toBe(200);
    expect(await replay.waitForLine(/^#3 /)).toBe('#3 POST /json 200 http 1 message 4 redacted values matched any');
    expect(await wsExchange(`${replayUrl.replace(/^http:/, 'ws:')}/ws?access_token=live`, '{"type":"hello","password":"live"}')).toBe('{"type":"ack"}');
    expect(await replay.waitForLine(/^#4 /)).toMatch(/^#4 GET \/ws 101 ws \d+ messages? 2 redacted values matched any$/);
    // Only redacted values match any: a parameter the recording kept still has to be equal.
    const miss = await fetch(`${replayUrl}/events?a=2&token=${S.sseToken}&b=2`);
    expect(miss.status).toBe(404);
    const missText = await miss.text();
    expect(missText).toContain('"differences":["query"]');
    // The miss report redacts the live request it prints and returns.
    expect(missText).not.toContain(S.sseToken);
    expect(await replay.waitForLine(/^miss /)).not.toContain(S.sseToken);
    expect((await fetch(`${replayUrl}/plain?page=9`)).status).toBe(200);
    await stop(replay);
  });
});

describe('redaction flags', () => {
  it('refuse what they cannot use with one line on stderr and exit 2', async () => {
    for (const [args, message] of [
      [['--redact-field', 'a/b'], "--redact-field 'a/b' is neither a JSON pointer"],
      [['--redact-query', ''], '--redact-query needs a parameter name'],
      [['--stdio', '--redact-query', 'sig', '--', 'true'], '--redact-query goes with the HTTP proxy'],
    ] as const) {
      const result = await runCli(['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--out', scratch('agent-proxy-secrets-').file('x.db'), ...args]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(message);
    }
  });
});

describe('hostile peers: secret fields in stdio lines', () => {
  it('forwards them to the agent and back unchanged, and stores them redacted (--redact-field too)', async () => {
    const out = scratch('agent-proxy-secrets-').file('stdio.db');
    // An agent that answers each line with a JSON-RPC result echoing its params.
    const agent = `require('readline').createInterface({ input: process.stdin }).on('line', (l) => { const m = JSON.parse(l); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: m.params }) + '\\n'); });`;
    const rec = cli(['record', '--stdio', '--protocol', 'acp', '--out', out, '--redact-field', 'customKey', '--', process.execPath, '-e', agent]);
    const first = `{"jsonrpc":"2.0","id":1,"method":"authenticate","params":{"methodId":"k","apiKey":"${S.apiKey}","customKey":"${S.customKey}"}}\n`;
    rec.child.stdin.write(first);
    expect(await rec.waitForLine(/"id":1/)).toBe(`{"jsonrpc":"2.0","id":1,"result":{"methodId":"k","apiKey":"${S.apiKey}","customKey":"${S.customKey}"}}`);
    // A control line afterwards is still relayed.
    rec.child.stdin.end('{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}\n');
    expect(await rec.waitForLine(/"id":2/)).toBe('{"jsonrpc":"2.0","id":2,"result":{}}');
    expect(await rec.exited).toEqual({ code: 0, signal: null });
    expectNoSecret(rec.stderr(), 'the live view of proxy record --stdio');

    const reader = RecordingReader.open(out);
    onCleanup(() => reader.close());
    const lines = reader.messages(reader.exchanges()[0].id).filter((m) => m.channel !== 'stderr');
    expect(lines.map((m) => m.raw.toString())).toEqual([
      `{"jsonrpc":"2.0","id":1,"method":"authenticate","params":{"methodId":"k","apiKey":"<redacted>","customKey":"<redacted>"}}\n`,
      `{"jsonrpc":"2.0","id":1,"result":{"methodId":"k","apiKey":"<redacted>","customKey":"<redacted>"}}\n`,
      '{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}\n',
      '{"jsonrpc":"2.0","id":2,"result":{}}\n',
    ]);
    const bytes = recordingBytes(out);
    expectAbsent(bytes, S.apiKey, 'the apiKey');
    expectAbsent(bytes, S.customKey, 'the --redact-field value');
  });
});

describe('hostile peers: a form body', () => {
  it('is a query string: its secret parameters are stored redacted, every other byte as sent', async () => {
    const up = await upstream();
    const out = scratch('agent-proxy-secrets-').file('form.db');
    const rec = cli(['record', '--target', up.url, '--listen', '0', '--out', out, '--json']);
    const proxy = (JSON.parse(await rec.waitForLine(/"event":"listening"/)) as { url: string }).url;
    const form = `grant_type=password&username=u%C3%A9&password=${S.password}&client_secret=${S.customKey}&scope=a+b`;
    const posted = await fetch(`${proxy}/form`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    expect(await posted.text()).toBe('ok');
    expect((await fetch(`${proxy}/plain`)).status).toBe(200);
    await stop(rec);
    expect(up.received[0].body.toString()).toBe(form);

    const reader = RecordingReader.open(out);
    onCleanup(() => reader.close());
    const [request] = reader.messages(reader.exchanges()[0].id);
    expect(request.raw.toString()).toBe('grant_type=password&username=u%C3%A9&password=%3Credacted%3E&client_secret=%3Credacted%3E&scope=a+b');
    expect(reader.exchanges()[1].outcome).toBe('complete');
    const bytes = recordingBytes(out);
    expectAbsent(bytes, S.password, 'the password');
    expectAbsent(bytes, S.customKey, 'the client secret');
  });
});

describe('hostile peers: a message over --max-body', () => {
  it('is stored truncated, with the secrets in its kept start replaced', async () => {
    const up = await upstream();
    const out = scratch('agent-proxy-secrets-').file('big.db');
    const rec = cli(['record', '--target', up.url, '--listen', '0', '--out', out, '--json', '--max-body', '80']);
    const proxy = (JSON.parse(await rec.waitForLine(/"event":"listening"/)) as { url: string }).url;
    const body = `{"model":"m","apiKey":"${S.apiKey}","padding":"${'x'.repeat(200)}","password":"${S.password}"}`;
    const posted = await fetch(`${proxy}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await posted.json()).toEqual({ ok: true, bytes: body.length });
    expect((await fetch(`${proxy}/plain`)).status).toBe(200);
    await stop(rec);
    expect(up.received[0].body.toString()).toBe(body);

    const reader = RecordingReader.open(out);
    onCleanup(() => reader.close());
    const [request] = reader.messages(reader.exchanges()[0].id);
    expect(request.rawTruncatedFrom).toBe(body.length);
    expect(request.raw.toString()).toBe(body.slice(0, 80).replace(`"${S.apiKey}"`, '"<redacted>"'));
    expect(reader.exchanges()[1].outcome).toBe('complete');
    const bytes = recordingBytes(out);
    expectAbsent(bytes, S.apiKey, 'the apiKey');
    expectAbsent(bytes, S.apiKey.slice(0, 12), 'the start of the apiKey');
  });
});

describe('hostile peers: a JSON message that is not parsed', () => {
  it('has its secret fields replaced in the stored bytes, whether it is broken or too costly to parse', async () => {
    const up = await upstream();
    const out = scratch('agent-proxy-secrets-').file('unparsed.db');
    const rec = cli(['record', '--target', up.url, '--listen', '0', '--out', out, '--json']);
    const proxy = (JSON.parse(await rec.waitForLine(/"event":"listening"/)) as { url: string }).url;
    // Broken JSON (a trailing comma), and 1 MB of empty objects: parsing it would not fit the recorder's heap budget.
    const broken = `{"model":"m","apiKey":"${S.apiKey}",}`;
    const costly = `{"password":"${S.password}","items":[${Array.from({ length: 250_000 }, () => '{}').join(',')}]}`;
    for (const body of [broken, costly]) {
      const posted = await fetch(`${proxy}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(await posted.json()).toEqual({ ok: true, bytes: body.length });
    }
    expect((await fetch(`${proxy}/plain`)).status).toBe(200);
    await stop(rec);
    expect(up.received.map((r) => r.body.toString()).slice(0, 2)).toEqual([broken, costly]);

    const reader = RecordingReader.open(out);
    onCleanup(() => reader.close());
    const [first, second, control] = reader.exchanges();
    const [brokenRow] = reader.messages(first.id);
    expect(brokenRow.verdict.findings.map((f) => f.rule)).toContain('invalid-json');
    expect(brokenRow.raw.toString()).toBe(broken.replace(`"${S.apiKey}"`, '"<redacted>"'));
    const [costlyRow] = reader.messages(second.id);
    expect(costlyRow.verdict.findings.map((f) => f.rule)).toContain('complex-message');
    expect(costlyRow.raw.toString()).toBe(costly.replace(`"${S.password}"`, '"<redacted>"'));
    expect(control.outcome).toBe('complete');
    const bytes = recordingBytes(out);
    expectAbsent(bytes, S.apiKey, 'the apiKey');
    expectAbsent(bytes, S.password, 'the password');
  });
});

describe('hostile peers: Pi session env values', () => {
  const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
  const ENV = { SHORT: 'abc', FLAG: 'true', LONGER_VALUE: 'env-longer-value-5c6d7e8f9a0b1c2d' };

  /** One session create through a recording proxy (CLI), the ticket polled to success. */
  async function recordCreate(out: string, env: Record<string, string>): Promise<void> {
    const daemon = await startPiDaemon({ deterministic: true, ticketPollsToSucceed: 0 });
    onCleanup(() => daemon.close());
    const rec = cli(['record', '--target', daemon.url, '--listen', '0', '--out', out, '--json']);
    const proxy = (JSON.parse(await rec.waitForLine(/"event":"listening"/)) as { url: string }).url;
    const created = await fetch(`${proxy}/v1/session`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json', 'idempotency-key': 'env-1' },
      body: JSON.stringify({ requestId: 'req-env', sessionId: 'env-s', spec: { cwd: '/srv/work/env', target: { mode: 'new' }, env } }),
    });
    expect(created.status).toBe(202);
    await created.text();
    expect(daemon.received.http.at(-1)!.body).toMatchObject({ spec: { env } });
    const control = await fetch(`${proxy}/v1/capabilities`, { headers: { authorization: `Bearer ${daemon.token}` } });
    expect(control.status).toBe(200);
    await stop(rec);
    expectNoSecret(rec.stdout() + rec.stderr(), 'the output of proxy record');
    expect(rec.stdout()).not.toContain(ENV.LONGER_VALUE);
  }

  it('stores keyed digests, not sha256 of the values; replay matches other values; two runs diff equal', async () => {
    const dir = scratch('agent-proxy-secrets-').dir;
    const a = join(dir, 'a.db');
    const b = join(dir, 'b.db');
    await recordCreate(a, ENV);
    await recordCreate(b, ENV);

    const reader = RecordingReader.open(a);
    onCleanup(() => reader.close());
    const [create] = reader.messages(reader.exchanges()[0].id);
    const stored = (create.json as { spec: { env: Record<string, string> } }).spec.env;
    expect(Object.keys(stored)).toEqual(Object.keys(ENV));
    for (const [key, value] of Object.entries(ENV)) {
      expect(stored[key], key).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
      expect(stored[key], key).not.toContain(sha256(value));
    }
    // The well-known digests of "abc" (ba7816bf…) and "true" (b5bea41b…) are nowhere in the files.
    const bytes = recordingBytes(a);
    for (const value of Object.values(ENV)) expectAbsent(bytes, sha256(value), `sha256 of ${value}`);
    expectAbsent(bytes, ENV.LONGER_VALUE, 'the env value');
    // Each recording has its own key: the same value digests differently in b.
    const other = RecordingReader.open(b);
    onCleanup(() => other.close());
    const storedB = (other.messages(other.exchanges()[0].id)[0].json as { spec: { env: Record<string, string> } }).spec.env;
    expect(storedB.SHORT).not.toBe(stored.SHORT);

    const diff = await runCli(['diff', a, b]);
    expect(diff.code, diff.stdout + diff.stderr).toBe(0);

    const replay = cli(['replay', a, '--listen', '0', '--timing', 'none']);
    const replayUrl = /^listening on (\S+)$/.exec(await replay.waitForLine(/^listening on /))![1];
    const live = await fetch(`${replayUrl}/v1/session`, {
      method: 'POST',
      headers: { authorization: 'Bearer whatever', 'content-type': 'application/json', 'idempotency-key': 'env-2' },
      body: JSON.stringify({ requestId: 'req-live', sessionId: 'env-s', spec: { cwd: '/srv/work/env', target: { mode: 'new' }, env: { SHORT: 'x', FLAG: 'false', LONGER_VALUE: 'y' } } }),
    });
    expect(live.status).toBe(202);
    expect(await replay.waitForLine(/^#1 /)).toMatch(/^#1 POST \/v1\/session 202 http 1 message .*3 redacted values matched any$/);
    // An env key the recording never had is still a difference.
    const extra = await fetch(`${replayUrl}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requestId: 'req-live-2', sessionId: 'env-s', spec: { cwd: '/srv/work/env', target: { mode: 'new' }, env: { ...ENV, NEW_KEY: 'z' } } }),
    });
    expect(extra.status).toBe(404);
    expect(await extra.text()).toContain('/spec/env/NEW_KEY');
    expect((await fetch(`${replayUrl}/v1/capabilities`)).status).toBe(200);
    await stop(replay);
  });
});

describe('hostile peers: a JSON body under another content type', () => {
  it('text/plain (what fetch() sends for a string body) has its secret fields stored redacted, --redact-field too', async () => {
    const up = await upstream();
    const out = scratch('agent-proxy-secrets-').file('text-plain.db');
    const rec = cli(['record', '--target', up.url, '--listen', '0', '--out', out, '--json', '--redact-field', 'customKey']);
    const proxy = (JSON.parse(await rec.waitForLine(/"event":"listening"/)) as { url: string }).url;
    const bodies = [
      // fetch(url, { method: 'POST', body: JSON.stringify(…) }) with no header of its own.
      { type: undefined, body: JSON.stringify({ model: 'm', apiKey: S.apiKey, nested: { password: S.password } }) },
      { type: 'text/plain;charset=UTF-8', body: ` {"customKey":"${S.customKey}","keep":"this"}` },
      { type: 'application/octet-stream', body: `[{"password":"${S.wsPassword}"}]` },
    ];
    for (const { type, body } of bodies) {
      const posted = await fetch(`${proxy}/json`, { method: 'POST', ...(type ? { headers: { 'content-type': type } } : {}), body });
      expect(posted.status).toBe(200);
      await posted.arrayBuffer();
    }
    expect((await fetch(`${proxy}/plain`)).status).toBe(200);
    await stop(rec);
    expect(up.received.slice(0, 3).map((r) => r.body.toString())).toEqual(bodies.map((b) => b.body));

    const reader = RecordingReader.open(out);
    onCleanup(() => reader.close());
    const stored = reader.exchanges().slice(0, 3).map((e) => reader.messages(e.id)[0].raw.toString());
    expect(stored).toEqual([
      JSON.stringify({ model: 'm', apiKey: '<redacted>', nested: { password: '<redacted>' } }),
      ' {"customKey":"<redacted>","keep":"this"}',
      '[{"password":"<redacted>"}]',
    ]);
    const bytes = recordingBytes(out);
    for (const [what, value] of [['the apiKey', S.apiKey], ['the password', S.password], ['the --redact-field value', S.customKey], ['the octet-stream password', S.wsPassword]]) {
      expectAbsent(bytes, value, what);
    }
  });
});
