/**
 * HTTP sessions in a replay (src/replay/http/recorded-sessions.ts, live-sessions.ts), on recordings
 * written by hand: which recorded session a new live one plays, how later requests find their
 * session, and a server that issued no session id. MCP's Streamable HTTP with JSON answers; the SDK
 * and real servers are in mcp-http-replay*.test.ts and mcp-sse-replay.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { writeNdjsonRecording, type HandExchange } from '../support/ndjson-recording.js';
import { replay, useCleanups } from './replay-helpers.js';
import { ManualClock } from '../support/manual-clock.js';
import { waitFor } from '../support/waits.js';
import { LiveSessions, SESSION_IDLE_MS } from '../../src/replay/http/live-sessions.js';
import { planSessions } from '../../src/replay/http/recorded-sessions.js';
import { httpExchanges, loadReplayScript } from '../../src/replay/replay-script.js';

useCleanups();

const HEADER = 'mcp-session-id';
const initialize = (id: number) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
const echo = (id: number, message: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { message } } });

/** One POST /mcp answered with JSON; `issued` is the session id its answer issues, `named` the one it names. */
function post(body: unknown, answer: unknown, session: { issued?: string; named?: string } = {}): HandExchange {
  return {
    transport: 'http',
    protocol: 'mcp',
    method: 'POST',
    path: '/mcp',
    status: 200,
    requestHeaders: { 'content-type': 'application/json', ...(session.named ? { [HEADER]: session.named } : {}) },
    responseHeaders: { 'content-type': 'application/json', ...(session.issued ? { [HEADER]: session.issued } : {}) },
    messages: [
      { sender: 'client', carrier: 'body', json: body },
      { sender: 'server', carrier: 'body', json: answer },
    ],
  };
}

/** A recorded session: initialize (issuing `id`), then one echo of `message`. */
function session(id: string | undefined, message: string): HandExchange[] {
  return [
    post(initialize(0), { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: `server ${message}`, version: '1' }, instructions: `your session is ${id}` } }, { issued: id }),
    post(echo(1, message), { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: `Echo: ${message}` }] } }, { named: id }),
  ];
}

/** The standalone GET stream of session `id`, which its client left open: held open on a replay. */
function get(id: string): HandExchange {
  return {
    transport: 'sse',
    protocol: 'mcp',
    method: 'GET',
    path: '/mcp',
    status: 200,
    requestHeaders: { accept: 'text/event-stream', [HEADER]: id },
    responseHeaders: { 'content-type': 'text/event-stream' },
    aborted: { code: 'E_CLIENT_ABORTED', message: 'the client disconnected before the response finished' },
    messages: [],
  };
}

async function call(url: string, body: unknown, sessionId?: string): Promise<{ status: number; sessionId: string | null; body: { id?: unknown; result?: unknown; error?: { code: number; message: string } } }> {
  const res = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', ...(sessionId ? { [HEADER]: sessionId } : {}) }, body: JSON.stringify(body) });
  return { status: res.status, sessionId: res.headers.get(HEADER), body: (await res.json()) as never };
}

