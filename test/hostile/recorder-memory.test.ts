/**
 * Hostile peers against the recording worker's memory, through the built CLI: bodies legal on the
 * wire that used to fill the worker's 64 MB heap (and once took the whole process down with it).
 * Each test asserts that the proxy survives, what the client got, what was stored, and that a
 * control request is still served; the last one, that a worker that ends anyway is said to have
 * ended at once and costs nothing but the recording.
 *
 * The cases that leave the recorder serving with its default options share one (a recorder's start,
 * with its worker, is ~0.5 s of CPU): each has a path of its own on one upstream, sees its control
 * request served and no recording-stopped event, and reads its messages once the recorder has stored
 * how its exchanges ended; after the last, the recorder must exit 0, having never stopped recording.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { scratch, tempDir } from '../support/temp-dir.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { BIN, spawnCli } from '../cli/run-cli.js';
import { spawnLines } from '../stdio/stdio-helpers.js';
import { CONTROL_BODY, exchangeFor, expectControlServed, fetchRaw, startJsonRecorder, startUpstream, waitForStderr, type JsonRecorder } from './recorder-under-test.js';
import { waitFor } from '../support/waits.js';

useCleanups();

const MB = 1024 * 1024;

/** The stored messages of the exchange for `path`, read after the recorder has exited. */
function storedMessages(out: string, path: string) {
  const reader = RecordingReader.open(out);
  try {
    const exchange = reader.exchanges().find((e) => e.path === path);
    expect(exchange, `an exchange for ${path} in ${out}`).toBeDefined();
    return reader.messages(exchange!.id);
  } finally {
    reader.close();
  }
}

/** Just under ten megabytes (--max-body) of legal JSON, even as an SSE event, that parses to twenty times that. */
const EMPTY_OBJECTS = Buffer.from(`[${'{},'.repeat(Math.floor((10 * MB - 32) / 3))}{}]`);

/** What the shared upstream writes for each case's path. */
const SSE_LINES = Buffer.from('a\n'.repeat(8 * MB));
const SSE_OF_OBJECTS = Buffer.concat([Buffer.from('data: '), EMPTY_OBJECTS, Buffer.from('\n\n')]);

/** Event.messagesSnapshot (field 9) holding a base event and 100,000 empty Message entries (field 2), as one frame. */
function snapshotFrame(): Buffer {
  const inner = Buffer.concat([Buffer.from('0a020808', 'hex'), Buffer.alloc(200_000, Buffer.from('1200', 'hex'))]);
  const event = Buffer.concat([Buffer.from([0x4a]), varint(inner.length), inner]);
  const frame = Buffer.concat([Buffer.alloc(4), event]);
  frame.writeUInt32BE(event.length);
  return frame;
}
const PROTO_FRAME = snapshotFrame();
const SNAPSHOT = JSON.stringify({ type: 'MESSAGES_SNAPSHOT', messages: new Array(50_000).fill(1) });
const SCHEMA_BODY = `data: ${JSON.stringify({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })}\n\ndata: ${SNAPSHOT}\n\n`;

const ROUTES: Record<string, (res: ServerResponse) => void> = {
  '/sse': (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(SSE_LINES),
  '/body': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(EMPTY_OBJECTS),
  '/events': (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(SSE_OF_OBJECTS),
  '/proto': (res) => res.writeHead(200, { 'content-type': 'application/vnd.ag-ui.event+proto' }).end(PROTO_FRAME),
  '/agent': (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(SCHEMA_BODY),
};

/**
 * One upstream (every case's path, any /control… path, and a WebSocket that sends ten megabytes of
 * empty objects) and one `record --json` in front of it, for the cases of a describe block.
 */
function sharedRecorder(): () => { recorder: JsonRecorder; out: string } {
  const folder = tempDir('agent-proxy-hostile-');
  const out = folder.file('shared.db');
  const kills: Array<() => Promise<void>> = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const route = ROUTES[req.url ?? ''];
      if (route) return route(res);
      if (req.url?.startsWith('/control')) return res.writeHead(200, { 'content-type': 'application/json' }).end(CONTROL_BODY);
      res.writeHead(404).end();
    });
  });
  server.on('connection', (socket) => sockets.add(socket));
  const wss = new WebSocketServer({ server, maxPayload: 64 * MB });
  wss.on('connection', (socket) => socket.send(EMPTY_OBJECTS.toString()));
  let recorder: JsonRecorder | undefined;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    recorder = await startJsonRecorder(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, out, [], undefined, (kill) => kills.push(kill));
  });
  afterAll(async () => {
    try {
      if (recorder) {
        expect(await recorder.stop()).toEqual({ code: 0, signal: null });
        expect(recorder.events().some((e) => e.event === 'recording-stopped')).toBe(false);
      }
    } finally {
      for (const kill of kills) await kill();
      wss.close();
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
      folder.cleanup();
    }
  });
  return () => ({ recorder: recorder!, out });
}

