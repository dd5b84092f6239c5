/**
 * `proxy record` in front of the AG-UI stand-in: real servers on 127.0.0.1 (or unix sockets),
 * real clients (@ag-ui/client HttpAgent, fetch, node:http), real SQLite files.
 * Every test compares "through the proxy" with "directly", then reads the recording back.
 */
import { describe, expect, it } from 'vitest';
import { statSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpAgent } from '@ag-ui/client';
import { EventEncoder } from '@ag-ui/encoder';
import { EventType, type BaseEvent, type Message, type RunAgentInput } from '@ag-ui/core';
import { startRecorder, type RecorderOptions, type RunningRecorder } from '../../src/record/start-recorder.js';
import type { LiveEvent } from '../../src/record/live-events.js';
import { RecordingReader, type ExchangeRow, type MessageRow } from '../../src/store/recording-reader.js';
import { AGUI_MEDIA_TYPE, defaultAguiScript, ProtobufHttpAgent } from '../support/agui-agent.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { bareRegistry } from '../support/shared.js';
import { closedPort, committedServerRows, endpoint, postRun, rawRequest, runInput, sseBlocks } from './record-helpers.js';
import { waitFor, within } from '../support/waits.js';
import { ManualClock } from '../support/manual-clock.js';

const AGUI_SCHEMA = 'https://ag-ui.com/spec/draft/schema.json';

// ---------------------------------------------------------------------------------------------
// fixtures

const cleanups = fixturesAfterEach();
const { agui, scratch } = cleanups;

interface Recording {
  recorder: RunningRecorder;
  /** Stops the recorder (idempotent) and opens the file. */
  read(): Promise<RecordingReader>;
}

async function record(target: string, options: Partial<RecorderOptions> = {}): Promise<Recording> {
  const dir = scratch();
  const recorder = await startRecorder({ target, listen: 0, out: dir.file('run.db'), registry: bareRegistry(), ...options });
  let reader: RecordingReader | undefined;
  cleanups.push(async () => {
    reader?.close();
    await recorder.close();
  });
  return {
    recorder,
    async read() {
      await recorder.close();
      reader ??= RecordingReader.open(recorder.out);
      return reader;
    },
  };
}

function onlyExchange(reader: RecordingReader): ExchangeRow {
  const exchanges = reader.exchanges();
  expect(exchanges).toHaveLength(1);
  return exchanges[0];
}

const serverRows = (reader: RecordingReader, id: number): MessageRow[] => reader.messages(id).filter((m) => m.sender === 'server');
const eventRows = (rows: MessageRow[]): MessageRow[] => rows.filter((m) => m.channel !== 'comment');
const concat = (rows: MessageRow[]): Buffer => Buffer.concat(rows.map((m) => m.raw));

const sseOf = (events: BaseEvent[]): string => {
  const encoder = new EventEncoder({ accept: 'text/event-stream' });
  return events.map((e) => encoder.encodeSSE(e)).join('');
};

function expectValidRunAgentInput(row: MessageRow | undefined, input: Pick<RunAgentInput, 'threadId' | 'runId'>): void {
  expect(row, 'the request body row').toBeDefined();
  expect(row!.carrier).toBe('body');
  expect(row!.verdict.status).toBe('valid');
  expect(row!.verdict.findings).toEqual([]);
  expect(row!.verdict.schemaRef).toBe(`${AGUI_SCHEMA}#RunAgentInput`);
  expect(row!.json).toMatchObject({ threadId: input.threadId, runId: input.runId });
}

/** Reads a fetch body to the end, or to the error that ended it. */
async function drain(body: ReadableStream<Uint8Array> | ReadableStreamDefaultReader<Uint8Array>): Promise<{ bytes: Buffer; error?: unknown }> {
  const reader = body instanceof ReadableStream ? body.getReader() : body;
  const chunks: Buffer[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks) };
      chunks.push(Buffer.from(value));
    }
  } catch (error) {
    return { bytes: Buffer.concat(chunks), error };
  }
}

// ---------------------------------------------------------------------------------------------

