/**
 * `proxy replay` serving recorded WebSocket connections of the Pi daemon stand-in: framed and raw
 * Pi RPC round trips (record → replay → record again), id substitution, determinism, refusals,
 * misses (1008 / 404), unused connections and recorded timing.
 */
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { RecordingReader } from '../../src/store/recording-reader.js';
import { expectSameRecording, record, replay, useCleanups } from './replay-helpers.js';
import { within } from '../support/waits.js';
import { bearer, CLOSE, connect, daemon, piRegistry, rpcSession, type Seen } from './ws-replay-helpers.js';
import { deadlinesOf, driveClock, dueTimes, ManualClock, Progress, writtenBy } from '../support/manual-clock.js';

useCleanups();

const RECORDED = { state: 'state-1', prompt: 'prompt-1' };
const LIVE = { state: 'live-state-7', prompt: 'live-prompt-7' };

/** Records one RPC session against a fresh stand-in and returns the recording file. */
async function recordRpc(mode: 'framed' | 'raw', extra: (wsUrl: string, token: string) => Promise<void> = async () => {}, eventDelayMs = 0): Promise<{ out: string; reader: RecordingReader; token: string }> {
  const d = await daemon({ closeCodeAfterPrompt: CLOSE, rpcTurn: mode === 'framed' ? 'tool-call' : 'text', eventDelayMs });
  const rec = await record(d.url, { registry: piRegistry() });
  const wsUrl = rec.url.replace(/^http:/, 'ws:');
  await rpcSession(wsUrl, d.token, mode, RECORDED);
  await extra(wsUrl, d.token);
  return { out: rec.out, reader: await rec.finish(), token: d.token };
}

interface Refusal {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function refusal(url: string, protocols: string[], headers: Record<string, string>): Promise<Refusal> {
  return within(
    new Promise((resolve, reject) => {
      const ws = new WebSocket(url, protocols, { headers });
      ws.on('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() });
          ws.terminate();
        });
      });
      ws.on('open', () => reject(new Error('the upgrade was accepted')));
      ws.on('error', () => undefined);
    }),
    `the refusal of ${url}`,
  );
}

