import { describe, expect, it } from 'vitest';
import { jsonRpcPeerRequest } from '../../src/protocols/json-rpc/peer-request.js';
import { piRpcPeerRequest } from '../../src/protocols/pi-rpc/peer-request.js';
import { piDaemonRpcPeerRequest } from '../../src/protocols/pi-daemon-rpc/peer-request.js';
import { PendingTurns, type RecordedTurn } from '../../src/replay/pending-turns.js';
import type { ScriptMessage } from '../../src/replay/replay-script.js';

let seq = 0;
const msg = (sender: 'client' | 'server', json: Record<string, unknown>): ScriptMessage => {
  const text = JSON.stringify({ jsonrpc: '2.0', ...json });
  return { seq: ++seq, sender, carrier: 'line', channel: null, raw: Buffer.from(text), json: JSON.parse(text), tOffsetMs: seq, truncated: false };
};
const turn = (client: Record<string, unknown>, ...replies: Array<Record<string, unknown>>): RecordedTurn => ({ client: msg('client', client), replies: replies.map((r) => msg('server', r)) });
/** As the replay compares: everything but the id. */
const differ = (live: Record<string, unknown>) => (recorded: ScriptMessage) => {
  const strip = (v: unknown) => JSON.stringify({ ...(v as object), id: undefined, jsonrpc: undefined });
  return strip(recorded.json) === strip(live) ? [] : ['/'];
};
const offer = (pending: PendingTurns<RecordedTurn>, live: Record<string, unknown>) => pending.match(() => live, differ(live));

describe('PendingTurns', () => {
  const roots = { result: { roots: [] } };
  const recorded = () => [turn({ id: 1, method: 'a' }, { id: 'q1', method: 'roots/list' }, { id: 'q2', method: 'roots/list' }), turn({ id: 'q1', ...roots }, { method: 'took-q1' }), turn({ id: 'q2', ...roots }, { method: 'took-q2' }), turn({ id: 2, method: 'b' }), turn({ id: 3, method: 'c' })];

  it("takes the client's own messages in order, and its answers once their request was written, by their id", () => {
    const turns = recorded();
    const pending = new PendingTurns(turns, jsonRpcPeerRequest);
    // Before its requests were written, an answer is not taken ahead of the client's own message.
    expect(offer(pending, { id: 'q1', ...roots })).toMatchObject({ expected: turns[0] });
    expect(offer(pending, { id: 1, method: 'a' })).toEqual({ turn: turns[0] });
    turns[0].replies.forEach((m) => pending.written(m));
    // Its own next message may not be passed over …
    expect(offer(pending, { id: 3, method: 'c' })).toMatchObject({ expected: turns[3], differences: ['/'] });
    // … but its answers may be: asked but not answered yet, they wait.
    expect(offer(pending, { id: 2, method: 'b' })).toEqual({ turn: turns[3] });
    // Two answers alike but for their id: each takes the turn of its own request.
    expect(offer(pending, { id: 'q2', ...roots })).toEqual({ turn: turns[2] });
    expect(offer(pending, { id: 'q1', ...roots })).toEqual({ turn: turns[1] });
    expect(pending.untaken()).toEqual([turns[4]]);
    expect(offer(pending, { id: 3, method: 'c' })).toEqual({ turn: turns[4] });
    expect(pending.done).toBe(true);
  });

  it('without the protocol saying which are answers, keeps the recorded order throughout', () => {
    const turns = recorded();
    const pending = new PendingTurns(turns, undefined);
    turns[0].replies.forEach((m) => pending.written(m));
    expect(offer(pending, { id: 1, method: 'a' })).toEqual({ turn: turns[0] });
    expect(offer(pending, { id: 2, method: 'b' })).toMatchObject({ expected: turns[1] });
    expect(offer(pending, { id: 'q1', ...roots })).toEqual({ turn: turns[1] });
  });

  it('knows each protocol\'s requests of the other side and their answers, by the id that pairs them', () => {
    expect(jsonRpcPeerRequest({ jsonrpc: '2.0', id: 0, method: 'roots/list' })).toEqual({ role: 'request', id: 'v:0' });
    expect(jsonRpcPeerRequest({ jsonrpc: '2.0', id: 0, result: { roots: [] } })).toEqual({ role: 'answer', id: 'v:0' });
    expect(jsonRpcPeerRequest({ jsonrpc: '2.0', id: '0', error: { code: 1, message: 'no' } })).toEqual({ role: 'answer', id: 's:0' });
    expect(jsonRpcPeerRequest({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
    expect(piRpcPeerRequest({ type: 'extension_ui_request', id: 'ui-1', method: 'confirm' })).toEqual({ role: 'request', id: '"ui-1"' });
    expect(piRpcPeerRequest({ type: 'extension_ui_response', id: 'ui-1', confirmed: true })).toEqual({ role: 'answer', id: '"ui-1"' });
    expect(piRpcPeerRequest({ type: 'prompt', id: 'p1', message: 'hi' })).toBeUndefined();
    expect(piDaemonRpcPeerRequest({ kind: 'event', cursor: 'c', sequence: 1, event: { type: 'extension_ui_request', id: 'ui-1', method: 'confirm' } })).toEqual({ role: 'request', id: '"ui-1"' });
    expect(piDaemonRpcPeerRequest({ kind: 'extension_ui_response', response: { type: 'extension_ui_response', id: 'ui-1', confirmed: true } })).toEqual({ role: 'answer', id: '"ui-1"' });
    expect(piDaemonRpcPeerRequest({ kind: 'command', command: { type: 'prompt', id: 'p1' } })).toBeUndefined();
  });
});