describe('HTTP sessions in a replay', () => {
  it('a new session plays the next recorded one not started yet, then the first again; each under a fresh id, its requests matched in its own session only', async () => {
    const served = await replay(writeNdjsonRecording([...session('rec-a', 'a'), ...session('rec-b', 'b')]));
    const opened = [];
    for (const id of [10, 11, 12]) opened.push(await call(served.url, initialize(id)));
    expect(opened.map((o) => o.body.result)).toMatchObject([{ serverInfo: { name: 'server a' } }, { serverInfo: { name: 'server b' } }, { serverInfo: { name: 'server a' } }]);
    // The live ids answer each initialize's own id, under a session id of its own.
    expect(opened.map((o) => o.body.id)).toEqual([10, 11, 12]);
    const ids = opened.map((o) => o.sessionId);
    expect(new Set(ids).size).toBe(3);
    expect(ids.filter((id) => id === null || id.startsWith('rec-'))).toEqual([]);
    // Wherever the answers name the recorded session id, they name the live one.
    expect(opened.map((o) => (o.body.result as { instructions: string }).instructions)).toEqual(ids.map((id) => `your session is ${id}`));

    // The second session is rec-b's: its echo of "a" misses (a JSON-RPC error with its id), its echo of "b" is served.
    const wrong = await call(served.url, echo(21, 'a'), ids[1]!);
    expect(wrong).toMatchObject({ status: 200, body: { id: 21, error: { code: -32600 } } });
    expect(wrong.body.error?.message).toMatch(/nearest is exchange 4 \(POST \/mcp\); differs in \/params\/arguments\/message/);
    expect((await call(served.url, echo(22, 'b'), ids[1]!)).body).toEqual({ jsonrpc: '2.0', id: 22, result: { content: [{ type: 'text', text: 'Echo: b' }] } });
    // The first and third both play rec-a: each gets its echo once.
    for (const id of [ids[0]!, ids[2]!]) expect((await call(served.url, echo(23, 'a'), id)).body).toMatchObject({ id: 23, result: { content: [{ text: 'Echo: a' }] } });
    expect(served.missed.map((m) => m.differences)).toEqual([['/params/arguments/message']]);
    expect(served.unused()).toEqual([]);
  });

  it('where the server issued no session id, the requests that name none go to the latest session opened', async () => {
    const served = await replay(writeNdjsonRecording(session(undefined, 'a')));
    const opened = await call(served.url, initialize(5));
    expect(opened).toMatchObject({ status: 200, sessionId: null, body: { id: 5, result: { serverInfo: { name: 'server a' } } } });
    expect((await call(served.url, echo(6, 'a'))).body).toMatchObject({ id: 6, result: { content: [{ text: 'Echo: a' }] } });
    // A second client plays the session from its start again.
    expect((await call(served.url, initialize(7))).body).toMatchObject({ id: 7, result: { serverInfo: { name: 'server a' } } });
    expect((await call(served.url, echo(8, 'a'))).body).toMatchObject({ id: 8, result: { content: [{ text: 'Echo: a' }] } });
    expect(served.missed).toEqual([]);
  });

  it('frees a session whose client has gone (no stream open, no request for the idle limit, on the replay clock): naming it then gets 404 and a miss', async () => {
    const clock = new ManualClock();
    const served = await replay(writeNdjsonRecording([...session('rec-a', 'a'), ...session('rec-b', 'b'), get('rec-b')]), { clock });
    const idle = await call(served.url, initialize(1));
    const id = idle.sessionId!;
    clock.advanceTo(SESSION_IDLE_MS - 1);
    // Still served just before the limit; the request makes it active again.
    expect((await call(served.url, echo(2, 'a'), id)).body).toMatchObject({ id: 2, result: { content: [{ text: 'Echo: a' }] } });
    clock.advanceTo(2 * SESSION_IDLE_MS - 1);
    // A second client keeps its standalone GET stream open (recorded as its client left it): it is in use however long it idles.
    const streaming = await call(served.url, initialize(3));
    const stream = new AbortController();
    const opened = await fetch(`${served.url}/mcp`, { headers: { accept: 'text/event-stream', [HEADER]: streaming.sessionId! }, signal: stream.signal });
    expect(opened.status).toBe(200);
    clock.advanceTo(4 * SESSION_IDLE_MS);
    const gone = await call(served.url, echo(4, 'a'), id);
    expect(gone).toMatchObject({ status: 404, body: { id: 4, error: { data: { code: 'replay_miss', differences: [`header:${HEADER}`] } } } });
    expect(served.missed.map((m) => m.differences)).toEqual([[`header:${HEADER}`]]);
    expect((await call(served.url, echo(5, 'b'), streaming.sessionId!)).body).toMatchObject({ id: 5, result: { content: [{ text: 'Echo: b' }] } });
    // Once its client closes the stream and idles past the limit, it is freed too.
    stream.abort();
    await waitFor(() => served.served.some((e) => e.method === 'GET'), 'the GET stream to end on the replay');
    clock.advanceTo(5 * SESSION_IDLE_MS);
    expect((await call(served.url, echo(6, 'b'), streaming.sessionId!)).status).toBe(404);
  });

  it('keeps at most its bound of live sessions: past it, the least recently active one with no stream open is freed', async () => {
    const clock = new ManualClock();
    const { sessions } = planSessions(httpExchanges(await loadReplayScript(writeNdjsonRecording(session('rec-a', 'a')))));
    const live = new LiveSessions(sessions, [], false, { clock, maxSessions: 2 });
    const opening = { method: 'POST', path: '/mcp', query: '', body: Buffer.from(JSON.stringify(initialize(1))) };
    const open = () => {
      const route = live.route({}, opening);
      if (!route || 'unknown' in route) throw new Error('initialize opened no session');
      live.register(route.session);
      return route.session.id;
    };
    const named = (id: string) => live.route({ [HEADER]: id }, { ...opening, body: Buffer.from(JSON.stringify(echo(2, 'a'))) });
    const [first, second] = [open(), open()];
    clock.advanceTo(1);
    // The first is used again: the second is now the least recently active, and the third session frees it.
    expect(named(first)).toMatchObject({ opening: false });
    const third = open();
    expect(live.size).toBe(2);
    expect(named(second)).toHaveProperty('unknown');
    expect([named(first), named(third)]).toMatchObject([{ opening: false }, { opening: false }]);
  });
});
