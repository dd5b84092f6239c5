import { describe, expect, it } from 'vitest';
import { Substitution } from '../../src/match/correlation.js';
import { loadReplayScript } from '../../src/replay/replay-script.js';
import { EndpointStreams } from '../../src/redrive/endpoint-stream.js';
import { ManualClock } from '../support/manual-clock.js';
import { writeNdjsonRecording, type HandMessage } from '../support/ndjson-recording.js';

/** An event of the legacy stream, as the recording keeps it (`event: message`) and as the live server sends it. */
function message(json: unknown, tOffsetMs?: number): HandMessage {
  return { sender: 'server', json, raw: `event: message\ndata: ${JSON.stringify(json)}\n\n`, ...(tOffsetMs === undefined ? {} : { tOffsetMs }) };
}

const TASK = { jsonrpc: '2.0', id: 1, result: { taskId: 'task-old-1' } };

/**
 * A legacy MCP session written by hand: GET /sse (started at 10 ms) with its endpoint event at 11,
 * the initialize answer at 25 and a minted task id at 36; POSTs at 20 (initialize), 30 (a call)
 * and 40 (naming the task).
 */
async function legacySession() {
  const post = (json: unknown) => ({ transport: 'http' as const, protocol: 'mcp', method: 'POST', path: '/message', query: 'sessionId=session-old-1', status: 202, messages: [{ sender: 'client' as const, json }, { sender: 'server' as const, raw: 'Accepted' }] });
  const file = writeNdjsonRecording([
    {
      transport: 'sse',
      protocol: 'mcp',
      method: 'GET',
      path: '/sse',
      status: 200,
      responseHeaders: { 'content-type': 'text/event-stream' },
      aborted: { code: 'E_CLIENT_ABORTED', message: 'the client closed the connection' },
      messages: [{ sender: 'server', raw: 'event: endpoint\ndata: /message?sessionId=session-old-1\n\n', tOffsetMs: 11 }, message({ jsonrpc: '2.0', id: 0, result: {} }, 25), message(TASK, 36)],
    },
    post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }),
    post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'start' } }),
    post({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 'task-old-1' } }),
  ]);
  const ids = new Substitution();
  const clock = new ManualClock();
  const script = await loadReplayScript(file);
  const streams = new EndpointStreams(script.exchanges, ids, { ms: 30_000, clock });
  return { ids, clock, streams, exchanges: script.exchanges };
}

const event = (json: unknown) => Buffer.from(`event: message\ndata: ${JSON.stringify(json)}\n\n`);

describe('EndpointStream', () => {
  it('holds a POST until the stream has carried the events it had before it (comments are not events), the wait bounded by the recorded gap plus the wait; learns the endpoint and the ids the events mint', async () => {
    const { ids, clock, streams, exchanges } = await legacySession();
    const [get, initialize, call, named] = exchanges;
    const stream = streams.of(get)!;
    expect([streams.of(initialize), streams.of(named)]).toEqual([stream, stream]);
    expect([stream.holds(get), stream.holds(call)]).toEqual([false, true]);

    const waiting = stream.before(call);
    stream.take(Buffer.from(': keep-alive\n\nevent: endpoint\ndata: /messages/?sessionId=session-new-1\n\n'));
    // Still waiting for the initialize answer, recorded 5 ms after the session's last step (the POST at 20).
    expect(clock.nextDeadline()).toBe(5 + 30_000);
    stream.take(event({ jsonrpc: '2.0', id: 0, result: {} }));
    expect(await waiting).toBeUndefined();
    expect(clock.nextDeadline()).toBeUndefined();
    expect(stream.urlFor(call, '/message?sessionId=session-new-1')).toBe('/messages/?sessionId=session-new-1');

    stream.take(event({ ...TASK, result: { taskId: 'task-new-1' } }));
    expect(await stream.before(named)).toBeUndefined();
    expect(ids.list().map((p) => [p.recorded, p.live])).toEqual([
      ['session-old-1', 'session-new-1'],
      ['task-old-1', 'task-new-1'],
    ]);
  });

  it('a wait for an event that does not come ends at its bound and says so; the stream ending ends every wait', async () => {
    const { clock, streams, exchanges } = await legacySession();
    const [get, , , named] = exchanges;
    const stream = streams.of(get)!;
    stream.take(Buffer.from('event: endpoint\ndata: /message?sessionId=session-new-1\n\n'));
    const waiting = stream.before(named);
    // The task id recorded at 36, 6 ms after the call was posted at 30.
    expect(clock.nextDeadline()).toBe(6 + 30_000);
    clock.advanceTo(6 + 30_000);
    expect(await waiting).toBe('sent without all it waited for: the stream of exchange 1 had carried 1 of the 3 events it had before it in the recording (waited 30 s)');

    const whole = stream.whole();
    stream.end();
    expect(await whole).toBe('ended with 1 of the 3 events the recording holds of it (the stream ended)');
    expect(clock.nextDeadline()).toBeUndefined();
  });
});
