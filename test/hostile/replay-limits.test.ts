/**
 * What replay holds of a request is bounded: a body, frame or line longer than
 * --max-request-body (default 10 MiB) is refused as soon as that is known (413, close 1009, a miss
 * line) without holding it; miss reports quote at most 4 KiB of a body, with its size; JSON nested
 * thousands deep is compared byte for byte instead of overflowing the stack. Each case drives the
 * built CLI and checks that the process survives, what the client got, what was stored, and that a
 * control request is still served.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { runBatch } from '../cli/cli-batch.js';
import { BIN, REPO } from '../cli/run-cli.js';
import { scratch } from '../support/temp-dir.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { wsOpen } from '../support/ws-client.js';
import { portOf, rawExchange, startCli, type CliChild } from './cli-child.js';

useCleanups();

const LIMIT = 10 * 1024 * 1024;
const AGUI = 'recordings/examples/agui-sse-run.ndjson';
const PI_DAEMON = 'recordings/examples/pi-daemon-session.ndjson';

/** A copy of an example recording, so the test can check that replay left it as it was. */
function copyOf(example: string): { file: string; unchanged(): boolean } {
  const file = scratch('agent-proxy-limits-').file(example.split('/').pop()!);
  copyFileSync(`${REPO}/${example}`, file);
  const before = readFileSync(file);
  return { file, unchanged: () => readFileSync(file).equals(before) };
}

/** The request body recorded for exchange 1 of the AG-UI example: the control request replays it. */
function recordedRunBody(): string {
  for (const line of readFileSync(`${REPO}/${AGUI}`, 'utf8').split('\n')) {
    if (!line) continue;
    const value = JSON.parse(line) as { type: string; exchange?: number; sender?: string; raw?: string; rawBefore?: string; rawJson?: unknown; rawAfter?: string };
    // A JSON body is written as its JSON (`rawJson`, between `rawBefore` and `rawAfter`), other bytes as `raw`.
    if (value.type === 'message' && value.exchange === 1 && value.sender === 'client') return value.raw ?? `${value.rawBefore ?? ''}${JSON.stringify(value.rawJson)}${value.rawAfter ?? ''}`;
  }
  throw new Error('no recorded request body');
}

async function startReplay(recording: string, extra: string[] = []): Promise<{ cli: CliChild; port: number }> {
  const cli = startCli(['replay', recording, '--listen', '0', '--timing', 'none', ...extra]);
  const first = await cli.waitForLine(/listening/);
  const url = first.startsWith('{') ? (JSON.parse(first) as { url: string }).url : /^listening on (\S+)$/.exec(first)![1];
  return { cli, port: portOf(url) };
}

/** The control request: the recorded AG-UI run, served in full. */
async function expectRunServed(port: number): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: recordedRunBody(),
  });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('RUN_FINISHED');
}

/** A response head and a JSON body ending in `}}` (the replay's error documents) have arrived. */
const WHOLE_JSON_RESPONSE = /\r\n\r\n\{[\s\S]*\}\}$/;

/** Splits a raw HTTP/1.1 response into status, headers and body. */
function parseResponse(raw: string): { status: number; headers: string; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  expect(end, raw.slice(0, 200)).toBeGreaterThan(0);
  return { status: Number(raw.slice(9, 12)), headers: raw.slice(0, end).toLowerCase(), body: raw.slice(end + 4) };
}

/** Writes `total` bytes of 'a' in 1 MiB chunks (as a chunked body when `chunked`), minding backpressure, until done or the socket closes. */
function pump(socket: import('node:net').Socket, total: number, chunked: boolean): void {
  const chunk = Buffer.alloc(1 << 20, 0x61);
  const framed = chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
  let sent = 0;
  const next = () => {
    while (sent < total && !socket.destroyed) {
      sent += chunk.length;
      if (!socket.write(framed)) return void socket.once('drain', next);
    }
    if (!socket.destroyed && chunked) socket.write('0\r\n\r\n');
  };
  socket.on('error', () => undefined);
  next();
}

