/**
 * Hostile peers against the built CLI: an upstream that answers with bytes Node refuses to pass on
 * (record, and replay's passthrough), a recording whose answers are not valid HTTP (an imported
 * file is a peer's bytes too), and a request target the inspector cannot read as a URL. Each case:
 * the process survives, the client gets a clear answer, the recording says what happened, and a
 * control request afterwards is still served.
 */
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { runCli } from '../cli/run-cli.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { rawRequest, type RawResponse } from '../record/record-helpers.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor, within } from '../support/waits.js';
import type { ExchangeRow } from '../../src/store/store-types.js';
import { acceptWebSocket, exchangesOf, expectAlive, rawUpstream, serverFrame, startCli, type CliSession, type RawAnswer, type RawUpstream } from './upstream-standins.js';
import { storedBytes } from '../support/stored-bytes.js';

const fixtures = fixturesAfterEach();

async function upstream(answers: Record<string, RawAnswer>): Promise<RawUpstream> {
  const up = await rawUpstream(answers);
  fixtures.push(() => up.close());
  return up;
}

function record(target: string, out: string, env: NodeJS.ProcessEnv = {}): Promise<CliSession> {
  return startCli(['record', '--target', target, '--listen', '0', '--out', out, '--quiet'], env, fixtures.push);
}

interface SharedRecorder {
  up: RawUpstream;
  proxy: CliSession;
  out: string;
}

/**
 * One recorder for the cases of a describe block, in front of one raw upstream that answers each
 * case on a path of its own: a recorder's start is ~0.4 s of CPU, and every case must leave the
 * proxy serving the next anyway. A case sees its control request served and nothing on stderr, and
 * reads its own exchanges by path once the recorder has ended them (endedExchanges); after the last
 * case the recorder must stop cleanly (exit 0, nothing on stderr), then `afterStop` reads the file.
 */
function sharedRecorder(answers: Record<string, RawAnswer>, afterStop: (out: string) => void = () => {}): () => SharedRecorder {
  const folder = tempDir();
  const kills: Array<() => Promise<void>> = [];
  let shared: SharedRecorder | undefined;
  beforeAll(async () => {
    const up = await rawUpstream(answers);
    const out = folder.file('rec.db');
    shared = { up, out, proxy: await startCli(['record', '--target', up.url, '--listen', '0', '--out', out, '--quiet'], {}, (kill) => kills.push(kill)) };
  });
  afterAll(async () => {
    try {
      if (shared) {
        await shared.proxy.stop();
        afterStop(shared.out);
      }
    } finally {
      for (const kill of kills) await kill();
      await shared?.up.close();
      folder.cleanup();
    }
  });
  return () => shared!;
}

/**
 * One replay or inspector for the cases of a describe block (`args()` once its beforeAll ran): each
 * case leaves it serving its control request, and after the last it must stop cleanly (exit 0,
 * nothing on stderr). A start is ~0.35 s of CPU.
 */
function sharedCli(args: () => string[]): () => CliSession {
  const kills: Array<() => Promise<void>> = [];
  let shared: CliSession | undefined;
  beforeAll(async () => {
    shared = await startCli(args(), {}, (kill) => kills.push(kill));
  });
  afterAll(async () => {
    try {
      await shared?.stop();
    } finally {
      for (const kill of kills) await kill();
    }
  });
  return () => shared!;
}

/** The exchanges on these paths (in that order), once the running recorder has stored how each ended. */
function endedExchanges(out: string, paths: string[]): Promise<ExchangeRow[]> {
  return waitFor(
    () => {
      if (!existsSync(out)) return false;
      const rows = exchangesOf(out);
      const found = paths.map((path) => rows.find((row) => row.path === path));
      return found.every((row) => row?.outcome) && (found as ExchangeRow[]);
    },
    `the exchanges ${paths.join(', ')} ended in ${out}`,
    { pollMs: 20 },
  );
}

/** Every file of the recording's folder (the database, its write-ahead log), as one buffer, with the recording's blocks inflated. */
function onDisk(out: string): Buffer {
  const dir = out.slice(0, out.lastIndexOf('/'));
  return Buffer.concat([...readdirSync(dir).map((name) => readFileSync(join(dir, name))), storedBytes(out)]);
}

/** The proxy's own JSON error: its `error` object. */
function errorOf(response: RawResponse): { code: string; message: string; target?: string } {
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  return (JSON.parse(response.body.toString('utf8')) as { error: { code: string; message: string } }).error;
}

