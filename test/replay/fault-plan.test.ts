import { describe, expect, it } from 'vitest';
import { FaultPlan, NO_FAULTS, type FaultTarget } from '../../src/replay/fault/fault-plan.js';
import { parseFaults } from '../../src/replay/fault/fault-spec.js';

const post = (path: string): FaultTarget => ({ transport: 'http', method: 'POST', path });

describe('FaultPlan', () => {
  it('injects a status into the nth selected request only, counting in arrival order', () => {
    const plan = new FaultPlan(parseFaults(['status=503,nth=3']));
    const statuses = [1, 2, 3, 4].map(() => plan.choose(post('/agent')).status);
    expect(statuses).toEqual([undefined, undefined, 503, undefined]);
    expect(plan.tally()).toEqual([{ spec: 'status=503,nth=3', injected: 1 }]);
    expect(plan.unmatched()).toEqual([]);
  });

  it('counts only what its path and method select, and an open range runs on', () => {
    const plan = new FaultPlan(parseFaults(['status=500,nth=2-,path=/v1/sessions/*,method=GET']));
    expect(plan.choose(post('/v1/sessions/a')).status).toBeUndefined();
    expect(plan.choose({ transport: 'http', method: 'GET', path: '/v1/sessions/a' }).status).toBeUndefined();
    expect(plan.choose({ transport: 'http', method: 'GET', path: '/v1/sessions/a/b' }).status).toBeUndefined();
    expect(plan.choose({ transport: 'http', method: 'GET', path: '/v1/sessions/b' }).status).toBe(500);
    expect(plan.choose({ transport: 'http', method: 'GET', path: '/v1/sessions/c' }).status).toBe(500);
  });

  it('merges the specs that select one request: latencies add up, the first status wins', () => {
    const plan = new FaultPlan(parseFaults(['latency=100ms', 'latency=50', 'gap=10', 'status=503', 'status=502', 'cut=reset,after=2']));
    const chosen = plan.choose(post('/agent'));
    expect(chosen).toEqual({
      specs: ['latency=100ms', 'latency=50', 'gap=10', 'status=503', 'status=502', 'cut=reset,after=2'],
      latencyMs: 150,
      gapMs: 10,
      status: 503,
      statusSpec: 'status=503',
      cut: { kind: 'cut', how: 'reset', after: 2 },
    });
  });

  it("keeps the first status's retry-after, and lets the first of an error event and a cut end a stream", () => {
    const plan = new FaultPlan(parseFaults(['status=429,retry-after=1', 'status=503,retry-after=9', 'error=529,after=2', 'cut=reset,after=1']));
    expect(plan.choose(post('/v1/messages'))).toMatchObject({ status: 429, retryAfterMs: 1000, error: { kind: 'error', status: 529, after: 2, spec: 'error=529,after=2' } });
    expect(plan.choose(post('/v1/messages')).cut).toBeUndefined();
    const cutFirst = new FaultPlan(parseFaults(['cut=clean,after=1', 'error=500']));
    expect(cutFirst.choose(post('/agent'))).toMatchObject({ cut: { how: 'clean', after: 1 } });
    expect(cutFirst.choose(post('/agent')).error).toBeUndefined();
    // An error event, and a hold after N events, are an HTTP stream's: they never select a WebSocket.
    const streamOnly = new FaultPlan(parseFaults(['error=500', 'latency=2s,after=0', 'latency=1s,after=3']));
    expect(streamOnly.choose({ transport: 'ws', method: 'GET', path: '/rpc' })).toBe(NO_FAULTS);
    // The first hold given wins; a plain latency still adds up before the head.
    expect(streamOnly.choose(post('/v1/chat/completions'))).toMatchObject({ latencyMs: 0, stall: { after: 0, ms: 2000 } });
  });

  it('never selects a transport the action cannot act on, and reports such a spec as unmatched', () => {
    const plan = new FaultPlan(parseFaults(['exit=2,after=1', 'close=1011', 'status=503']));
    expect(plan.choose(post('/agent')).specs).toEqual(['status=503']);
    const ws = plan.choose({ transport: 'ws', method: 'GET', path: '/rpc' });
    expect(ws.specs).toEqual(['close=1011', 'status=503']);
    expect(plan.choose({ transport: 'ndjson', method: '', path: '' })).toBe(NO_FAULTS);
    expect(plan.unmatched()).toEqual(['exit=2,after=1']);
  });

  it('chooses nothing without specs', () => {
    const plan = new FaultPlan([]);
    expect(plan.empty).toBe(true);
    expect(plan.choose(post('/'))).toBe(NO_FAULTS);
    expect(plan.unmatched()).toEqual([]);
  });
});