describe('replay: request bodies longer than --max-request-body', () => {
  it('answers a 50 MB body (Content-Length) with 413 before holding any of it, and keeps serving', async () => {
    const rec = copyOf(AGUI);
    const { cli, port } = await startReplay(rec.file);
    const raw = await rawExchange(
      port,
      (socket) => {
        socket.write(`POST /agent HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n`);
        pump(socket, 50 * 1024 * 1024, false);
      },
      WHOLE_JSON_RESPONSE,
    );
    const res = parseResponse(raw);
    expect(res.status).toBe(413);
    const error = (JSON.parse(res.body) as { error: Record<string, unknown> }).error;
    expect(error).toMatchObject({
      code: 'request_too_large',
      reason: 'too-large',
      limit: LIMIT,
      flag: '--max-request-body',
      request: { method: 'POST', path: '/agent', query: '', bodyBytes: 50 * 1024 * 1024 },
    });
    expect(error.message).toBe(`POST /agent: the request body (52428800 bytes) is larger than the replay's limit of ${LIMIT} bytes; --max-request-body <bytes> raises it`);

    // The miss line is one short line; the process still serves the recorded run.
    const miss = await cli.waitForLine(/^miss /);
    expect(miss).toBe(`miss ${error.message}`);
    await expectRunServed(port);
    expect(cli.alive()).toBe(true);
    expect(await cli.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(cli.lines.at(-1)).toBe('stopped (SIGINT): 1 served, 1 miss, 1 of 2 recorded exchanges unused');
    expect(cli.stderr()).toBe('');
    expect(rec.unchanged()).toBe(true);
  });

  it('answers a client that asks first (Expect: 100-continue) with 413 instead of inviting the body', async () => {
    const rec = copyOf(AGUI);
    const { cli, port } = await startReplay(rec.file);
    // Headers only: a client that asks first sends its body only after 100 Continue.
    const raw = await rawExchange(
      port,
      `POST /agent HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n`,
      WHOLE_JSON_RESPONSE,
    );
    expect(raw).not.toMatch(/^HTTP\/1\.1 100 /);
    const res = parseResponse(raw);
    expect(res.status).toBe(413);
    expect((JSON.parse(res.body) as { error: { code: string } }).error.code).toBe('request_too_large');
    await cli.waitForLine(/^miss /);

    // A body within the limit is invited as usual, and then served its recorded answer (the control request).
    const body = recordedRunBody();
    const served = await rawExchange(
      port,
      (socket) => {
        socket.write(`POST /agent HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nExpect: 100-continue\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
        let seen = '';
        const onData = (chunk: Buffer) => {
          seen += chunk.toString();
          if (!seen.includes('100 Continue\r\n\r\n')) return;
          socket.off('data', onData);
          socket.write(body);
        };
        socket.on('data', onData);
      },
      /RUN_FINISHED[\s\S]*\r\n0\r\n\r\n$/,
    );
    expect(served).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(cli.alive()).toBe(true);
    expect(await cli.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });

  it('holds no more of a streamed (chunked) body once it passes the limit, and reports it in a short --json line', async () => {
    const rec = copyOf(AGUI);
    const { cli, port } = await startReplay(rec.file, ['--json', '--max-request-body', '1MiB']);
    const raw = await rawExchange(
      port,
      (socket) => {
        socket.write(`POST /agent HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
        pump(socket, 128 * 1024 * 1024, true);
      },
      WHOLE_JSON_RESPONSE,
    );
    const res = parseResponse(raw);
    expect(res.status).toBe(413);
    const error = (JSON.parse(res.body) as { error: { code: string; limit: number; request: { bodyBytes: number; bodyTruncated: boolean }; message: string } }).error;
    expect(error.code).toBe('request_too_large');
    expect(error.limit).toBe(1048576);
    // Only what had arrived when it passed the limit was held (and counted): far less than the 128 MiB sent.
    expect(error.request.bodyTruncated).toBe(true);
    expect(error.request.bodyBytes).toBeGreaterThan(1048576);
    expect(error.request.bodyBytes).toBeLessThan(8 * 1048576);
    expect(error.message).toBe("POST /agent: the request body is larger than the replay's limit of 1048576 bytes; --max-request-body <bytes> raises it");

    const line = await cli.waitForLine(/"event":"miss"/);
    expect(line.length).toBeLessThan(400);
    expect(JSON.parse(line)).toMatchObject({ event: 'miss', reason: 'too-large', limit: 1048576, request: { bodyTruncated: true } });
    await expectRunServed(port);
    expect(await cli.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(rec.unchanged()).toBe(true);
  });

  it('drops the rest of a refused body, so the same connection serves the next request', async () => {
    const { cli, port } = await startReplay(AGUI, ['--max-request-body', '1048576']);
    const run = recordedRunBody();
    const control = `POST /agent HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(run)}\r\n\r\n${run}`;
    const raw = await rawExchange(
      port,
      (socket) => {
        socket.write(`POST /agent HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
        const chunk = Buffer.alloc(1 << 20, 0x61);
        for (let i = 0; i < 3; i++) socket.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
        socket.write('0\r\n\r\n' + control);
      },
      /RUN_FINISHED[\s\S]*\r\n0\r\n\r\n$/,
    );
    expect(raw.startsWith('HTTP/1.1 413 ')).toBe(true);
    expect(raw).toMatch(/\}\}HTTP\/1\.1 200 /);
    expect(await cli.waitForLine(/^#1 POST \/agent 200/)).toMatch(/^#1 POST \/agent 200 sse/);
    expect(await cli.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });

  it('refuses a --max-request-body that is not a size with one line', async () => {
    const form = 'expected bytes, or a number with a unit (kB, MB, GB count in 1000s; KiB, MiB, GiB in 1024s), e.g. 10MB or 64KiB';
    const says: Record<string, string> = {
      abc: `is not a size: ${form}`,
      '-5': `is not a size: ${form}`,
      '10XB': `is not a size: ${form}`,
      '0': 'is not a size: expected more than 0 bytes',
      '1.5': 'is not a whole number of bytes (1.5)',
    };
    // The five in one batch of CLI runs (test/cli/cli-batch.ts); the first also as a process of its own.
    const results = await runBatch(Object.keys(says).map((value) => ['replay', AGUI, '--listen', '0', '--max-request-body', value]));
    for (const [i, [value, text]] of Object.entries(says).entries()) {
      const result = results[i];
      expect(result.code, value).toBe(2);
      expect(result.stderr).toBe(`agent-proxy: --max-request-body '${value}' ${text}\n`);
    }
  });

  it('with --on-miss passthrough streams the whole large body to the upstream and records it', async () => {
    const received: { bytes: number; sha: string }[] = [];
    const upstream = createServer((req, res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      req.on('data', (c: Buffer) => ((bytes += c.length), hash.update(c)));
      req.on('end', () => {
        received.push({ bytes, sha: hash.digest('hex') });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: bytes }));
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    onCleanup(() => new Promise<void>((r) => upstream.close(() => r())));
    const misses = scratch('agent-proxy-limits-').file('misses.db');
    const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const { cli, port } = await startReplay(AGUI, ['--on-miss', 'passthrough', '--target', target, '--misses-out', misses, '--max-request-body', '1048576']);

    const body = Buffer.alloc(3 * 1048576 + 17, 0x62);
    const res = await fetch(`http://127.0.0.1:${port}/upload`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: body.length });
    expect(received).toEqual([{ bytes: body.length, sha: createHash('sha256').update(body).digest('hex') }]);
    expect(await cli.waitForLine(/^miss /)).toMatch(/^miss POST \/upload: the request body \(3145745 bytes\) is larger than the replay's limit of 1048576 bytes; .* -> forwarded$/);
    await expectRunServed(port);
    expect(await cli.stop('SIGINT')).toEqual({ code: 0, signal: null });

    const reader = RecordingReader.open(misses);
    try {
      const [exchange, ...others] = reader.exchanges();
      expect(others).toEqual([]);
      expect([exchange.method, exchange.path, exchange.status]).toEqual(['POST', '/upload', 200]);
      const request = reader.messages(exchange.id).find((m) => m.sender === 'client')!;
      expect(request.raw.equals(body)).toBe(true);
    } finally {
      reader.close();
    }
  });
});

describe('replay: miss reports quote a few KiB at most', () => {
  it('a 4 MB JSON body that matches nothing gets a small RUN_ERROR and a small --json miss line, with its size', async () => {
    const { cli, port } = await startReplay(AGUI, ['--json']);
    const body = JSON.stringify({ threadId: 't', runId: 'r', messages: [{ role: 'user', content: 'é'.repeat(2 * 1024 * 1024) }] });
    const res = await fetch(`http://127.0.0.1:${port}/agent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await res.text();
    expect(text.length).toBeLessThan(6000);
    expect(JSON.parse(text.replace(/^data: /, ''))).toMatchObject({ type: 'RUN_ERROR', code: 'replay_miss' });

    const line = await cli.waitForLine(/"event":"miss"/);
    expect(line.length).toBeLessThan(6000);
    const reported = JSON.parse(line) as { reason: string; request: { body: string; bodyBytes: number; bodyTruncated: boolean } };
    expect(reported).toMatchObject({ reason: 'no-match', request: { bodyBytes: Buffer.byteLength(body), bodyTruncated: true } });
    // The quoted start is the body's own first bytes, not cut inside a character.
    expect(body.startsWith(reported.request.body)).toBe(true);
    expect(Buffer.byteLength(reported.request.body)).toBeLessThanOrEqual(4096);
    await expectRunServed(port);
    expect(await cli.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });

  it('a JSON body with a megabyte-long key names the difference in a short pointer', async () => {
    const { cli, port } = await startReplay(AGUI);
    const recorded = JSON.parse(recordedRunBody()) as Record<string, unknown>;
    const body = JSON.stringify({ ...recorded, ['k'.repeat(1024 * 1024)]: 1 });
    const res = await fetch(`http://127.0.0.1:${port}/agent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const text = await res.text();
    expect(text.length).toBeLessThan(6000);
    const miss = await cli.waitForLine(/^miss /);
    expect(miss.length).toBeLessThan(400);
    expect(miss).toMatch(/differs in \/k{199}…$/);
    await expectRunServed(port);
    expect(await cli.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });
});

describe('replay: JSON nested 10,000 deep', () => {
  it('is compared byte for byte and answered with a clear 404, not a 500 RangeError', async () => {
    const rec = copyOf(AGUI);
    const { cli, port } = await startReplay(rec.file, ['--json']);
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const res = await fetch(`http://127.0.0.1:${port}/agent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep });
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text).not.toContain('RangeError');
    const error = (JSON.parse(text) as { error: { code: string; message: string; differences: string[]; request: { bodyTooDeep: boolean; bodyBytes: number } } }).error;
    expect(error.code).toBe('replay_miss');
    expect(error.message).toBe('POST /agent matches no recorded exchange; nearest is exchange 1 (POST /agent); differs in body (its JSON nests deeper than 512 levels, so it is compared byte for byte)');
    expect(error.request).toMatchObject({ bodyTooDeep: true, bodyBytes: deep.length });

    // The quote is at most 4 KiB of the body (JSON-escaped in the line), not the 50 KB of it.
    const line = await cli.waitForLine(/"event":"miss"/);
    const quoted = (JSON.parse(line) as { request: { body: string } }).request.body;
    expect(Buffer.byteLength(quoted)).toBeLessThanOrEqual(4096);
    expect(line.length).toBeLessThan(10_000);
    await expectRunServed(port);
    expect(await cli.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(cli.stderr()).toBe('');
    expect(rec.unchanged()).toBe(true);
  });
});

describe('replay: WebSocket frames longer than --max-request-body', () => {
  it('close the connection with 1009 and are reported as a miss; HTTP is still served', async () => {
    const { cli, port } = await startReplay(PI_DAEMON, ['--max-request-body', '64kib']);
    const session = await wsOpen(`ws://127.0.0.1:${port}/v1/session/agent-a/rpc?role=controller`, 'pi-daemon-rpc.v1');
    const [ready] = await session.take(1);
    expect(JSON.parse(ready)).toMatchObject({ kind: 'attach_ready' });
    session.ws.send(JSON.stringify({ kind: 'command', command: { id: 'state-1', type: 'get_state', pad: 'x'.repeat(100_000) } }));
    expect((await session.closed).code).toBe(1009);
    expect(await cli.waitForLine(/^miss FRAME/)).toBe("miss FRAME /v1/session/agent-a/rpc?role=controller: the frame is larger than the replay's limit of 65536 bytes; --max-request-body <bytes> raises it");
    const control = await fetch(`http://127.0.0.1:${port}/v1/capabilities`);
    expect(control.status).toBe(200);
    expect(((await control.json()) as { apiVersion: string }).apiVersion).toBe('1.0');
    expect(await cli.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });
});

/** A Pi RPC stdio recording in the NDJSON form: get_state and its answer. */
function stdioRecording(): string {
  const file = scratch('agent-proxy-limits-').file('pi-stdio.ndjson');
  const request = '{"id":"1","type":"get_state"}\n';
  const response = '{"id":"1","type":"response","command":"get_state","success":true,"data":{"model":null}}\n';
  const verdict = { status: 'unchecked', schemaRef: null, reason: 'test', findings: [] };
  const lines = [
    { type: 'recording', format: 'agent-proxy/ndjson', version: 1, toolVersion: '0.1.0', target: 'pi --mode rpc', listen: null, mode: 'record', startedAt: '2026-01-01T00:00:00.000Z', endedAt: '2026-01-01T00:00:01.000Z', schemaHashes: {} },
    { type: 'exchange', id: 1, transport: 'stdio', protocol: 'pi-rpc', method: null, path: null, query: null, url: null, status: null, subprotocol: null, requestHeaders: null, responseHeaders: null, startedMs: 0, endedMs: 100, outcome: 'complete', errorCode: null, errorMessage: null, closeCode: null, closeReason: null, exitCode: 0, signal: null },
    { type: 'message', exchange: 1, seq: 1, sender: 'client', carrier: 'line', channel: 'stdin', tOffsetMs: 10, raw: request, rawTruncatedFrom: null, json: JSON.parse(request), verdict },
    { type: 'message', exchange: 1, seq: 2, sender: 'server', carrier: 'line', channel: 'stdout', tOffsetMs: 20, raw: response, rawTruncatedFrom: null, json: JSON.parse(response), verdict },
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

describe('replay --stdio: lines longer than --max-request-body, and nested 10,000 deep', () => {
  it('answers each as a miss without holding it, then still plays the recorded line', async () => {
    const recording = stdioRecording();
    const child = spawn(process.execPath, [BIN, 'replay', '--stdio', recording, '--timing', 'none', '--max-request-body', '65.536kB'], { cwd: REPO, env: { ...process.env, NO_COLOR: '1' } });
    onCleanup(() => void child.kill('SIGKILL'));
    let stdout = '';
    let stderr = '';
    const waiters: Array<() => void> = [];
    child.stdout.setEncoding('utf8').on('data', (d: string) => ((stdout += d), waiters.splice(0).forEach((w) => w())));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const outLines = (n: number) =>
      new Promise<string[]>((resolve) => {
        const check = () => (stdout.split('\n').length > n ? resolve(stdout.split('\n').slice(0, n)) : waiters.push(check));
        check();
      });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

    // 5 MiB without a newline yet, then the newline: one over-long line.
    const start = '{"id":"big","type":"prompt","message":"' + 'x'.repeat(5 * 1024 * 1024);
    child.stdin.write(start);
    child.stdin.write('"}\n');
    const [tooLong] = await outLines(1);
    expect(JSON.parse(tooLong)).toEqual({
      type: 'response',
      command: 'parse',
      success: false,
      error: `replay miss: line 1 (${start.length + 3} bytes) is longer than the replay's limit of 65536 bytes; --max-request-body <bytes> raises it`,
    });
    // The id itself nests 10,000 deep: an answer that echoed it would overflow JSON.stringify.
    child.stdin.write('{"id":' + '['.repeat(10_000) + ']'.repeat(10_000) + ',"type":"get_state"}\n');
    const [, deep] = await outLines(2);
    expect(JSON.parse(deep)).toMatchObject({ type: 'response', command: 'parse', success: false });
    expect((JSON.parse(deep) as { error: string }).error).toContain('its JSON nests deeper than 512 levels, so it is compared byte for byte');
    // The control line: the recorded request gets the recorded answer.
    child.stdin.write('{"id":"1","type":"get_state"}\n');
    const [, , answer] = await outLines(3);
    expect(JSON.parse(answer)).toEqual({ id: '1', type: 'response', command: 'get_state', success: true, data: { model: null } });
    child.stdin.end();
    expect(await exited).toBe(0);
    const missLines = stderr.split('\n').filter((l) => l.startsWith('agent-proxy: replay miss'));
    expect(missLines).toHaveLength(2);
    for (const l of missLines) expect(l.length).toBeLessThan(600);
    expect(stderr).not.toContain('RangeError');
  });
});

describe('replay --stdio: a recorded line nested 10,000 deep', () => {
  it('is compared byte for byte, never walked: a shallow line misses, the same line gets its recorded answer', async () => {
    // Written with the store directly: the recorded client line is JSON nested 10,000 deep.
    const deep = '{"id":"d","type":"get_state","x":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}\n';
    const answer = '{"id":"d","type":"response","command":"get_state","success":true}\n';
    const file = scratch('agent-proxy-limits-').file('deep.db');
    verdictsWrittenByHand(file);
    const writer = RecordingWriter.open(file, { toolVersion: '0.1.0', mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
    const id = writer.beginExchange({ transport: 'stdio', protocol: 'pi-rpc', tOffsetMs: 0 });
    const verdict = { status: 'unchecked' as const, findings: [] };
    writer.addMessage({ exchangeId: id, sender: 'client', carrier: 'line', channel: 'stdin', tOffsetMs: 1, raw: Buffer.from(deep), jsonText: deep.trimEnd(), verdict });
    writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'line', channel: 'stdout', tOffsetMs: 2, raw: Buffer.from(answer), json: JSON.parse(answer), verdict });
    writer.endExchange(id, { outcome: 'complete', tOffsetMs: 3, exitCode: 0 });
    writer.close(new Date('2026-01-01T00:00:01Z'));

    const child = spawn(process.execPath, [BIN, 'replay', '--stdio', file, '--timing', 'none', '--strict'], { cwd: REPO, env: { ...process.env, NO_COLOR: '1' } });
    onCleanup(() => void child.kill('SIGKILL'));
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // A shallow line is compared with the deep recorded one (a miss, not a crash); then the very line.
    child.stdin.write('{"id":"s","type":"get_state"}\n');
    child.stdin.end(deep);
    // --strict: exit 1 for the one miss; the deep line matched, so nothing was left unused.
    expect(await exited).toBe(1);
    const [missAnswer, played, rest] = stdout.split('\n');
    expect(JSON.parse(missAnswer)).toMatchObject({ id: 's', type: 'response', command: 'get_state', success: false });
    expect(played + '\n').toBe(answer);
    expect(rest).toBe('');
    expect(stderr).toContain('agent-proxy: --strict: 1 miss and 0 unused lines');
    expect(stderr).not.toContain('RangeError');
  });
});
