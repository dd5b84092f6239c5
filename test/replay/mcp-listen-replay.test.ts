/**
 * MCP 2026-07-28's `subscriptions/listen`, replayed: a POST answered by a stream that lives until its
 * client closes it (the close is the cancellation). Recorded from the HTTP stand-in
 * (test/support/http-mcp-server.ts), whose listen stream stays open until the client leaves.
 */
import { describe, expect, it } from 'vitest';
import { startRecorder, startReplay } from '../../src/index.js';
import type { ServedExchange } from '../../src/replay/replay-context.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { startHttpMcpStandIn } from '../support/http-mcp-server.js';
import { bareRegistry } from '../support/shared.js';
import { sseEvents } from '../support/sse-events.js';
import { waitFor, within } from '../support/waits.js';

const cleanups = fixturesAfterEach();
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28' };

/** A listen stream's events, read as they come; `close` is the client's cancellation. */
async function listen(url: string): Promise<{ next(): Promise<unknown>; close(): void }> {
  const controller = new AbortController();
  const body = { jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen', params: { _meta: META, notifications: { toolsListChanged: true } } };
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-method': 'subscriptions/listen' }, body: JSON.stringify(body), signal: controller.signal });
  const events = sseEvents(res, controller);
  return {
    async next() {
      const data = await events.next();
      return data === undefined ? undefined : (JSON.parse(data) as unknown);
    },
    close: events.close,
  };
}

/** A 2026-07-28 tools/call, answered alone. */
async function call(url: string): Promise<unknown> {
  const body = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { _meta: META, name: 'echo', arguments: {} } };
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-method': 'tools/call', 'mcp-name': 'echo' }, body: JSON.stringify(body) });
  return res.json();
}

describe('replay of an MCP subscriptions/listen stream', () => {
  it('keeps a listen stream the client left open open after its notifications, in order, until the client closes it', async () => {
    const server = await startHttpMcpStandIn();
    cleanups.push(() => server.close());
    const recording = cleanups.scratch().file('mcp-listen.db');
    const recorder = await startRecorder({ target: server.origin, listen: 0, out: recording, registry: bareRegistry(), pipeline: 'inline' });
    const recorded: unknown[] = [];
    try {
      const stream = await listen(`${recorder.url}/listen/mcp`);
      recorded.push(await stream.next(), await stream.next());
      await call(`${recorder.url}/listen/mcp`);
      stream.close();
    } finally {
      await recorder.close();
    }

    const served: ServedExchange[] = [];
    const replay = await startReplay({ recording, listen: 0, timing: 'none', strict: true, log: { served: (e) => served.push(e), miss() {} } });
    cleanups.push(async () => void (await replay.close()));
    const stream = await listen(`${replay.url}/listen/mcp`);
    expect([await stream.next(), await stream.next()]).toEqual(recorded);
    let ended = false;
    const rest = stream.next().then((value) => {
      ended = true;
      return value;
    });
    // Another request answered meanwhile: the listen stream, played to its end, is still open.
    expect(await call(`${replay.url}/listen/mcp`)).toMatchObject({ id: 7, result: { resultType: 'complete' } });
    await waitFor(() => served.some((e) => e.messages === 1), 'the call to be served');
    expect(served.map((e) => e.messages)).toEqual([1]);
    expect(ended).toBe(false);

    // The client's close is the cancellation: the replay ends the stream there too.
    stream.close();
    await within(rest.catch(() => undefined), 'the closed stream to end on the client');
    const listened = await waitFor(() => served.find((e) => e.messages === 2), 'the replay to end the listen stream');
    // Left open by the recording: its client closed it, or the recorder stopped first.
    expect(listened).toMatchObject({ method: 'POST', path: '/listen/mcp', recordingCutBy: expect.stringMatching(/^(client|shutdown)$/) });
    const summary = await replay.close();
    expect(summary.misses).toEqual([]);
    expect(summary.unused).toEqual([]);
  });
});