/** The control request: an ordinary answer through the same process. */
async function expectControlServed(session: CliSession, path = '/control'): Promise<void> {
  const control = await rawRequest({ url: session.url }, 'GET', path);
  expect(control.status).toBe(200);
  expectAlive(session);
}

/** Upstream answers no client could be given as they are (each would have thrown in writeHead, or left the client waiting). */
const INVALID_ANSWERS: Array<{ name: string; answer: string; message: RegExp; secret?: string }> = [
  {
    name: 'a control byte in the reason phrase',
    answer: 'HTTP/1.1 200 O\x01K\r\nContent-Length: 2\r\n\r\nhi',
    message: /cannot be passed on: the reason phrase holds a control character \(status 200, reason "O\\x01K"\)$/,
  },
  { name: 'DEL in the reason phrase', answer: 'HTTP/1.1 200 O\x7fK\r\nContent-Length: 2\r\n\r\nhi', message: /reason "O\\x7fK"\)$/ },
  { name: 'a status below 100', answer: 'HTTP/1.1 099 Low\r\nContent-Length: 2\r\n\r\nhi', message: /status 99 is not a valid HTTP status \(status 99, reason "Low"\)$/ },
  { name: 'a 101 to a request that asked for no upgrade', answer: 'HTTP/1.1 101 Switching Protocols\r\n\r\n', message: /the interim status 101 is not an answer/ },
  {
    name: 'a 101 with Upgrade headers to a request that asked for no upgrade',
    answer: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
    message: /the interim status 101 is not an answer/,
  },
  {
    name: "a status line Node's parser rejects",
    answer: 'HTTP/1.1 1000 Big\r\nContent-Length: 2\r\n\r\nhi',
    message: /is not valid HTTP: HPE_INVALID_STATUS \(.+\); it began "HTTP\/1\.1 1000 Big"$/,
  },
  {
    name: "a header Node's parser rejects, which carries a credential",
    answer: 'HTTP/1.1 200 OK\r\nSet-Cookie: session=hunter2\x01\r\nContent-Length: 2\r\n\r\nhi',
    message: /is not valid HTTP: HPE_INVALID_HEADER_TOKEN \(.+\); it began "HTTP\/1\.1 200 OK"$/,
    secret: 'hunter2',
  },
];