/** After a case's hostile part: its control request is served and recorded, and recording never stopped. */
async function expectStillRecording(recorder: JsonRecorder, control: string): Promise<void> {
  const got = await fetchRaw(`${recorder.url}${control}`);
  expect(got.status).toBe(200);
  expect(got.body.toString()).toBe(CONTROL_BODY);
  await recorder.waitForEvent(exchangeFor(control), `exchange ${control}`);
  expect(recorder.cli.child.exitCode).toBeNull();
  expect(recorder.events().some((e) => e.event === 'recording-stopped')).toBe(false);
}

/** The stored messages of the exchange for each path, once the running recorder has stored how each ended. */
function storedOnceEnded(out: string, paths: string[]): Promise<ReturnType<typeof storedMessages>[]> {
  return waitFor(
    () => {
      const reader = RecordingReader.open(out);
      try {
        const exchanges = paths.map((path) => reader.exchanges().find((e) => e.path === path));
        return exchanges.every((e) => e?.outcome) && exchanges.map((e) => reader.messages(e!.id));
      } finally {
        reader.close();
      }
    },
    `the exchanges ${paths.join(', ')} ended in ${out}`,
    { pollMs: 20 },
  );
}

describe('hostile bodies against one recorder, one after the other', () => {
  const shared = sharedRecorder();

  it('16 MB of one-byte lines as text/event-stream, with no blank line', async () => {
    const { recorder, out } = shared();
    const got = await fetchRaw(`${recorder.url}/sse`);
    expect(got.status).toBe(200);
    expect(got.body.equals(SSE_LINES)).toBe(true);
    await recorder.waitForEvent(exchangeFor('/sse'), 'exchange /sse');
    await expectStillRecording(recorder, '/control-sse');

    const [[block], [control]] = await storedOnceEnded(out, ['/sse', '/control-sse']);
    // One unterminated block, stored truncated to --max-body with its real size.
    expect(block.raw.equals(SSE_LINES.subarray(0, 10 * MB))).toBe(true);
    expect(block.rawTruncatedFrom).toBe(SSE_LINES.length);
    expect(block.verdict.findings.map((f) => f.rule)).toEqual(['oversized-message']);
    expect(control.raw.toString()).toBe('{"control":true}');
  });

  it.each([
    ['a whole JSON body', '/body', EMPTY_OBJECTS],
    ['one SSE event', '/events', SSE_OF_OBJECTS],
  ])('ten megabytes of empty objects as %s: stored whole, not parsed', async (_what, path, body) => {
    const { recorder, out } = shared();
    const got = await fetchRaw(`${recorder.url}${path}`);
    expect(got.body.equals(body)).toBe(true);
    await recorder.waitForEvent(exchangeFor(path), `exchange ${path}`);
    await expectStillRecording(recorder, `/control${path}`);

    const [[message], [control]] = await storedOnceEnded(out, [path, `/control${path}`]);
    expect(message.raw.equals(body)).toBe(true);
    expect(message.rawTruncatedFrom).toBeNull();
    expect(message.json).toBeUndefined();
    expect(message.verdict.status).toBe('unchecked');
    expect(message.verdict.findings).toEqual([expect.objectContaining({ rule: 'complex-message', severity: 'warning' })]);
    // The next message is parsed as usual.
    expect(control.json).toEqual({ control: true });
  });

  it('a WebSocket text frame of ten megabytes of empty objects', async () => {
    const { recorder, out } = shared();
    const client = new WebSocket(`${recorder.url.replace('http:', 'ws:')}/ws`, { maxPayload: 64 * MB });
    onCleanup(() => void client.terminate());
    const frame = await new Promise<Buffer>((resolve, reject) => {
      client.once('message', (data: Buffer) => resolve(data));
      client.once('error', reject);
    });
    expect(frame.equals(EMPTY_OBJECTS)).toBe(true);
    client.close(1000);
    await recorder.waitForEvent(exchangeFor('/ws'), 'exchange /ws');
    await expectStillRecording(recorder, '/control-ws');

    const [[message]] = await storedOnceEnded(out, ['/ws', '/control-ws']);
    expect(message).toMatchObject({ sender: 'server', carrier: 'frame', channel: 'text', rawTruncatedFrom: null });
    expect(message.raw.equals(EMPTY_OBJECTS)).toBe(true);
    expect(message.verdict.findings).toEqual([expect.objectContaining({ rule: 'complex-message' })]);
  });

  it('a 200 KB protobuf MESSAGES_SNAPSHOT of 100,000 empty messages: stored, not decoded', async () => {
    const { recorder, out } = shared();
    const got = await fetchRaw(`${recorder.url}/proto`);
    expect(got.body.equals(PROTO_FRAME)).toBe(true);
    await recorder.waitForEvent(exchangeFor('/proto'), 'exchange /proto');
    await expectStillRecording(recorder, '/control-proto');

    const [[message]] = await storedOnceEnded(out, ['/proto', '/control-proto']);
    expect(message.raw.equals(PROTO_FRAME)).toBe(true);
    expect(message.verdict.findings).toEqual([expect.objectContaining({ rule: 'complex-message' })]);
  });

  it('an AG-UI event of 50,000 array items that each fail the schema: judged, with its findings bounded', async () => {
    const { recorder, out } = shared();
    const input = { threadId: 't', runId: 'r', state: {}, messages: [], tools: [], context: [], forwardedProps: {} };
    const got = await fetchRaw(`${recorder.url}/agent`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(input) });
    expect(got.body.toString()).toBe(SCHEMA_BODY);
    const exchange = await recorder.waitForEvent(exchangeFor('/agent'), 'exchange /agent');
    expect(exchange).toMatchObject({ protocol: 'agui', messages: 3, stored: true });
    await expectStillRecording(recorder, '/control-agent');

    const [[, , event]] = await storedOnceEnded(out, ['/agent', '/control-agent']);
    expect(event.raw.toString()).toBe(`data: ${SNAPSHOT}\n\n`);
    expect(event.verdict.status).toBe('invalid');
    expect(event.verdict.findings.length).toBeGreaterThan(0);
    expect(event.verdict.findings.length).toBeLessThanOrEqual(101);
  });
});

