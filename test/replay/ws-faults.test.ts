/**
 * `--fault` on replayed WebSocket connections, observed by the `ws` client: a close with the fault's
 * code after N frames, a cut (1006) after N frames, an injected status on the Nth upgrade that does
 * not use up the recorded connection, and latency / gaps on a clock the test moves by hand.
 * Recordings are written by hand (test/support/ndjson-recording.ts).
 */
import { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { writeNdjsonRecording, type HandExchange } from '../support/ndjson-recording.js';
import { ManualClock } from '../support/manual-clock.js';
import { replay, useCleanups } from './replay-helpers.js';
import { connect } from './ws-replay-helpers.js';
import { wsRefusal } from '../support/ws-client.js';

useCleanups();

/** A connection whose server sends `frames` text frames as soon as it is open, then waits for the client. */
function pushing(name: string, frames: number): HandExchange {
  return { path: '/events', messages: Array.from({ length: frames }, (_, i) => ({ sender: 'server' as const, json: { conn: name, n: i + 1 } })) };
}

const texts = (seen: Array<{ kind: string; data: string }>) => seen.filter((s) => s.kind === 'text').map((s) => JSON.parse(s.data) as { conn: string; n: number });

describe('replay --fault on WebSocket connections', () => {
  it('close=1011,after=2: the client gets exactly 2 frames, then close 1011 with a reason naming the fault', async () => {
    const r = await replay(writeNdjsonRecording([pushing('a', 5)]), { faults: ['close=1011,after=2'] });
    const client = await connect(`${r.wsUrl}/events`, []);
    const closed = await client.closed;
    expect(closed).toEqual({ code: 1011, reason: 'fault injected: close=1011,after=2' });
    expect(texts(client.seen).map((t) => t.n)).toEqual([1, 2]);
    const summary = await r.close();
    expect(r.served).toEqual([expect.objectContaining({ exchangeId: 1, messages: 2, faults: ['close=1011,after=2'] })]);
    expect(summary.faults).toEqual([{ spec: 'close=1011,after=2', injected: 1 }]);
  });

  it('cut=reset,after=3: the connection drops without a close frame (1006) after exactly 3 frames; cut=clean closes 1000', async () => {
    const r = await replay(writeNdjsonRecording([pushing('a', 5), pushing('b', 5)]), { faults: ['cut=reset,after=3,nth=1', 'cut=clean,after=1,nth=2'] });
    const reset = await connect(`${r.wsUrl}/events`, []);
    expect((await reset.closed).code).toBe(1006);
    expect(texts(reset.seen).map((t) => t.n)).toEqual([1, 2, 3]);
    const clean = await connect(`${r.wsUrl}/events`, []);
    expect(await clean.closed).toEqual({ code: 1000, reason: 'fault injected: cut=clean,after=1' });
    expect(texts(clean.seen)).toEqual([{ conn: 'b', n: 1 }]);
  });

  it('close=4001,after=0 closes right after the handshake, before any frame', async () => {
    const r = await replay(writeNdjsonRecording([pushing('a', 3)]), { faults: ['close=4001,after=0'] });
    const client = await connect(`${r.wsUrl}/events`, []);
    expect((await client.closed).code).toBe(4001);
    expect(texts(client.seen)).toEqual([]);
  });

  it('status=503,nth=2: the 2nd upgrade is refused with 503 and a JSON error naming the fault; the 3rd gets the recorded 2nd connection', async () => {
    const r = await replay(writeNdjsonRecording([pushing('first', 1), pushing('second', 1)]), { faults: ['status=503,nth=2,path=/events'] });
    const one = await connect(`${r.wsUrl}/events`, []);
    expect(await one.texts(1)).toEqual(['{"conn":"first","n":1}']);
    const two = await wsRefusal(`${r.wsUrl}/events`, []);
    expect(two.status).toBe(503);
    expect(JSON.parse(two.text)).toEqual({ error: { code: 'fault_injected', message: 'status 503 injected by --fault status=503,nth=2,path=/events', fault: 'status=503,nth=2,path=/events' } });
    const three = await connect(`${r.wsUrl}/events`, []);
    expect(await three.texts(1)).toEqual(['{"conn":"second","n":1}']);
    const summary = await r.close();
    expect(summary.misses).toEqual([]);
    expect(summary.unused).toEqual([]);
    // A refusal is logged at once, an accepted connection when it ends (here: at shutdown).
    expect(r.served.map((s) => [s.exchangeId, s.status, s.faultStatus, s.faults]).sort()).toEqual([
      [1, 101, undefined, undefined],
      [2, 101, undefined, undefined],
      [2, 503, 503, ['status=503,nth=2,path=/events']],
    ]);
    expect(summary.faults).toEqual([{ spec: 'status=503,nth=2,path=/events', injected: 1 }]);
  });

  it('a status fault on an upgrade nothing recorded would answer: the fault answers, and the served line names no exchange', async () => {
    const r = await replay(writeNdjsonRecording([pushing('a', 1)]), { faults: ['status=502,path=/elsewhere'] });
    const answer = await wsRefusal(`${r.wsUrl}/elsewhere`, []);
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'fault_injected', fault: 'status=502,path=/elsewhere' } });
    const summary = await r.close();
    expect(r.served).toEqual([expect.objectContaining({ exchangeId: null, transport: 'ws', path: '/elsewhere', faultStatus: 502 })]);
    expect(summary.unused.map((e) => e.id)).toEqual([1]);
  });

  it('latency holds the 101 on the replay clock; gap comes before every frame after the first', async () => {
    const clock = new ManualClock();
    const r = await replay(writeNdjsonRecording([pushing('a', 3)]), { clock, faults: ['latency=500ms', 'gap=100ms'] });
    const opening = connect(`${r.wsUrl}/events`, []);
    let opened = false;
    void opening.then(() => (opened = true));
    expect(await clock.sleeping()).toBe(500);
    expect(opened).toBe(false);
    clock.advanceTo(500);
    const client = await opening;
    await client.texts(1);
    // The player now sleeps out the gap: nothing more arrives until the clock moves.
    expect(await clock.sleeping()).toBe(600);
    expect(texts(client.seen)).toHaveLength(1);
    clock.advanceTo(600);
    await client.texts(2);
    expect(await clock.sleeping()).toBe(700);
    expect(texts(client.seen)).toHaveLength(2);
    clock.advanceTo(700);
    expect((await client.texts(3)).map((t) => JSON.parse(t).n)).toEqual([1, 2, 3]);
    expect(clock.deadlines).toEqual([500, 600, 700]);
    client.ws.close(1000);
    await client.closed;
    const summary = await r.close();
    expect(r.served).toEqual([expect.objectContaining({ messages: 3, faults: ['latency=500ms', 'gap=100ms'] })]);
    expect(summary.faults).toEqual([
      { spec: 'latency=500ms', injected: 1 },
      { spec: 'gap=100ms', injected: 1 },
    ]);
  });

  it('a replay that shuts down while an upgrade is held by latency ends it at once', async () => {
    const clock = new ManualClock();
    const r = await replay(writeNdjsonRecording([pushing('a', 1)]), { clock, faults: ['latency=3600s'] });
    const ws = new WebSocket(`${r.wsUrl}/events`);
    const failed = new Promise<string>((resolve) => ws.on('error', (e) => resolve(e.message)));
    await clock.sleeping();
    await r.close();
    expect(await failed).toMatch(/socket hang up|closed before/);
  });

  it('a spec that selects no upgrade is counted 0 (reported as unmatched)', async () => {
    const r = await replay(writeNdjsonRecording([pushing('a', 1)]), { faults: ['close=1011,path=/other'] });
    const client = await connect(`${r.wsUrl}/events`, []);
    await client.texts(1);
    client.ws.close(1000);
    await client.closed;
    expect((await r.close()).faults).toEqual([{ spec: 'close=1011,path=/other', injected: 0 }]);
    expect(r.served[0].faults).toBeUndefined();
  });
});