describe('record: an upstream answer that cannot be passed on', () => {
  const recorder = sharedRecorder(Object.fromEntries(INVALID_ANSWERS.map(({ answer }, i) => [`/bad-${i}`, answer])), (out) => {
    for (const { secret } of INVALID_ANSWERS) if (secret) expect(onDisk(out).includes(secret)).toBe(false);
  });
  INVALID_ANSWERS.forEach(({ name, message, secret }, i) => {
    it(`${name}: the client gets a 502, the exchange is an error saying what came, and the proxy goes on`, async () => {
      const { up, proxy, out } = recorder();
      const [path, controlPath] = [`/bad-${i}`, `/control-${i}`];

      const bad = await within(rawRequest({ url: proxy.url }, 'GET', path), `the answer to GET ${path}`);
      expect(bad.status).toBe(502);
      const error = errorOf(bad);
      expect(error).toMatchObject({ code: 'upstream_invalid_response', target: up.url });
      expect(error.message).toMatch(message);
      await expectControlServed(proxy, controlPath);
      expect(proxy.cli.stderr()).toBe('');

      const [stored, control] = await endedExchanges(out, [path, controlPath]);
      expect(stored).toMatchObject({ path, status: 502, outcome: 'error', errorCode: 'E_UPSTREAM_INVALID_RESPONSE', errorMessage: error.message, responseHeaders: null, messageCount: 0 });
      expect(control).toMatchObject({ path: controlPath, status: 200, outcome: 'complete' });
      if (secret) expect(onDisk(out).includes(secret)).toBe(false);
    });
  });

  it("a header Node will not send, when its parser was made lenient (--insecure-http-parser): 502, not a crash", async () => {
    const up = await upstream({ '/bad': 'HTTP/1.1 200 OK\r\nX-Odd: a\x01b\r\nContent-Length: 2\r\n\r\nhi' });
    const out = fixtures.scratch().file('rec.db');
    const proxy = await record(up.url, out, { NODE_OPTIONS: '--insecure-http-parser' });

    const bad = await rawRequest({ url: proxy.url }, 'GET', '/bad');
    expect(bad.status).toBe(502);
    const error = errorOf(bad);
    expect(error.code).toBe('upstream_invalid_response');
    // Checked by the proxy itself, not left to writeHead: Node 24 under the flag would send the header.
    expect(error.message).toMatch(/cannot be passed on: header "X-Odd" cannot be sent \(ERR_INVALID_CHAR\) \(status 200, reason "OK"\)$/);
    await expectControlServed(proxy);
    // Node warns about the flag itself; nothing else may reach stderr (no stack trace).
    await proxy.stop(/^(\(node:\d+\) Warning: .*\n|\(Use `node --trace-warnings .*\n)*$/);
    expect(exchangesOf(out)[0]).toMatchObject({ status: 502, outcome: 'error', errorCode: 'E_UPSTREAM_INVALID_RESPONSE', responseHeaders: null });
  });

  it('a recorded invalid answer replays as the same 502', async () => {
    const up = await upstream({ '/bad': 'HTTP/1.1 200 O\x01K\r\nContent-Length: 2\r\n\r\nhi' });
    const out = fixtures.scratch().file('rec.db');
    const proxy = await record(up.url, out);
    const recorded = errorOf(await rawRequest({ url: proxy.url }, 'GET', '/bad'));
    await proxy.stop();

    const replay = await startCli(['replay', out, '--listen', '0', '--timing', 'none', '--quiet'], {}, fixtures.push);
    const replayed = await rawRequest({ url: replay.url }, 'GET', '/bad');
    expect(replayed.status).toBe(502);
    expect(errorOf(replayed)).toEqual({ code: 'upstream_invalid_response', message: recorded.message, target: up.url });
    await replay.stop();
  });

  it('replay --on-miss passthrough: a forwarded miss answered with a control byte gets the 502 and is recorded', async () => {
    const up = await upstream({ '/bad': 'HTTP/1.1 200 O\x01K\r\nContent-Length: 2\r\n\r\nhi' });
    const dir = fixtures.scratch();
    const fixture = dir.file('fixture.ndjson');
    writeFileSync(fixture, ndjsonRecording([{ id: 1, path: '/recorded', status: 200, body: 'recorded' }]));
    const misses = dir.file('misses.db');
    const replay = await startCli(['replay', fixture, '--listen', '0', '--timing', 'none', '--quiet', '--on-miss', 'passthrough', '--target', up.url, '--misses-out', misses], {}, fixtures.push);

    const bad = await rawRequest({ url: replay.url }, 'GET', '/bad');
    expect(bad.status).toBe(502);
    expect(errorOf(bad)).toMatchObject({ code: 'upstream_invalid_response', message: expect.stringMatching(/reason "O\\x01K"/) });
    await expectControlServed(replay, '/recorded');
    await expectControlServed(replay, '/control');
    await replay.stop();
    const [stored, control] = exchangesOf(misses);
    expect(stored).toMatchObject({ path: '/bad', status: 502, outcome: 'error', errorCode: 'E_UPSTREAM_INVALID_RESPONSE' });
    expect(control).toMatchObject({ path: '/control', status: 200, outcome: 'complete' });
  });
});

/** A WebSocket upgrade through the proxy: how it opened, or the refusal's status and body. */
function upgrade(url: string): Promise<{ ws?: WebSocket; status?: number; body?: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('open', () => resolve({ ws }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('latin1')));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    ws.on('error', reject);
  });
}

describe('record: an upstream that answers a WebSocket upgrade with what cannot be passed on', () => {
  const REFUSALS: Array<{ name: string; answer: string; message: RegExp }> = [
    { name: 'a refusal with a control byte in its reason phrase', answer: 'HTTP/1.1 403 Forbid\x01den\r\nContent-Length: 0\r\n\r\n', message: /reason "Forbid\\x01den"/ },
    { name: 'a refusal with a status below 100', answer: 'HTTP/1.1 042 Odd\r\nContent-Length: 0\r\n\r\n', message: /status 42 is not a valid HTTP status/ },
    { name: 'a 101 without the Upgrade it must carry', answer: 'HTTP/1.1 101 Switching Protocols\r\n\r\n', message: /the interim status 101 is not an answer/ },
    { name: "a status line Node's parser rejects", answer: 'HTTP/1.1 1000 Big\r\n\r\n', message: /HPE_INVALID_STATUS/ },
  ];
  const CLOSES: Array<{ name: string; payload: Buffer }> = [
    { name: 'the close code 1005, which must never be sent', payload: Buffer.from([0x03, 0xed]) },
    { name: 'the close code 999, below the range', payload: Buffer.from([0x03, 0xe7]) },
    { name: 'a one-byte close payload', payload: Buffer.from([0x03]) },
  ];
  const recorder = sharedRecorder({
    ...Object.fromEntries(REFUSALS.map(({ answer }, i) => [`/refused-${i}`, answer])),
    ...Object.fromEntries(
      CLOSES.map(({ payload }, i): [string, RawAnswer] => [
        `/closed-${i}`,
        (socket, head) => {
          acceptWebSocket(socket, head);
          socket.write(serverFrame(0x8, payload));
        },
      ]),
    ),
  });

  REFUSALS.forEach(({ name, message }, i) => {
    it(`${name}: the client gets a 502 and the exchange is an error`, async () => {
      const { proxy, out } = recorder();
      const [path, controlPath] = [`/refused-${i}`, `/control-refused-${i}`];

      const refused = await within(upgrade(`${proxy.url.replace('http:', 'ws:')}${path}`), 'the answer to the upgrade');
      expect(refused.status).toBe(502);
      const error = (JSON.parse(refused.body!) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('upstream_invalid_response');
      expect(error.message).toMatch(message);
      await expectControlServed(proxy, controlPath);
      expect(proxy.cli.stderr()).toBe('');
      const [stored] = await endedExchanges(out, [path, controlPath]);
      expect(stored).toMatchObject({ transport: 'ws', status: 502, outcome: 'error', errorCode: 'E_UPSTREAM_INVALID_RESPONSE', errorMessage: error.message });
    });
  });

  it("a refusal with a header Node will not send, when its parser was made lenient: a 502, not the header mirrored", async () => {
    const up = await upstream({ '/ws': 'HTTP/1.1 403 Forbidden\r\nX-Odd: a\x01b\r\nContent-Length: 0\r\n\r\n' });
    const out = fixtures.scratch().file('rec.db');
    const proxy = await record(up.url, out, { NODE_OPTIONS: '--insecure-http-parser' });

    const refused = await within(upgrade(`${proxy.url.replace('http:', 'ws:')}/ws`), 'the answer to the upgrade');
    expect(refused.status).toBe(502);
    expect(JSON.parse(refused.body!)).toMatchObject({ error: { code: 'upstream_invalid_response', message: expect.stringMatching(/header "X-Odd" cannot be sent/) } });
    await expectControlServed(proxy);
    await proxy.stop(/^(\(node:\d+\) Warning: .*\n|\(Use `node --trace-warnings .*\n)*$/);
    expect(exchangesOf(out)[0]).toMatchObject({ transport: 'ws', status: 502, outcome: 'error', errorCode: 'E_UPSTREAM_INVALID_RESPONSE' });
  });

  CLOSES.forEach(({ name }, i) => {
    it(`an upstream that closes with ${name}: the client's connection is cut, the proxy goes on`, async () => {
      const { proxy, out } = recorder();
      const [path, controlPath] = [`/closed-${i}`, `/control-closed-${i}`];

      const { ws } = await upgrade(`${proxy.url.replace('http:', 'ws:')}${path}`);
      ws!.on('error', () => {});
      const [code] = (await within(once(ws!, 'close'), 'the client leg to close')) as [number];
      expect(code).toBe(1006);
      await expectControlServed(proxy, controlPath);
      expect(proxy.cli.stderr()).toBe('');
      const [stored] = await endedExchanges(out, [path, controlPath]);
      expect(stored).toMatchObject({ transport: 'ws', status: 101, outcome: 'aborted', errorCode: 'E_UPSTREAM_RESET' });
    });
  });
});

interface RecordedHttp {
  id: number;
  path: string;
  status: unknown;
  transport?: 'http' | 'ws';
  headers?: Record<string, unknown>;
  body?: string;
}

/** A small NDJSON recording, as `export --format ndjson` writes one, with exactly the answers given. */
function ndjsonRecording(exchanges: RecordedHttp[]): string {
  const lines: unknown[] = [
    { type: 'recording', format: 'agent-proxy/ndjson', version: 1, toolVersion: '0.1.0', target: 'http://127.0.0.1:9', listen: null, mode: 'record', startedAt: '2026-01-01T00:00:00.000Z', endedAt: '2026-01-01T00:00:01.000Z', schemaHashes: {} },
  ];
  for (const e of exchanges) {
    lines.push({
      type: 'exchange',
      id: e.id,
      transport: e.transport ?? 'http',
      protocol: null,
      method: 'GET',
      path: e.path,
      query: null,
      url: e.path,
      status: e.status,
      subprotocol: null,
      requestHeaders: {},
      responseHeaders: e.headers ?? { 'content-type': 'text/plain' },
      startedMs: e.id,
      endedMs: e.id + 1,
      outcome: e.transport === 'ws' ? 'rejected' : 'complete',
      errorCode: null,
      errorMessage: null,
      closeCode: null,
      closeReason: null,
      exitCode: null,
      signal: null,
    });
    if (e.body !== undefined) {
      lines.push({ type: 'message', exchange: e.id, seq: 1, sender: 'server', carrier: 'body', channel: null, tOffsetMs: e.id, raw: e.body, rawTruncatedFrom: null, verdict: { status: 'unchecked', schemaRef: null, reason: 'not judged', findings: [] } });
    }
  }
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

/** Sends raw bytes and collects everything until the server closes the connection. */
async function rawExchange(url: string, request: string): Promise<string> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(request);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  await within(once(socket, 'close'), 'the server to close the connection');
  return received;
}

describe('replay: a recorded answer that is not valid HTTP', () => {
  // One replay of one file for every case: each bad answer on a path of its own, and a control
  // answer for each case (replay serves a path's recorded answers in turn).
  const CASES: Array<{ name: string; exchange: RecordedHttp; message: RegExp }> = [
    { name: 'a status above 999', exchange: { id: 1, path: '/bad-status', status: 1000, body: 'x' }, message: /exchange 1 cannot be replayed: .*Invalid status code: 1000/ },
    { name: 'a header value with CR LF', exchange: { id: 2, path: '/bad-value', status: 200, headers: { 'x-split': 'a\r\nInjected: 1' }, body: 'x' }, message: /exchange 2 cannot be replayed: .*"x-split"/ },
    { name: 'a header name with a space', exchange: { id: 3, path: '/bad-name', status: 200, headers: { 'bad name': 'x' }, body: 'x' }, message: /exchange 3 cannot be replayed: .*"bad name"/ },
  ];
  const folder = tempDir();
  afterAll(() => folder.cleanup());
  const replay = sharedCli(() => {
    const file = folder.file('imported.ndjson');
    const ws: RecordedHttp = { id: 4, path: '/ws', transport: 'ws', status: 403, headers: { 'x-split': 'a\r\nInjected: 1' }, body: 'no' };
    const controls = [5, 6, 7, 8].map((id): RecordedHttp => ({ id, path: '/control', status: 200, body: 'ok' }));
    writeFileSync(file, ndjsonRecording([...CASES.map((c) => c.exchange), ws, ...controls]));
    return ['replay', file, '--listen', '0', '--timing', 'none', '--quiet'];
  });

  for (const { name, exchange, message } of CASES) {
    it(`${name}: a 500 that names the exchange, and the other exchanges are still served`, async () => {
      const bad = await rawExchange(replay().url, `GET ${exchange.path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      // The whole answer is the replay's own: status line, reason and headers, nothing of the recorded head.
      expect(bad).toMatch(/^HTTP\/1\.1 500 Internal Server Error\r\n/);
      expect(bad).not.toMatch(/\r\nInjected/);
      const error = (JSON.parse(bad.slice(bad.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('replay_failed');
      expect(error.message).toMatch(message);
      await expectControlServed(replay());
    });
  }

  it('a status that is not a number: the file is refused at start with one line naming the line and the field', async () => {
    const file = fixtures.scratch().file('imported.ndjson');
    writeFileSync(file, ndjsonRecording([{ id: 1, path: '/bad', status: 'abc', body: 'x' }]));
    const result = await runCli(['replay', file, '--listen', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^agent-proxy: .*imported\.ndjson: not a recording \(line 2: "status" must be a whole number/)]);
  });

  it('a WebSocket refusal whose recorded header would split the response: a 500, not the injected header', async () => {
    const answer = await rawExchange(
      replay().url,
      'GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 500 /);
    expect(answer).not.toMatch(/\r\nInjected/);
    expect(answer).toMatch(/"code":"replay_failed".*exchange 4 cannot be replayed: .*x-split/);
    await expectControlServed(replay());
  });
});

describe('view: a request target that is no URL', () => {
  // One inspector for the three cases, each leaving it serving.
  const shared = sharedCli(() => ['view', 'recordings/examples/agui-sse-run.ndjson', '--listen', '0']);
  for (const target of ['//', 'http://[', '//x:99999/']) {
    it(`GET ${target}: a 400, and the inspector goes on`, async () => {
      const view = shared();
      const answer = await rawExchange(view.url, `GET ${target} HTTP/1.1\r\nHost: ${new URL(view.url).host}\r\nConnection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toMatch(/"error":"the request target is not a valid URL"/);
      const control = await rawRequest({ url: view.url }, 'GET', '/api/recording');
      expect(control.status).toBe(200);
      expectAlive(view);
    });
  }
});