describe('hostile bodies against the recorder', () => {
  it('--stdio: an agent whose first line is ten megabytes of empty objects', async () => {
    const out = scratch('agent-proxy-hostile-').file('stdio.db');
    const control = '{"type":"response","command":"get_state","success":true}';
    // The protocol is not known yet when the line comes: it goes through the stdio sniffer first.
    const agent = `process.stdout.write('[' + '{},'.repeat(${Math.floor((10 * MB - 32) / 3)}) + '{}]\\n' + '${control}\\n')`;
    const proxy = spawnLines('node', [BIN, 'record', '--stdio', '--quiet', '--out', out, '--', process.execPath, '-e', agent]);
    onCleanup(() => void proxy.child.kill('SIGKILL'));
    proxy.child.stdin.end();
    expect(await proxy.exited).toEqual({ code: 0, signal: null });
    expect(proxy.stdout().equals(Buffer.concat([EMPTY_OBJECTS, Buffer.from(`\n${control}\n`)]))).toBe(true);
    expect(proxy.stderr()).toBe('');
    const reader = RecordingReader.open(out);
    try {
      const [line, answer] = reader.messages(reader.exchanges()[0].id);
      expect(line.raw.length).toBe(EMPTY_OBJECTS.length + 1);
      expect(line.verdict.findings).toEqual([expect.objectContaining({ rule: 'complex-message' })]);
      expect(answer.json).toEqual(JSON.parse(control));
    } finally {
      reader.close();
    }
  });

  it('a WebSocket message far over --max-body: forwarded whole, only its start handed to the recorder', async () => {
    const big = Buffer.alloc(24 * MB, 0x61);
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(CONTROL_BODY));
    const wss = new WebSocketServer({ server, maxPayload: 64 * MB });
    wss.on('connection', (socket) => {
      socket.send(big, { binary: true });
      socket.send('{"after":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onCleanup(() => new Promise<void>((resolve) => (wss.close(), server.close(() => resolve()))));
    const out = scratch('agent-proxy-hostile-').file('ws-big.db');
    const recorder = await startJsonRecorder(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, out, ['--max-body', '65536']);

    const client = new WebSocket(`${recorder.url.replace('http:', 'ws:')}/ws`, { maxPayload: 64 * MB });
    onCleanup(() => void client.terminate());
    const frames = await new Promise<Buffer[]>((resolve, reject) => {
      const got: Buffer[] = [];
      client.on('message', (data: Buffer) => {
        got.push(data);
        if (got.length === 2) resolve(got);
      });
      client.once('error', reject);
    });
    expect(frames[0].equals(big)).toBe(true);
    expect(frames[1].toString()).toBe('{"after":true}');
    client.close(1000);
    await recorder.waitForEvent(exchangeFor('/ws'), 'exchange /ws');
    await expectControlServed(recorder);

    expect(await recorder.stop()).toEqual({ code: 0, signal: null });
    const [first, second] = storedMessages(out, '/ws');
    expect(first).toMatchObject({ carrier: 'frame', channel: 'binary', rawTruncatedFrom: big.length });
    expect(first.raw.equals(big.subarray(0, 65536))).toBe(true);
    expect(first.verdict.findings.map((f) => f.rule)).toEqual(['oversized-message']);
    expect(second).toMatchObject({ channel: 'text', rawTruncatedFrom: null, json: { after: true } });
  });

  it('a recording worker that ends anyway: said at once, traffic still forwarded, exit code 2', async () => {
    const target = await startUpstream({
      '/echo': (res, body) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ echoed: body.toString() }));
      },
    });
    const out = scratch('agent-proxy-hostile-').file('ended.db');
    // The test-only hook (see recording-worker-main.ts): the worker runs out of heap on this payload.
    const recorder = await startJsonRecorder(target, out, [], (args) => spawnCli(args, { AGENT_PROXY_TEST_RECORDER_OOM: 'EXHAUST-THE-RECORDER' }));

    expect((await fetchRaw(`${recorder.url}/echo`, { method: 'POST', body: '{"n":1}' })).body.toString()).toBe('{"echoed":"{\\"n\\":1}"}');
    expect(await recorder.waitForEvent(exchangeFor('/echo'), 'exchange /echo')).toMatchObject({ stored: true });
    // Written once its batch is (within 50 ms): what a worker that ends has written stays.
    await rowsWritten(out, 2);

    const fatal = await fetchRaw(`${recorder.url}/echo`, { method: 'POST', body: '{"n":"EXHAUST-THE-RECORDER"}' });
    expect(fatal.body.toString()).toBe('{"echoed":"{\\"n\\":\\"EXHAUST-THE-RECORDER\\"}"}');
    const stopped = await recorder.waitForEvent((e) => e.event === 'recording-stopped', 'recording-stopped');
    expect(stopped).toMatchObject({ reason: 'recorder-exited', code: 'E_RECORDER_EXITED', message: expect.stringMatching(/memory limit/) });
    expect(await waitForStderr(recorder.cli, /recording stopped/)).toMatch(/^agent-proxy: recording stopped, traffic is still forwarded: the recording worker failed: .*memory limit.*\n$/);

    // Forwarding goes on, unrecorded.
    for (let n = 3; n <= 5; n++) expect((await fetchRaw(`${recorder.url}/echo`, { method: 'POST', body: `{"n":${n}}` })).body.toString()).toBe(`{"echoed":"{\\"n\\":${n}}"}`);
    await expectControlServed(recorder);

    expect(await recorder.stop()).toEqual({ code: 2, signal: null });
    expect(recorder.events().filter((e) => e.event === 'recording-stopped')).toHaveLength(1);
    expect(recorder.events().at(-1)).toMatchObject({ event: 'summary', stored: false });
    expect(recorder.cli.stderr().match(/recording stopped/g)).toHaveLength(1);
    expect(recorder.cli.stderr()).toMatch(/\nagent-proxy: the recording is incomplete: .*\n$/);
    // What was recorded before stays readable.
    expect(storedMessages(out, '/echo').map((m) => m.raw.toString())).toEqual(['{"n":1}', '{"echoed":"{\\"n\\":1}"}']);
  });
});

/** Resolves once `count` messages are in the file (a reader polls it while the recorder writes: WAL). */
async function rowsWritten(out: string, count: number): Promise<void> {
  const messages = () => {
    const reader = RecordingReader.open(out);
    try {
      return reader.totals().messages;
    } finally {
      reader.close();
    }
  };
  await waitFor(() => messages() >= count, `${count} messages in ${out}`, { pollMs: 20 });
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n > 127) {
    bytes.push((n & 127) | 128);
    n >>>= 7;
  }
  bytes.push(n);
  return Buffer.from(bytes);
}
