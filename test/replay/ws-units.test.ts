/**
 * The WebSocket replay's pure parts: one-pass id substitution, splitting a connection into turns,
 * upgrade matching and the 1008 close reason.
 */
import { describe, expect, it } from 'vitest';
import type { ScriptExchange, ScriptMessage } from '../../src/replay/replay-script.js';
import { FrameCorrelator } from '../../src/replay/ws/ws-frames.js';
import { WsUpgradeMatcher } from '../../src/replay/match/ws-matcher.js';
import { frameMissReason } from '../../src/replay/ws/ws-miss.js';
import { planConnection } from '../../src/replay/ws/ws-plan.js';
import { substituteOnce } from '../../src/match/token-substitution.js';
import { closeFramePayload } from '../../src/net/ws-close-codes.js';

let seq = 0;
function frame(sender: 'client' | 'server', channel: string, text: string, tOffsetMs = seq): ScriptMessage {
  const raw = channel === 'close' ? closeFramePayload(Number(text.split(' ')[0]), Buffer.from(text.split(' ').slice(1).join(' '))) : Buffer.from(text);
  let json: unknown;
  try {
    json = channel === 'text' ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { seq: ++seq, sender, carrier: 'frame', channel, raw, json, tOffsetMs, truncated: false };
}

function exchange(fields: Partial<ScriptExchange>): ScriptExchange {
  return {
    id: 1,
    transport: 'ws',
    protocol: undefined,
    method: 'GET',
    path: '/ws',
    query: null,
    url: '/ws',
    status: 101,
    subprotocol: null,
    requestHeaders: null,
    responseHeaders: null,
    startedMs: 0,
    endedMs: null,
    outcome: 'complete',
    errorCode: null,
    errorMessage: null,
    closeCode: null,
    closeReason: null,
    stdinEndedMs: null,
    messages: [],
    ...fields,
  };
}

describe('ws replay units', () => {
  it('substitutes every pair in one pass: ids that shifted by one are not substituted twice', () => {
    const pairs = [
      { field: '/id', key: 'id', recorded: 0, live: 1 },
      { field: '/id', key: 'id', recorded: 1, live: 2 },
      { field: '/id', key: 'id', recorded: 'a', live: 'b' },
      { field: '/id', key: 'id', recorded: 'b', live: 'c' },
    ];
    expect(substituteOnce(Buffer.from('[{"id":0},{"id": 1},{"x":0,"id":10},"a","b","ab"]'), pairs).toString()).toBe('[{"id":1},{"id": 2},{"x":0,"id":10},"b","c","ab"]');
    const untouched = Buffer.from('{"id":5}');
    expect(substituteOnce(untouched, pairs)).toBe(untouched);
  });

  it('compares frames without volatile fields and learns the live ids', () => {
    const correlator = new FrameCorrelator('acp', []);
    const recorded = frame('client', 'text', '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}');
    expect(correlator.differences(recorded, { channel: 'text', data: Buffer.from('{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1}}') })).toEqual([]);
    expect(correlator.differences(recorded, { channel: 'text', data: Buffer.from('{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":2}}') })).toEqual(['/params/protocolVersion']);
    expect(correlator.differences(recorded, { channel: 'binary', data: Buffer.from('x') })).toEqual(['channel']);
    correlator.learn(recorded, { channel: 'text', data: Buffer.from('{"jsonrpc":"2.0","id":7,"method":"initialize"}') });
    expect(correlator.substitutions).toBe(1);
    expect(correlator.substitute(frame('server', 'text', '{"jsonrpc":"2.0","id":0,"result":{}}')).toString()).toBe('{"jsonrpc":"2.0","id":7,"result":{}}');
  });

  it("ignores the correlationId a client mints for a Pi tree navigation, and echoes the live one in the result", () => {
    const correlator = new FrameCorrelator('pi-daemon-rpc', []);
    const recorded = frame('client', 'text', '{"kind":"tree_navigate","correlationId":"nav-recorded-1","request":{"entryId":"entry-1"}}');
    const live = (entryId: string) => ({ channel: 'text' as const, data: Buffer.from(`{"kind":"tree_navigate","correlationId":"nav-live-42","request":{"entryId":"${entryId}"}}`) });
    expect(correlator.differences(recorded, live('entry-1'))).toEqual([]);
    expect(correlator.differences(recorded, live('entry-2'))).toEqual(['/request/entryId']);
    correlator.learn(recorded, live('entry-1'));
    const result = frame('server', 'text', '{"kind":"tree_navigate_result","correlationId":"nav-recorded-1","result":{"cancelled":false}}');
    expect(correlator.substitute(result).toString()).toBe('{"kind":"tree_navigate_result","correlationId":"nav-live-42","result":{"cancelled":false}}');
  });

  it('splits a connection into a preamble, turns and the ending, leaving out the close echo', () => {
    const messages = [
      frame('server', 'text', '{"kind":"attach_ready"}'),
      frame('client', 'text', '{"kind":"command"}'),
      frame('server', 'text', '{"kind":"response"}'),
      frame('client', 'ping', 'hi'),
      frame('server', 'pong', 'hi'),
      frame('server', 'close', '4001 bye', 99),
      frame('client', 'close', '4001 bye'),
    ];
    const plan = planConnection(exchange({ messages }));
    expect(plan.preamble.map((m) => m.seq)).toEqual([messages[0].seq]);
    expect(plan.turns.map((t) => [t.client.channel, t.replies.map((r) => r.channel)])).toEqual([
      ['text', ['text']],
      ['ping', ['pong']],
    ]);
    expect(plan.ending).toEqual({ by: 'server', code: 4001, reason: 'bye', at: 99 });
    expect(planConnection(exchange({ messages: messages.slice(0, 3) })).ending).toEqual({ by: 'client' });
    expect(planConnection(exchange({ messages: messages.slice(0, 3), errorCode: 'E_UPSTREAM_RESET', endedMs: 50 })).ending).toEqual({ by: 'server-reset', at: 50 });
  });

  it('matches upgrades by route and subprotocol, in order, and explains a miss', () => {
    const matcher = new WsUpgradeMatcher(
      [
        exchange({ id: 1, subprotocol: 'a.v1' }),
        exchange({ id: 2, status: 426, outcome: 'rejected', requestHeaders: {} }),
        exchange({ id: 3, subprotocol: 'a.v1' }),
      ],
      false,
    );
    const hit = (offered: string[]) => {
      const result = matcher.match({ path: '/ws', query: '', offered });
      return result.kind === 'hit' ? result.exchange.id : result.miss;
    };
    expect(hit(['b.v1', 'a.v1'])).toBe(1);
    expect(hit([])).toBe(2);
    expect(hit(['a.v1'])).toBe(3);
    expect(hit(['a.v1'])).toMatchObject({ reason: 'exhausted', nearest: { exchangeId: 3 } });
    expect(hit(['c.v1'])).toMatchObject({ reason: 'no-match', differences: ['subprotocol'] });
    expect(matcher.match({ path: '/other', query: '', offered: ['a.v1'] })).toMatchObject({ kind: 'miss', miss: { differences: ['path'] } });
  });

  it('fits the 1008 reason into 123 bytes without splitting a character', () => {
    const expected = frame('client', 'text', '{}');
    const reason = frameMissReason(expected, ['/command/type', '/command/message'], { kind: 'command', command: { type: 'prompt', message: 'ü'.repeat(100) } });
    expect(reason.startsWith(`replay miss vs recorded frame ${expected.seq} at /command/type, /command/message; got {"kind"`)).toBe(true);
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
    expect(reason).not.toContain('\uFFFD');
  });
});
