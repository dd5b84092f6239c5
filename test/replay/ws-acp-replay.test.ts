/**
 * `proxy replay` serving a recorded ACP conversation (`/v1/session/{ref}/apc`, subprotocol
 * `agent-client-protocol.v1`) to the official ACP SDK ClientSideConnection: the round trip, and a
 * client whose JSON-RPC ids differ from the recorded ones.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRow } from '../../src/store/recording-reader.js';
import { comparable, expectSameRecording, record, replay, useCleanups } from './replay-helpers.js';
import { acpSession, daemon, piRegistry } from './ws-replay-helpers.js';

useCleanups();

async function recordAcp(): Promise<{ out: string; token: string; run: Awaited<ReturnType<typeof acpSession>>; reader: Awaited<ReturnType<Awaited<ReturnType<typeof record>>['finish']>> }> {
  const d = await daemon();
  const rec = await record(d.url, { registry: piRegistry() });
  const run = await acpSession(rec.url.replace(/^http:/, 'ws:'), d.token);
  return { out: rec.out, token: d.token, run, reader: await rec.finish() };
}

describe('proxy replay: ACP WebSocket', () => {
  it('record → replay → record again holds the same messages, order, verdicts and close', async () => {
    const { out, token, run: recorded, reader } = await recordAcp();
    expect(recorded.results[2]).toEqual({ stopReason: 'end_turn' });
    expect(reader.exchanges()[0]).toMatchObject({ protocol: 'acp', subprotocol: 'agent-client-protocol.v1', outcome: 'complete', closeCode: 1000, closeReason: 'bye' });
    expect(reader.totals().invalid).toBe(0);

    const served = await replay(out);
    const second = await record(served.url, { registry: piRegistry() });
    const replayed = await acpSession(second.url.replace(/^http:/, 'ws:'), token);
    const again = await second.finish();

    expect(replayed.results).toEqual(recorded.results);
    expect(replayed.updates).toEqual(recorded.updates);
    expect(replayed.closed).toEqual({ code: 1000, reason: 'bye' });
    expectSameRecording(reader, again);
    expect(served.misses()).toEqual([]);
    expect(served.unused()).toEqual([]);
  });

  it('the official SDK client completes a session whose request ids differ from the recorded ones: responses carry the live ids', async () => {
    const SHIFT = 1;
    const { out, token, run: recorded, reader } = await recordAcp();
    const served = await replay(out);
    const second = await record(served.url, { registry: piRegistry() });
    const replayed = await acpSession(second.url.replace(/^http:/, 'ws:'), token, SHIFT);
    const again = await second.finish();

    expect(replayed.results).toEqual(recorded.results);
    expect(replayed.updates).toEqual(recorded.updates);
    const ids = (run: typeof recorded, dir: 'in' | 'out') => run.wire.filter((w) => w.dir === dir && 'id' in w.message).map((w) => (w.message as { id: number }).id);
    expect(ids(recorded, 'out')).toEqual([0, 1, 2]);
    // Shifted by one, the ids overlap the recorded ones: each must be substituted exactly once.
    expect(ids(replayed, 'out')).toEqual([1, 2, 3]);
    expect(ids(replayed, 'in')).toEqual([1, 2, 3]);
    expect(served.served).toEqual([expect.objectContaining({ transport: 'ws', status: 101, substitutions: 3 })]);

    // The recording of the replay differs from the original only in those ids.
    const shifted = (m: MessageRow) => {
      const row = comparable(m) as { json: unknown };
      const json = row.json as { id?: unknown; method?: unknown } | null;
      if (json && typeof json === 'object' && typeof json.id === 'number') row.json = { ...json, id: json.id + SHIFT };
      return row;
    };
    expect(again.messages(again.exchanges()[0].id).map(comparable)).toEqual(reader.messages(reader.exchanges()[0].id).map(shifted));
  });
});
