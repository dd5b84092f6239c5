/**
 * `proxy replay` serving the Pi daemon REST API: FIFO answers for repeated requests (ticket polls),
 * --reuse, requestId / Idempotency-Key substitution, and the record → replay → record round trip.
 */
import { describe, expect, it } from 'vitest';
import { startPiDaemon, type PiDaemon } from '../support/pi-daemon-standin.js';
import { api, type ApiResult } from '../record/pi-helpers.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { testRegistry } from '../support/shared.js';
import { expectSameRecording, onCleanup, record, replay, useCleanups } from './replay-helpers.js';

useCleanups();

const piRegistry = (): SchemaRegistry => testRegistry();

async function daemon(): Promise<PiDaemon> {
  const d = await startPiDaemon({ deterministic: true });
  onCleanup(() => d.close());
  return d;
}

interface Ids {
  caps: string;
  create: string;
  key: string;
}

/** A session's life over REST; request ids and the idempotency key come from `ids`, paths from the answers. */
async function lifecycle(base: string, token: string, ids: Ids): Promise<ApiResult[]> {
  const auth = { authorization: `Bearer ${token}` };
  const results: ApiResult[] = [];
  const call = async (method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) => {
    const result = await api(base, method, path, init);
    results.push(result);
    return result;
  };
  await call('GET', '/v1/capabilities', { headers: { ...auth, 'x-request-id': ids.caps } });
  const body = { requestId: ids.create, sessionId: 'agent-b', spec: { cwd: '/srv/work/b', name: 'bee', target: { mode: 'new' } } };
  const created = await call('POST', '/v1/session', { headers: { ...auth, 'idempotency-key': ids.key, 'x-request-id': ids.create }, body });
  await call('GET', created.headers.location, { headers: auth });
  await call('GET', created.headers.location, { headers: auth });
  const session = await call('GET', '/v1/session/agent-b', { headers: auth });
  const deleted = await call('DELETE', '/v1/session/agent-b', { headers: { ...auth, 'idempotency-key': `${ids.key}-delete`, 'if-match': session.headers.etag } });
  await call('GET', deleted.headers.location, { headers: auth });
  await call('GET', deleted.headers.location, { headers: auth });
  return results;
}

const RECORDED: Ids = { caps: 'req-caps-1', create: 'req-create-b', key: 'create-b-1' };
const LIVE: Ids = { caps: 'live-caps-1', create: 'live-create-b', key: 'live-key-1' };

describe('proxy replay: Pi daemon REST', () => {
  it('record → replay → record again holds the same exchanges, messages and verdicts; request ids and idempotency keys are echoed', async () => {
    const d = await daemon();
    const first = await record(d.url, { registry: piRegistry() });
    const live = await lifecycle(first.url, d.token, RECORDED);
    const recorded = await first.finish();
    expect(live.map((r) => r.status)).toEqual([200, 202, 200, 200, 200, 202, 200, 200]);
    expect(live[3].body.data.state).toBe('succeeded');
    expect(recorded.totals().invalid).toBe(0);

    const served = await replay(first.out);
    const second = await record(served.url, { registry: piRegistry() });
    const replayed = await lifecycle(second.url, d.token, LIVE);
    const again = await second.finish();

    expect(replayed.map((r) => r.status)).toEqual(live.map((r) => r.status));
    expect(replayed[0].body.requestId).toBe('live-caps-1');
    expect(replayed[1].body).toMatchObject({ requestId: 'live-create-b', data: { requestId: 'live-create-b', idempotencyKey: 'live-key-1', state: 'queued' } });
    // A later poll (no headers) still names the POST's ids: correlations hold for the whole replay.
    expect(replayed[3].body.data).toMatchObject({ requestId: 'live-create-b', idempotencyKey: 'live-key-1', state: 'succeeded' });
    expect(again.totals().invalid).toBe(0);
    expectSameRecording(recorded, again, {
      'req-caps-1': 'live-caps-1',
      'req-create-b': 'live-create-b',
      'create-b-1': 'live-key-1',
      'create-b-1-delete': 'live-key-1-delete',
    });
    expect(served.unused()).toEqual([]);
    expect(served.misses()).toEqual([]);
  });

  it('hands identical requests the recorded answers in order (FIFO), then misses, or with --reuse serves the last again', async () => {
    const d = await daemon();
    const first = await record(d.url, { registry: piRegistry() });
    const recorded = await lifecycle(first.url, d.token, RECORDED);
    await first.finish();
    const ticket = recorded[1].headers.location;
    const auth = { authorization: `Bearer ${d.token}` };

    const strict = await replay(first.out);
    const polls = [];
    for (let i = 0; i < 3; i++) polls.push(await api(strict.url, 'GET', ticket, { headers: auth }));
    expect(polls.slice(0, 2).map((p) => p.body.data.state)).toEqual(['running', 'succeeded']);
    // The daemon's own error envelope, as it answers a ticket it does not have.
    expect(polls[2].status).toBe(404);
    expect(polls[2].body).toMatchObject({ apiVersion: '1.0', ok: false });
    expect(polls[2].body.error).toMatchObject({ code: 'replay_miss', retryable: false, details: { reason: 'exhausted', nearest: { exchangeId: 4, path: ticket } } });
    expect(strict.misses()).toHaveLength(1);

    const reusing = await replay(first.out, { reuse: true });
    const again = [];
    for (let i = 0; i < 4; i++) again.push(await api(reusing.url, 'GET', ticket, { headers: auth }));
    expect(again.map((p) => p.body.data.state)).toEqual(['running', 'succeeded', 'succeeded', 'succeeded']);
    expect(reusing.served.map((s) => s.reused)).toEqual([false, false, true, true]);
    expect(reusing.misses()).toEqual([]);
    // Headers come back as recorded (minus hop-by-hop); Content-Length fits the body.
    expect(again[0].headers['content-type']).toBe(recorded[2].headers['content-type']);
    expect(Number(again[0].headers['content-length'])).toBe(Buffer.byteLength(again[0].text));
  });
});
