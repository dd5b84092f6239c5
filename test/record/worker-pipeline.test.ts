/**
 * The recording worker: the CLI and the built package record in a worker thread, so forwarding
 * never waits on parsing, judging or SQLite. These tests run the built package (npm test builds
 * first) with pipeline 'worker' and check the recording is the same as the inline one.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpAgent } from '@ag-ui/client';
import { WebSocket } from 'ws';
import { startAguiAgent, type AguiAgent } from '../support/agui-agent.js';
import { startPiDaemon, type PiDaemon } from '../support/pi-daemon-standin.js';
import { startRecorder as startInline } from '../../src/record/start-recorder.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { tempDir } from '../support/temp-dir.js';
import { api } from './pi-helpers.js';

type StartRecorder = typeof startInline;
const dist = (await import(new URL('../../dist/index.js', import.meta.url).href)) as { startRecorder: StartRecorder };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function recordAguiRun(start: StartRecorder, pipeline: 'worker' | 'inline', agent: AguiAgent) {
  const dir = tempDir();
  cleanups.push(() => dir.cleanup());
  const out = dir.file(`${pipeline}.db`);
  const recorder = await start({ target: agent.url, listen: 0, out, pipeline });
  const client = new HttpAgent({ url: `${recorder.url}/agent`, threadId: 'thread-w' });
  client.messages = [{ id: 'u1', role: 'user', content: 'Hi' }];
  await client.runAgent({ runId: `run-${pipeline}` });
  const totals = await recorder.close();
  const reader = RecordingReader.open(out);
  cleanups.push(() => reader.close());
  return { totals, reader, state: client.state, messages: client.messages };
}

describe('recording in a worker thread', () => {
  it('records an AG-UI run exactly as the inline pipeline does', async () => {
    const agent = await startAguiAgent({ extraSse: true });
    cleanups.push(() => agent.close());
    const worker = await recordAguiRun(dist.startRecorder, 'worker', agent);
    const inline = await recordAguiRun(startInline, 'inline', agent);

    expect(worker.state).toEqual(inline.state);
    expect(worker.totals).toEqual(inline.totals);
    const rows = (r: RecordingReader) =>
      r.messages(r.exchanges()[0].id).map((m) => ({ sender: m.sender, carrier: m.carrier, channel: m.channel, status: m.verdict.status, findings: m.verdict.findings, raw: m.raw.toString().replace(/run-(worker|inline)/g, 'run') }));
    expect(rows(worker.reader)).toEqual(rows(inline.reader));
    expect(worker.reader.exchanges()[0]).toMatchObject({ protocol: 'agui', transport: 'sse', outcome: 'complete', invalidCount: 0 });
    // Offsets come from the capture thread's clock: rising, and within the exchange's span.
    const offsets = worker.reader.messages(1).map((m) => m.tOffsetMs);
    expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
    expect(offsets[0]).toBeGreaterThanOrEqual(worker.reader.exchanges()[0].startedMs);
  });

  it('records Pi REST answers, errors included, with the same protocol, statuses and verdicts as the inline pipeline', async () => {
    const daemon: PiDaemon = await startPiDaemon();
    cleanups.push(() => daemon.close());
    const dir = tempDir();
    cleanups.push(() => dir.cleanup());
    // Each hint and body context crosses to the worker by route and status: the judge must see the same.
    const recordCalls = async (start: StartRecorder, pipeline: 'worker' | 'inline') => {
      const out = dir.file(`rest-${pipeline}.db`);
      const recorder = await start({ target: daemon.url, listen: 0, out, pipeline });
      const auth = { authorization: `Bearer ${daemon.token}` };
      expect((await api(recorder.url, 'GET', '/v1/capabilities', { headers: { ...auth, 'x-request-id': 'req-1' } })).status).toBe(200);
      expect((await api(recorder.url, 'GET', '/v1/capabilities')).status).toBe(401);
      expect((await api(recorder.url, 'GET', '/v1/session/no-such-session', { headers: auth })).status).toBe(404);
      expect((await api(recorder.url, 'GET', '/v1/session?limit=10', { headers: auth })).status).toBe(200);
      await recorder.close();
      const reader = RecordingReader.open(out);
      cleanups.push(() => reader.close());
      return reader.exchanges().map((e) => ({
        exchange: [e.method, e.path, e.query, e.status, e.transport, e.protocol, e.outcome],
        messages: reader.messages(e.id).map((m) => [m.sender, m.verdict.status, m.verdict.schemaRef, m.verdict.findings.map((f) => f.rule)]),
      }));
    };
    const worker = await recordCalls(dist.startRecorder, 'worker');
    const inline = await recordCalls(startInline, 'inline');
    expect(worker).toEqual(inline);
    expect(worker.map((e) => e.exchange[5])).toEqual(['pi-rest', 'pi-rest', 'pi-rest', 'pi-rest']);
  });

  it('records WebSocket frames and close codes, and refuses an existing file with a typed error', async () => {
    const daemon: PiDaemon = await startPiDaemon({ rpcTurn: 'text' });
    cleanups.push(() => daemon.close());
    const dir = tempDir();
    cleanups.push(() => dir.cleanup());
    const out = dir.file('ws.db');
    const recorder = await dist.startRecorder({ target: daemon.url, listen: 0, out, pipeline: 'worker' });
    const ws = new WebSocket(`${recorder.url.replace('http', 'ws')}/v1/session/agent-a/rpc`, ['pi-rpc.v1'], { headers: { authorization: `Bearer ${daemon.token}` } });
    const received: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('open', () => ws.send(JSON.stringify({ id: 'g1', type: 'get_state' })));
      ws.on('message', (data) => {
        received.push(data.toString());
        if (received.length === 1) ws.close(4002, 'bye');
      });
      ws.on('close', () => resolve());
      ws.on('error', reject);
    });
    await recorder.close();
    const reader = RecordingReader.open(out);
    cleanups.push(() => reader.close());
    const [exchange] = reader.exchanges();
    expect(exchange).toMatchObject({ transport: 'ws', protocol: 'pi-rpc', subprotocol: 'pi-rpc.v1', outcome: 'complete', closeCode: 4002 });
    const frames = reader.messages(exchange.id);
    expect(frames.filter((m) => m.channel === 'text').map((m) => m.raw.toString())).toEqual([JSON.stringify({ id: 'g1', type: 'get_state' }), received[0]]);
    expect(frames.filter((m) => m.channel === 'text').every((m) => m.verdict.status === 'valid')).toBe(true);
    expect(frames.find((m) => m.channel === 'close')?.json).toEqual({ code: 4002, reason: 'bye' });

    await expect(dist.startRecorder({ target: daemon.url, listen: 0, out, pipeline: 'worker' })).rejects.toMatchObject({ code: 'E_STORE_EXISTS' });
  });
  it('records every event of a read that held many HTTP chunks, in order and byte for byte', async () => {
    // Each write() of a chunked response is an HTTP chunk of its own; corked, they leave in one
    // segment, so the recorder's capture gets them from one read and hands them on together.
    const events = Array.from({ length: 40 }, (_, i) => `data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: `d${i}` })}\n\n`);
    const stream = [
      `data: ${JSON.stringify({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })}\n\n`,
      `data: ${JSON.stringify({ type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' })}\n\n`,
      ...events,
      `data: ${JSON.stringify({ type: 'TEXT_MESSAGE_END', messageId: 'm1' })}\n\n`,
      `data: ${JSON.stringify({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' })}\n\n`,
    ];
    const upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        res.cork();
        for (const event of stream) res.write(event);
        process.nextTick(() => {
          res.uncork();
          res.end();
        });
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
    const dir = tempDir();
    cleanups.push(() => dir.cleanup());
    const out = dir.file('reads.db');
    const recorder = await dist.startRecorder({ target: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, listen: 0, out, pipeline: 'worker' });
    const response = await fetch(`${recorder.url}/agent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ threadId: 't', runId: 'r', messages: [], tools: [], context: [], state: {}, forwardedProps: {} }) });
    expect(await response.text()).toBe(stream.join(''));
    await recorder.close();
    const reader = RecordingReader.open(out);
    cleanups.push(() => reader.close());
    const served = reader.messages(1).filter((m) => m.sender === 'server');
    expect(served.map((m) => m.raw.toString())).toEqual(stream);
    expect(served.every((m) => m.verdict.status === 'valid')).toBe(true);
  });
});