describe('proxy replay: Pi RPC WebSocket', () => {
  for (const mode of ['framed', 'raw'] as const) {
    it(`${mode}: record → replay → record again holds the same frames, order, verdicts and close; command ids are echoed live`, async () => {
      const { out, reader: recorded, token } = await recordRpc(mode);
      const [exchange] = recorded.exchanges();
      expect(exchange).toMatchObject({ transport: 'ws', status: 101, outcome: 'complete', closeCode: CLOSE.code, closeReason: CLOSE.reason });
      expect(recorded.totals().invalid).toBe(0);

      const served = await replay(out);
      const second = await record(served.url, { registry: piRegistry() });
      const client = await rpcSession(second.url.replace(/^http:/, 'ws:'), token, mode, LIVE);
      const again = await second.finish();

      expect(await client.closed).toEqual(CLOSE);
      expect(client.ws.protocol).toBe(mode === 'framed' ? 'pi-daemon-rpc.v1' : 'pi-rpc.v1');
      const responses = client.seen.filter((s) => s.kind === 'text').map((s) => JSON.parse(s.data)).map((f) => (mode === 'framed' ? f.response : f)).filter((r) => r?.type === 'response');
      expect(responses.map((r) => r.id)).toEqual([LIVE.state, LIVE.prompt]);
      expectSameRecording(recorded, again, { [RECORDED.state]: LIVE.state, [RECORDED.prompt]: LIVE.prompt });
      expect(served.misses()).toEqual([]);
      expect(served.unused()).toEqual([]);
      expect(served.served).toEqual([
        expect.objectContaining({ exchangeId: exchange.id, transport: 'ws', path: '/v1/session/agent-a/rpc', status: 101, substitutions: 2, reused: false }),
      ]);
    });
  }

  it('is deterministic: two replays to the same client frames send byte-identical frames and close codes', async () => {
    const { out, token } = await recordRpc('framed');
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const served = await replay(out);
      const client = await rpcSession(served.wsUrl, token, 'framed', LIVE);
      runs.push(client.seen.map(({ kind, data }) => ({ kind, data })));
    }
    expect(runs[0].filter((s) => s.kind === 'text')).toHaveLength(1 + 2 + 27);
    expect(runs[0].at(-1)).toEqual({ kind: 'close', data: `${CLOSE.code} ${CLOSE.reason}` });
    expect(runs[1]).toEqual(runs[0]);
  });

  it('hands out several recorded connections on one path in order, and serves the last again with reuse', async () => {
    const getState = async (wsUrl: string, token: string, id: string) => {
      const c = await connect(`${wsUrl}/v1/session/agent-a/rpc`, 'pi-rpc.v1', { headers: bearer(token) });
      c.ws.send(JSON.stringify({ id, type: 'get_state' }));
      const [answer] = await c.texts(1);
      c.ws.close(1000);
      await c.closed;
      return JSON.parse(answer);
    };
    const { out, token } = await recordRpc('raw', async (wsUrl, t) => {
      await getState(wsUrl, t, 'second');
      await getState(wsUrl, t, 'third');
    });
    const served = await replay(out, { reuse: true });
    // The recorded session was first on its route, with a different query: these take the two after it.
    expect(await getState(served.wsUrl, token, 'a')).toMatchObject({ id: 'a', command: 'get_state', data: { messageCount: 2 } });
    expect(await getState(served.wsUrl, token, 'b')).toMatchObject({ id: 'b', command: 'get_state', data: { messageCount: 2 } });
    expect(await getState(served.wsUrl, token, 'c')).toMatchObject({ id: 'c' });
    expect(served.served.map((s) => [s.exchangeId, s.reused])).toEqual([
      [2, false],
      [3, false],
      [3, true],
    ]);
    expect(served.unused().map((e) => e.id)).toEqual([1]);
  });

  it("replays the daemon's refusals (426 with its header, 409) exactly as the recorder passed them on", async () => {
    const d = await daemon();
    const rec = await record(d.url, { registry: piRegistry() });
    const wsUrl = (base: string) => base.replace(/^http:/, 'ws:');
    const attempts = [
      { path: '/v1/session/agent-a/rpc', protocols: [] as string[] },
      { path: '/v1/session/agent-a/rpc?generation=999', protocols: ['pi-daemon-rpc.v1'] },
      { path: '/v1/session/agent-a/apc', protocols: [] as string[] },
    ];
    const refusals = async (base: string) => {
      const out: Refusal[] = [];
      for (const a of attempts) out.push(await refusal(base + a.path, a.protocols, { ...bearer(d.token), 'x-request-id': 'req-fixed' }));
      return out;
    };
    const recorded = await refusals(wsUrl(rec.url));
    await rec.finish();
    expect(recorded.map((r) => r.status)).toEqual([426, 409, 426]);
    expect(recorded[0].headers['sec-websocket-protocol']).toBe('pi-rpc.v1, pi-daemon-rpc.v1');

    const served = await replay(rec.out);
    const replayed = await refusals(served.wsUrl);
    expect(replayed).toEqual(recorded);
    expect(JSON.parse(replayed[1].body).error).toMatchObject({ code: 'stale_generation' });
    expect(served.unused()).toEqual([]);
    expect(served.misses()).toEqual([]);
  });

  it('a changed command gets a failed Pi response with its id, naming the differing field; a frame Pi would not answer closes with 1008; both are misses', async () => {
    const { out, token } = await recordRpc('raw', async (wsUrl, t) => {
      const c = await connect(`${wsUrl}/v1/session/agent-a/rpc`, 'pi-rpc.v1', { headers: bearer(t) });
      c.ws.close(1000);
      await c.closed;
    });
    const served = await replay(out);
    const c = await connect(`${served.wsUrl}/v1/session/agent-a/rpc?role=controller`, 'pi-rpc.v1', { headers: bearer(token) });
    c.ws.send(JSON.stringify({ id: 'x', type: 'get_messages' }));
    const [answer] = await c.texts(1);
    const response = JSON.parse(answer);
    expect(response).toMatchObject({ id: 'x', type: 'response', command: 'get_messages', success: false });
    expect(response.error).toContain('at /type');
    // The connection is still open: stock Pi sends no answer to an extension UI answer, so that one closes it.
    c.ws.send(JSON.stringify({ type: 'extension_ui_response', id: 'nope', value: 'v' }));
    const closed = await c.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toContain('/type');
    expect(Buffer.byteLength(closed.reason)).toBeLessThanOrEqual(123);
    expect(served.misses()).toEqual([
      expect.objectContaining({
        transport: 'ws',
        reason: 'no-match',
        request: expect.objectContaining({ path: '/v1/session/agent-a/rpc', body: { id: 'x', type: 'get_messages' } }),
        nearest: expect.objectContaining({ exchangeId: 1 }),
        differences: ['/type'],
        action: 'error',
      }),
      expect.objectContaining({ transport: 'ws', request: expect.objectContaining({ body: { type: 'extension_ui_response', id: 'nope', value: 'v' } }) }),
    ]);
    expect(served.unused().map((e) => e.id)).toEqual([2]);
  });

  it('an upgrade that matches no recorded connection gets a 404 that names the nearest one and what differs', async () => {
    const { out, token } = await recordRpc('raw');
    const served = await replay(out);
    const answer = await refusal(`${served.wsUrl}/v1/session/agent-a/rpc?role=controller`, ['pi-daemon-rpc.v1'], bearer(token));
    // The daemon's error envelope, as for any request under /v1.
    expect(answer.status).toBe(404);
    const envelope = JSON.parse(answer.body);
    expect(envelope).toMatchObject({ apiVersion: '1.0', ok: false, error: { code: 'replay_miss', retryable: false, details: { nearest: { exchangeId: 1 }, differences: ['subprotocol'] } } });
    expect(envelope.error.message).toContain('subprotocol');
    expect(served.misses()).toHaveLength(1);
    expect(served.unused().map((e) => e.id)).toEqual([1]);
  });

  for (const [timing, speed] of [
    ['recorded', 1],
    ['2x', 2],
  ] as const) {
    it(`with --timing ${timing}, each server frame of a turn reaches the client when the recording says, on the replay's clock`, async () => {
      const { out, reader, token } = await recordRpc('raw', undefined, 30);
      const [exchange] = reader.exchanges();
      const messages = reader.messages(exchange.id);
      const prompt = messages.filter((m) => m.sender === 'client' && m.channel === 'text').at(-1)!;
      // The prompt's turn: its response, then 16 events paced by the stand-in.
      const replies = messages.filter((m) => m.sender === 'server' && m.channel === 'text' && m.seq > prompt.seq);
      expect(replies).toHaveLength(17);

      const clock = new ManualClock();
      const served = await replay(out, { timing, clock });
      const progress = new Progress();
      // The turn is paced from the moment the prompt arrives; the clock stands still from here until then.
      let due: number[] | undefined;
      let promptAt = NaN;
      const texts: Seen[] = [];
      const session = rpcSession(served.wsUrl, token, 'raw', LIVE, {
        now: () => clock.now(),
        seen: (entry) => {
          if (due && entry.kind === 'text') texts.push(entry);
          progress.changed();
        },
        prompting: () => {
          promptAt = clock.now();
          due = dueTimes(replies.map((m) => m.tOffsetMs), { at: promptAt, offset: prompt.tOffsetMs }, speed);
        },
      });
      // Before the prompt nothing is waited for; in its turn, a step waits until the client has what is due.
      const stepped = await driveClock(clock, session, () => (due ? progress.until(() => texts.length >= writtenBy(due!, clock.now()), `the frames due by ${clock.now()} ms`) : Promise.resolve()));
      const client = await session;

      expect(client.seen.filter((s) => s.kind === 'text').map((s) => JSON.parse(s.data).type)).toEqual(
        messages.filter((m) => m.sender === 'server' && m.channel === 'text').map((m) => (m.json as { type: string }).type),
      );
      expect(texts).toHaveLength(replies.length);
      texts.forEach((seen, i) => {
        expect(seen.at, `frame ${i}: due at ${due![i]}`).toBeLessThanOrEqual(due![i] + 1e-6);
        expect(seen.at, `frame ${i}: due at ${due![i]}`).toBeGreaterThan(due![i] - 1);
      });
      // In the turn the player slept until the due times and only those; the events, 30 ms apart when recorded, each got one.
      const sleeps = deadlinesOf(due!, promptAt);
      const turnSteps = stepped.filter((at) => at > promptAt && at <= due!.at(-1)! + 1e-6);
      expect(turnSteps).toHaveLength(sleeps.length);
      turnSteps.forEach((at, i) => expect(at).toBeCloseTo(sleeps[i], 6));
      expect(sleeps.length).toBeGreaterThanOrEqual(16);
    });
  }
});