describe('proxy record: AG-UI through the official client', () => {
  async function runWith(Agent: typeof HttpAgent, url: string, threadId: string, runId: string) {
    const agent = new Agent({ url, threadId, initialMessages: [{ id: 'u1', role: 'user', content: 'Hi' }], initialState: { counter: 0 } });
    const seen: BaseEvent[] = [];
    await agent.runAgent({ runId }, { onEvent: ({ event }) => void seen.push(event) });
    return { messages: agent.messages as Message[], state: agent.state as unknown, seen };
  }

  for (const [transport, Agent, contentType] of [
    ['sse', HttpAgent, 'text/event-stream'],
    ['proto', ProtobufHttpAgent, AGUI_MEDIA_TYPE],
  ] as const) {
    it(`HttpAgent materialises the same run through the proxy as directly (${transport}); every event is recorded in order and valid`, async () => {
      const a = await agui();
      const rec = await record(a.url);
      const direct = await runWith(Agent, `${a.url}/agent`, 'thread-rec', 'run-rec');
      const proxied = await runWith(Agent, `${rec.recorder.url}/agent`, 'thread-rec', 'run-rec');

      // The client sees the same thing either way, and the run really did something.
      expect(proxied.messages).toEqual(direct.messages);
      expect(proxied.state).toEqual(direct.state);
      expect(proxied.state).toEqual({ counter: 1, status: 'done' });
      expect(proxied.messages.find((m) => m.id === 'msg-1')).toMatchObject({ role: 'assistant', content: 'Hello from the AG-UI stand-in.' });
      expect(proxied.seen.map((e) => e.type)).toEqual(direct.seen.map((e) => e.type));
      expect(a.requests.map((r) => r.contentType)).toEqual([contentType, contentType]);
      expect(a.requests[1].rawBody).toBe(a.requests[0].rawBody);

      const reader = await rec.read();
      const exchange = onlyExchange(reader);
      expect(exchange).toMatchObject({ transport, protocol: 'agui', method: 'POST', path: '/agent', status: 200, outcome: 'complete', invalidCount: 0 });
      const rows = reader.messages(exchange.id);
      expect(rows.map((m) => m.seq)).toEqual(rows.map((_, i) => i + 1));
      const [request, ...events] = rows;
      expect(request.sender).toBe('client');
      expect(request.raw.toString()).toBe(a.requests[1].rawBody);
      expectValidRunAgentInput(request, { threadId: 'thread-rec', runId: 'run-rec' });

      const expected = defaultAguiScript({ ...runInput('thread-rec', 'run-rec') });
      expect(events).toHaveLength(expected.length);
      expect(events.map((m) => m.sender)).toEqual(expected.map(() => 'server'));
      expect(events.map((m) => m.carrier)).toEqual(expected.map(() => 'event'));
      expect(events.map((m) => (m.json as BaseEvent).type)).toEqual(expected.map((e) => e.type));
      for (const [i, row] of events.entries()) {
        expect(row.json, `event #${i}`).toMatchObject(expected[i] as object);
        expect(row.verdict.status, `event #${i} ${expected[i].type}`).toBe('valid');
        expect(row.verdict.findings).toEqual([]);
        expect(row.verdict.schemaRef).toMatch(/^https:\/\/ag-ui\.com\/spec\/draft\/schema\.json#\w+Event$/);
      }
      const encoder = new EventEncoder({ accept: contentType });
      const wire = transport === 'sse' ? Buffer.from(sseOf(expected)) : Buffer.concat(expected.map((e) => Buffer.from(encoder.encodeBinary(e))));
      expect(concat(events).equals(wire)).toBe(true);
      expect(reader.totals()).toMatchObject({ exchanges: 1, messages: expected.length + 1, invalid: 0 });
    });
  }
});

describe('proxy record: bytes and headers pass through unchanged', () => {
  it('forwards SSE extras (comments, event:/id:, CRLF, split data) byte for byte and records every block, comments included', async () => {
    const a = await agui({ extraSse: true });
    const rec = await record(a.url);
    const body = JSON.stringify(runInput());
    const headers = { 'content-type': 'application/json', accept: 'text/event-stream' };
    const direct = await rawRequest({ url: a.url }, 'POST', '/', headers, body);
    const proxied = await rawRequest({ url: rec.recorder.url }, 'POST', '/', headers, body);
    expect(direct.body.toString()).toContain('\r\n\r\n');
    expect(direct.body.toString().startsWith(': keep-alive\n\n')).toBe(true);
    expect(proxied.body.equals(direct.body)).toBe(true);

    const reader = await rec.read();
    const exchange = onlyExchange(reader);
    expect(exchange).toMatchObject({ transport: 'sse', protocol: 'agui', outcome: 'complete', invalidCount: 0 });
    const rows = serverRows(reader, exchange.id);
    expect(concat(rows).equals(proxied.body)).toBe(true);

    const comments = rows.filter((m) => m.channel === 'comment');
    expect(comments.map((m) => m.raw.toString())).toEqual([': keep-alive\n\n', ': keep-alive\n\n', ': keep-alive\n\n']);
    for (const c of comments) {
      expect(c.verdict.status).toBe('unchecked');
      expect(c.json).toBeUndefined();
    }
    const events = eventRows(rows);
    expect(events.map((m) => m.json)).toEqual(defaultAguiScript(runInput()));
    expect(events.every((m) => m.verdict.status === 'valid')).toBe(true);
    // The odd framings are stored as they travelled, not re-encoded.
    expect(events[1].raw.toString()).toMatch(/^event: TEXT_MESSAGE_START\r\nid: 2\r\ndata: \{.*\}\r\n\r\n$/);
    expect(events[2].raw.toString()).toMatch(/^id: 3\nevent: TEXT_MESSAGE_CONTENT\ndata: /);
    expect(events[3].raw.toString().match(/^data: /gm)).toHaveLength(2);
  });

  it('passes request and response headers through unchanged', async () => {
    const a = await agui();
    const rec = await record(a.url);
    const body = JSON.stringify(runInput());
    // Parameters, quotes and odd spacing inside values.
    const headers = { 'Content-Type': 'application/json;  charset=UTF-8', Accept: 'text/event-stream, */*;q=0', 'X-Custom': 'Some "Value"; a=1,  b=2' };
    const direct = await rawRequest({ url: a.url }, 'POST', '/custom', headers, body);
    const proxied = await rawRequest({ url: rec.recorder.url }, 'POST', '/custom', headers, body);
    expect(proxied.body.equals(direct.body)).toBe(true);

    const [viaDirect, viaProxy] = a.requests;
    expect(viaProxy.headers['content-type']).toBe('application/json;  charset=UTF-8');
    expect(viaProxy.headers.accept).toBe('text/event-stream, */*;q=0');
    expect(viaProxy.headers['x-custom']).toBe('Some "Value"; a=1,  b=2');
    for (const name of ['content-type', 'accept', 'x-custom', 'content-length']) expect(viaProxy.headers[name], name).toBe(viaDirect.headers[name]);
    expect(viaProxy.rawBody).toBe(body);
    expect(viaProxy.path).toBe('/custom');

    expect(proxied.headers['content-type']).toBe('text/event-stream');
    expect(proxied.headers['content-type']).toBe(direct.headers['content-type']);
    expect(proxied.headers['cache-control']).toBe('no-cache');

    // Protobuf: the exact media type matters to the client (it compares with ===).
    const proto = await rawRequest({ url: rec.recorder.url }, 'POST', '/', { 'content-type': 'application/json', accept: AGUI_MEDIA_TYPE }, body);
    expect(proto.headers['content-type']).toBe(AGUI_MEDIA_TYPE);

    const reader = await rec.read();
    const [first] = reader.exchanges();
    expect(first.requestHeaders).toMatchObject({ 'Content-Type': 'application/json;  charset=UTF-8', 'X-Custom': 'Some "Value"; a=1,  b=2' });
    expect(first.responseHeaders).toMatchObject({ 'Content-Type': 'text/event-stream' });
  });

  it('forwards a broken run unchanged and records first-event-must-be-run-started on its first event', async () => {
    const a = await agui({ script: 'broken-content-before-start' });
    const rec = await record(a.url);
    const direct = await (await postRun(a.url)).arrayBuffer();
    const proxied = await (await postRun(rec.recorder.url)).arrayBuffer();
    expect(Buffer.from(proxied).equals(Buffer.from(direct))).toBe(true);

    const reader = await rec.read();
    const exchange = onlyExchange(reader);
    expect(exchange).toMatchObject({ transport: 'sse', protocol: 'agui', outcome: 'complete' });
    expect(exchange.invalidCount).toBeGreaterThanOrEqual(1);
    const events = serverRows(reader, exchange.id);
    expect(concat(events).equals(Buffer.from(proxied))).toBe(true);
    expect(events[0].json).toMatchObject({ type: 'TEXT_MESSAGE_CONTENT', delta: 'too early' });
    expect(events[0].verdict.status).toBe('invalid');
    expect(events[0].verdict.findings).toContainEqual(expect.objectContaining({ rule: 'first-event-must-be-run-started', severity: 'error', pointer: '/type' }));
    // The run after the bad first event starts normally.
    expect(events[1].json).toMatchObject({ type: 'RUN_STARTED' });
    expect(events[1].verdict.findings.map((f) => f.rule)).not.toContain('first-event-must-be-run-started');
  });

  it('gzip: the client gets the compressed bytes unchanged; the recording holds the decoded events, valid', async () => {
    const a = await agui({ gzip: true });
    const rec = await record(a.url);
    const body = JSON.stringify(runInput());
    const headers = { 'content-type': 'application/json', accept: 'text/event-stream', 'accept-encoding': 'gzip' };
    const direct = await rawRequest({ url: a.url }, 'POST', '/', headers, body);
    const proxied = await rawRequest({ url: rec.recorder.url }, 'POST', '/', headers, body);
    expect(direct.headers['content-encoding']).toBe('gzip');
    expect(proxied.headers['content-encoding']).toBe('gzip');
    expect(a.requests[1].gzip).toBe(true);
    expect(a.requests[1].headers['accept-encoding']).toBe('gzip');
    expect(proxied.body.equals(direct.body)).toBe(true);
    const plain = sseOf(defaultAguiScript(runInput()));
    expect(gunzipSync(proxied.body).toString()).toBe(plain);
    expect(proxied.body.toString('latin1')).not.toContain('RUN_STARTED');

    const reader = await rec.read();
    const exchange = onlyExchange(reader);
    expect(exchange).toMatchObject({ transport: 'sse', protocol: 'agui', outcome: 'complete', invalidCount: 0 });
    expect(exchange.responseHeaders).toMatchObject({ 'Content-Encoding': 'gzip' });
    const events = serverRows(reader, exchange.id);
    expect(concat(events).toString()).toBe(plain);
    expect(events.map((m) => m.json)).toEqual(defaultAguiScript(runInput()));
    expect(events.map((m) => m.verdict.status)).toEqual(events.map(() => 'valid'));
  });

  it('does not buffer: each event reaches the client, and is recorded, while the agent waits to send the next', async () => {
    const script = (input: RunAgentInput) =>
      [
        { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId },
        { type: EventType.TEXT_MESSAGE_START, messageId: 'm', role: 'assistant' },
        { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm', delta: 'slow' },
        { type: EventType.TEXT_MESSAGE_END, messageId: 'm' },
        { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId },
      ] as BaseEvent[];
    // The agent paces its events on a clock only the test moves: between two steps it has sent what it has sent, and waits.
    const clock = new ManualClock();
    const a = await agui({ script, eventDelayMs: 100, sleep: (ms) => clock.sleep(ms) });
    const rec = await record(a.url);
    const res = await postRun(rec.recorder.url);
    const reader = res.body!.getReader();
    let received = Buffer.alloc(0);
    for (let sent = 1; sent <= 5; sent++) {
      if (sent < 5) await within(clock.sleeping(), `the agent to wait after event ${sent}`);
      else await within(a.requests[0].finished, 'the agent to finish');
      expect(a.requests[0].eventsSent).toBe(sent);
      // The event the agent just sent reaches the client now, not when the stream ends...
      while (sseBlocks(received).length < sent) {
        const { done, value } = await within(reader.read(), `event ${sent} at the client`);
        expect(done, `the body ended before event ${sent}`).toBe(false);
        received = Buffer.concat([received, Buffer.from(value!)]);
      }
      expect(sseBlocks(received)).toHaveLength(sent);
      // ...and is in the recording before the next one is sent: recorded as it passed, not all at the end.
      await waitFor(() => committedServerRows(rec.recorder.out) >= sent, `event ${sent} in the recording`);
      if (sent < 5) {
        expect(a.requests[0].closedAt).toBeUndefined();
        clock.advanceTo(clock.nextDeadline()!);
      }
    }
    expect(received.toString()).toMatch(/^data: \{"type":"RUN_STARTED"/);
    expect((await within(reader.read(), 'the end of the body')).done).toBe(true);

    const recording = await rec.read();
    const events = serverRows(recording, onlyExchange(recording).id);
    expect(events.map((m) => (m.json as { type: string }).type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED']);
    expect(concat(events).equals(received)).toBe(true);
  });

  it('--max-body: a bigger event is forwarded whole and stored truncated with an oversized-message warning', async () => {
    const big = 'x'.repeat(5000);
    const script = (input: RunAgentInput) =>
      [
        { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId },
        { type: EventType.TEXT_MESSAGE_START, messageId: 'm', role: 'assistant' },
        { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm', delta: big },
        { type: EventType.TEXT_MESSAGE_END, messageId: 'm' },
        { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId },
      ] as BaseEvent[];
    const a = await agui({ script });
    const limit = 1000;
    const rec = await record(a.url, { maxBodyBytes: limit });
    const direct = Buffer.from(await (await postRun(a.url)).arrayBuffer());
    const proxied = Buffer.from(await (await postRun(rec.recorder.url)).arrayBuffer());
    expect(proxied.equals(direct)).toBe(true);
    expect(proxied.toString()).toContain(big);

    const reader = await rec.read();
    const exchange = onlyExchange(reader);
    const events = serverRows(reader, exchange.id);
    expect(events).toHaveLength(5);
    const blocks = sseBlocks(proxied);
    const bigRow = events[2];
    expect(bigRow.rawTruncatedFrom).toBe(blocks[2].length);
    expect(bigRow.raw.length).toBe(limit);
    expect(bigRow.raw.equals(blocks[2].subarray(0, limit))).toBe(true);
    expect(bigRow.verdict.status).toBe('unchecked');
    expect(bigRow.verdict.findings).toEqual([expect.objectContaining({ rule: 'oversized-message', severity: 'warning' })]);
    // Everything under the limit is stored whole and judged.
    for (const i of [0, 1, 3, 4]) {
      expect(events[i].rawTruncatedFrom).toBeNull();
      expect(events[i].raw.equals(blocks[i])).toBe(true);
      expect(events[i].verdict.status, `event #${i}`).toBe('valid');
    }
    expect(exchange.outcome).toBe('complete');
  });
});

describe('proxy record: streams that end badly', () => {
  it('a client abort mid-SSE reaches the agent, and the exchange is recorded as aborted', async () => {
    const a = await agui({ script: 'endless', intervalMs: 5 });
    const rec = await record(a.url);
    const controller = new AbortController();
    const res = await postRun(rec.recorder.url, {}, runInput(), controller.signal);
    const reader = res.body!.getReader();
    let text = '';
    while ((text.match(/TEXT_MESSAGE_CONTENT/g) ?? []).length < 3) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await reader.read().catch(() => undefined);
    expect(await within(a.requests[0].aborted, 'the agent to see the abort')).toBe(true);
    const sent = a.requests[0].eventsSent;

    const recording = await rec.read();
    const exchange = onlyExchange(recording);
    expect(exchange).toMatchObject({ transport: 'sse', protocol: 'agui', status: 200, outcome: 'aborted', errorCode: 'E_CLIENT_ABORTED' });
    expect(exchange.endedMs).not.toBeNull();
    const events = serverRows(recording, exchange.id);
    expect(events.length).toBeGreaterThanOrEqual(5);
    expect(events.length).toBeLessThanOrEqual(sent);
    expect(events.slice(0, 2).map((m) => (m.json as BaseEvent).type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START']);
    expect(events.slice(2).every((m) => (m.json as BaseEvent).type === 'TEXT_MESSAGE_CONTENT')).toBe(true);
    // What the client read is a prefix of what was recorded.
    expect(concat(events).toString().startsWith(text)).toBe(true);
    // The client cut the run, not the agent: no `stream-truncated` on the agent's last event.
    expect(events.map((m) => m.verdict)).toEqual(events.map(() => expect.objectContaining({ status: 'valid', findings: [] })));
    expect(exchange.invalidCount).toBe(0);
  });

  it('an upstream reset mid-stream ends the client body abruptly and is recorded as aborted with the events that arrived', async () => {
    const a = await agui({ script: 'reset-mid-stream' });
    const live: LiveEvent[] = [];
    const rec = await record(a.url, { listener: (event) => live.push(event) });
    const res = await postRun(rec.recorder.url);
    expect(res.status).toBe(200);
    const { bytes, error } = await drain(res.body!);
    expect(error, 'the body read must fail, not end cleanly').toBeInstanceOf(Error);
    const expected = sseOf(defaultAguiScript(runInput()).slice(0, 4));
    expect(bytes.toString()).toBe(expected);

    const recording = await rec.read();
    const exchange = onlyExchange(recording);
    expect(exchange).toMatchObject({ transport: 'sse', protocol: 'agui', status: 200, outcome: 'aborted', errorCode: 'E_UPSTREAM_RESET' });
    const events = serverRows(recording, exchange.id);
    expect(events.map((m) => (m.json as BaseEvent).type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT']);
    expect(concat(events).toString()).toBe(expected);
    expect(events.slice(0, 3).every((m) => m.verdict.status === 'valid')).toBe(true);
    // The agent's side broke off: that one is a protocol finding.
    expect(events.at(-1)!.verdict.findings.map((f) => f.rule)).toEqual(['stream-truncated']);
    // The live view hears of it too, on the last event, before the exchange's end.
    expect(live.map((e) => (e.type === 'invalid-message' ? [e.type, e.label, e.findings.map((f) => f.rule)] : [e.type]))).toEqual([
      ['invalid-message', 'TEXT_MESSAGE_CONTENT', ['stream-truncated']],
      ['exchange-end'],
    ]);
  });

  it('closing the recorder mid-stream (gzip) ends the stream, stops the agent and still records the exchange', async () => {
    const a = await agui({ script: 'endless', intervalMs: 5, gzip: true });
    const rec = await record(a.url);
    const res = await postRun(rec.recorder.url, { 'accept-encoding': 'gzip' });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const reader = res.body!.getReader();
    let text = '';
    // fetch decompresses: the client reads plain SSE.
    while ((text.match(/TEXT_MESSAGE_CONTENT/g) ?? []).length < 5) text += new TextDecoder().decode((await reader.read()).value);
    const reading = drain(reader);

    // Stops accepting, cuts the open stream and resolves only once the exchange is in the file.
    const totals = await within(rec.recorder.close(), 'the recorder to close');
    expect(totals.exchanges).toBe(1);
    // The body is ended at an HTTP level; a gzip stream cut there may still fail to inflate in the client.
    await reading;
    expect(await within(a.requests[0].aborted, 'the agent to see the cut')).toBe(true);

    const recording = await rec.read();
    const exchange = onlyExchange(recording);
    expect(exchange).toMatchObject({ transport: 'sse', protocol: 'agui', outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN' });
    expect(exchange.endedMs).not.toBeNull();
    const events = serverRows(recording, exchange.id);
    expect(events.length).toBeGreaterThanOrEqual(7);
    // Decoded, whole events, a prefix of the run.
    expect(events.slice(0, 2).map((m) => (m.json as BaseEvent).type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START']);
    expect(events.slice(2).every((m) => (m.json as BaseEvent).type === 'TEXT_MESSAGE_CONTENT')).toBe(true);
    expect(concat(events).toString().startsWith(text)).toBe(true);
    // The shutdown cut the run, not the agent: no `stream-truncated` on the agent's last event.
    expect(events.map((m) => m.verdict)).toEqual(events.map(() => expect.objectContaining({ status: 'valid', findings: [] })));
    expect(exchange.invalidCount).toBe(0);
    expect(recording.recording().endedAt).toBeDefined();
    expect(totals.messages).toBe(recording.totals().messages);
  });

  it('protobuf: a frame over the client limit is forwarded whole, stored truncated with its size, and framing goes on', async () => {
    const encoder = new EventEncoder({ accept: AGUI_MEDIA_TYPE });
    const started = Buffer.from(encoder.encodeBinary({ type: EventType.RUN_STARTED, threadId: 'thread-1', runId: 'run-1' } as BaseEvent));
    const finished = Buffer.from(encoder.encodeBinary({ type: EventType.RUN_FINISHED, threadId: 'thread-1', runId: 'run-1' } as BaseEvent));
    const hugePayload = 10 * 1024 * 1024 + 100;
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(hugePayload);
    const server = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': AGUI_MEDIA_TYPE });
      res.write(started);
      res.write(prefix);
      // The big frame in 64 KiB writes, as a streaming agent would send it.
      for (let sent = 0; sent < hugePayload; sent += 65536) res.write(Buffer.alloc(Math.min(65536, hugePayload - sent), 0x2a));
      res.end(finished);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const body = JSON.stringify(runInput());
    // Stored truncated to --max-body, or to the client's limit when --max-body is larger.
    for (const maxBodyBytes of [65536, 32 * 1024 * 1024]) {
      const rec = await record(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { maxBodyBytes });
      const proxied = await rawRequest({ url: rec.recorder.url }, 'POST', '/', { 'content-type': 'application/json', accept: AGUI_MEDIA_TYPE }, body);
      expect(proxied.body.length).toBe(started.length + 4 + hugePayload + finished.length);
      expect(proxied.body.subarray(0, started.length).equals(started)).toBe(true);
      expect(proxied.body.subarray(proxied.body.length - finished.length).equals(finished)).toBe(true);

      const reader = await rec.read();
      const exchange = onlyExchange(reader);
      expect(exchange).toMatchObject({ transport: 'proto', protocol: 'agui', outcome: 'complete' });
      const events = serverRows(reader, exchange.id);
      expect(events).toHaveLength(3);
      expect(events[0].json).toMatchObject({ type: 'RUN_STARTED' });
      expect(events[0].verdict.status).toBe('valid');
      const kept = Math.min(maxBodyBytes, 4 + 10 * 1024 * 1024);
      expect(events[1].raw.equals(proxied.body.subarray(started.length, started.length + kept))).toBe(true);
      expect(events[1].rawTruncatedFrom).toBe(4 + hugePayload);
      expect(events[1].verdict.status).toBe('invalid');
      expect(events[1].verdict.findings.map((f) => f.rule)).toEqual(maxBodyBytes < hugePayload ? ['invalid-json', 'oversized-message'] : ['invalid-json']);
      expect(events[1].verdict.findings[0].message).toBe(`a protobuf frame of ${hugePayload} bytes, more than the client's ${10 * 1024 * 1024}-byte limit; not decoded`);
      expect(events[2].json).toMatchObject({ type: 'RUN_FINISHED' });
      expect(events[2].verdict.status).toBe('valid');
    }
  });

  it('protobuf: an SSE body under the protobuf content type is one message saying so, not a frame announcing 1.7 GB', async () => {
    const sse = sseOf([
      { type: EventType.RUN_STARTED, threadId: 'thread-1', runId: 'run-1' } as BaseEvent,
      { type: EventType.RUN_FINISHED, threadId: 'thread-1', runId: 'run-1' } as BaseEvent,
    ]);
    for (const [body, start] of [
      [sse, 'data:'],
      [`: ping\n\n${sse}`, ':'],
      [`event: message\n${sse}`, 'event:'],
    ] as const) {
      const server = createHttpServer((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': AGUI_MEDIA_TYPE });
        // The opening split across writes: the start is told from the first bytes, however they come.
        res.write(body.slice(0, 2));
        res.end(body.slice(2));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
      const rec = await record(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const proxied = await rawRequest({ url: rec.recorder.url }, 'POST', '/', { 'content-type': 'application/json', accept: AGUI_MEDIA_TYPE }, JSON.stringify(runInput()));
      expect(proxied.body.toString()).toBe(body);

      const reader = await rec.read();
      const exchange = onlyExchange(reader);
      expect(exchange).toMatchObject({ transport: 'proto', protocol: 'agui', outcome: 'complete' });
      const rows = serverRows(reader, exchange.id);
      expect(rows).toHaveLength(1);
      expect(rows[0].raw.toString()).toBe(body);
      expect(rows[0].verdict.status).toBe('invalid');
      const messages = rows[0].verdict.findings.map((f) => f.message);
      expect(messages[0]).toMatch(new RegExp(`^the body looks like SSE \\(\`${start}\`\\) but the content type says protobuf`));
      expect(messages.join('\n')).not.toMatch(/announced/);
    }
  });

  it('an unreachable upstream gets a 502 with a JSON body naming what failed, recorded as error', async () => {
    const port = await closedPort();
    const target = `http://127.0.0.1:${port}`;
    const rec = await record(target);
    const res = await postRun(rec.recorder.url);
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { error: { code: string; message: string; target: string } };
    expect(body.error.code).toBe('upstream_unreachable');
    expect(body.error.target).toBe(target);
    expect(body.error.message).toContain(target);
    expect(body.error.message).toContain('ECONNREFUSED');

    const recording = await rec.read();
    const exchange = onlyExchange(recording);
    expect(exchange).toMatchObject({ method: 'POST', path: '/', status: 502, outcome: 'error', errorCode: 'E_UPSTREAM_UNREACHABLE' });
    expect(exchange.errorMessage).toContain('ECONNREFUSED');
    // The request still made it into the recording, judged against RunAgentInput. (It also carries the
    // stream-level `stream-truncated` finding, since no run ever started; only the schema part is asserted.)
    const rows = recording.messages(exchange.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ sender: 'client', carrier: 'body', json: runInput() });
    expect(rows[0].verdict.schemaRef).toBe(`${AGUI_SCHEMA}#RunAgentInput`);
    expect(rows[0].verdict.findings.filter((f) => f.rule.startsWith('schema'))).toEqual([]);
  });
});

describe('proxy record: unix sockets', () => {
  it('listens on unix: (mode 0600) and forwards to a unix: target', async () => {
    const dir = scratch();
    const agentSocket = dir.file('agent.sock');
    const proxySocket = dir.file('proxy.sock');
    const a = await agui({ listen: { path: agentSocket } });
    const rec = await record(`unix:${agentSocket}`, { listen: `unix:${proxySocket}` });
    expect(rec.recorder.url).toBe(`unix:${proxySocket}`);
    const stat = statSync(proxySocket);
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);

    const body = JSON.stringify(runInput());
    const headers = { 'content-type': 'application/json', accept: 'text/event-stream' };
    const direct = await rawRequest({ socketPath: agentSocket }, 'POST', '/run', headers, body);
    const proxied = await rawRequest(endpoint(rec.recorder.url), 'POST', '/run', headers, body);
    expect(proxied.status).toBe(200);
    expect(proxied.body.equals(direct.body)).toBe(true);
    expect(proxied.body.toString()).toBe(sseOf(defaultAguiScript(runInput())));
    expect(a.requests[1].path).toBe('/run');

    const recording = await rec.read();
    expect(recording.recording().target).toBe(`unix:${agentSocket}`);
    const exchange = onlyExchange(recording);
    expect(exchange).toMatchObject({ transport: 'sse', protocol: 'agui', path: '/run', outcome: 'complete', invalidCount: 0 });
    expect(serverRows(recording, exchange.id)).toHaveLength(14);
    // A clean stop removes the socket file.
    expect(existsSync(proxySocket)).toBe(false);
  });
});
