/**
 * The inspector's Pi and ACP session views over the JSON API (no browser): framed RPC, raw RPC and
 * ACP sessions recorded through the recorder in front of the Pi daemon stand-in, plus a tiny
 * recording written by hand for what the stand-in never does (a sequence gap, an unanswered
 * command, an agent-to-client request).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { ClientSideConnection, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { startRecorder } from '../../src/record/start-recorder.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { startInspector, type RunningInspector } from '../../src/ui/server/inspector-server.js';
import type { AcpSessionView, ExchangeDetail, ExchangeSummary, PiSessionView } from '../../src/ui/api-types.js';
import { acpStreamFromWebSocket } from '../support/acp-over-ws.js';
import { startPiDaemon } from '../support/pi-daemon-standin.js';
import { bareRegistry } from '../support/shared.js';
import { waitFor } from '../support/waits.js';
import { tempDir } from '../support/temp-dir.js';

const folder = tempDir('agent-proxy-ui-');
const dir = folder.dir;
const RECORDED = join(dir, 'recorded.db');
const HAND = join(dir, 'hand.db');
let recorded: RunningInspector;
let hand: RunningInspector;

/** One WebSocket session: sends `out` one at a time, waiting until `expect` frames have arrived. */
async function wsSession(url: string, protocol: string, token: string, steps: Array<{ send?: unknown; until: number }>): Promise<string[]> {
  const ws = new WebSocket(url, protocol, { headers: { authorization: `Bearer ${token}` } });
  const frames: string[] = [];
  ws.on('message', (data) => frames.push(data.toString()));
  await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
  for (const step of steps) {
    if (step.send !== undefined) ws.send(JSON.stringify(step.send));
    await waitFor(() => frames.length >= step.until, `${step.until} frames`, { wakeOn: [[ws, 'message']] });
  }
  const closed = new Promise<void>((r) => ws.once('close', () => r()));
  ws.close(1000, 'done');
  await closed;
  return frames;
}

/** initialize → session/new → prompt → session/load (history outside any turn) → prompt (tool call) → an unknown method. */
async function acpConversation(wsBase: string, token: string): Promise<void> {
  const ws = new WebSocket(`${wsBase}/v1/session/agent-a/apc`, 'agent-client-protocol.v1', { headers: { authorization: `Bearer ${token}` } });
  const closed = new Promise<void>((r) => ws.on('close', () => r()));
  const client = new ClientSideConnection(
    () => ({ requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }), sessionUpdate: async () => undefined }),
    acpStreamFromWebSocket(ws),
  );
  await client.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
  const session = await client.newSession({ cwd: '/srv/work/project-a', mcpServers: [] });
  await client.prompt({ sessionId: session.sessionId, prompt: [{ type: 'text', text: 'Say hello' }] });
  await client.loadSession({ sessionId: 'agent-a', cwd: '/srv/work/project-a', mcpServers: [] });
  await client.prompt({ sessionId: 'agent-a', prompt: [{ type: 'text', text: 'READFILE please read hello.txt' }] });
  await client.extMethod('no/such_method', {}).catch(() => undefined);
  ws.close(1000, 'bye');
  await closed;
}

async function recordThroughStandin(): Promise<void> {
  const daemon = await startPiDaemon({ deterministic: true, rpcTurn: 'text' });
  let ended = 0;
  const recorder = await startRecorder({ target: daemon.url, listen: 0, out: RECORDED, registry: bareRegistry(), pipeline: 'inline', listener: (e) => void (e.type === 'exchange-end' && ended++) });
  try {
    const ws = recorder.url.replace(/^http:/, 'ws:');
    // Framed: attach_ready, then prompt (response + 16 events), an id-less get_state, an unknown command.
    await wsSession(`${ws}/v1/session/agent-a/rpc`, 'pi-daemon-rpc.v1', daemon.token, [
      { until: 1 },
      { send: { kind: 'command', command: { id: 'p-1', type: 'prompt', message: 'Say hello' } }, until: 18 },
      { send: { kind: 'command', command: { type: 'get_state' } }, until: 19 },
      { send: { kind: 'command', command: { id: 'x-1', type: 'no_such_command' } }, until: 20 },
    ]);
    // Raw: one command with an id.
    await wsSession(`${ws}/v1/session/agent-a/rpc`, 'pi-rpc.v1', daemon.token, [{ send: { id: 's-1', type: 'get_state' }, until: 1 }]);
    await acpConversation(ws, daemon.token);
    // Stop recording once the three connections have ended (each when both of its legs have closed).
    await waitFor(() => ended >= 3, 'the three connections to end');
  } finally {
    await recorder.close();
    await daemon.close();
  }
}

/**
 * By hand: a framed session where events 3 and 4 never arrive and one command is never answered,
 * with two id-less get_state commands answered oldest first; and an ACP exchange where the agent
 * asks the client for permission mid-turn and one client request stays unanswered.
 */
function writeHandRecording(): void {
  const w = RecordingWriter.open(HAND, { toolVersion: 'test', target: 'http://127.0.0.1:1', mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
  const add = (exchangeId: number, sender: 'client' | 'server', t: number, json: unknown, channel = 'text') =>
    w.addMessage({ exchangeId, sender, carrier: 'frame', channel, tOffsetMs: t, raw: Buffer.from(JSON.stringify(json)), json, verdict: { status: 'unchecked', findings: [] } });
  const pi = w.beginExchange({ transport: 'ws', protocol: 'pi-daemon-rpc', method: 'GET', path: '/v1/session/agent-a/rpc', subprotocol: 'pi-daemon-rpc.v1', tOffsetMs: 100 });
  const ev = (sequence: number) => ({ kind: 'event', cursor: `c${sequence}`, sequence, event: { type: 'message_update' } });
  add(pi, 'server', 100, { kind: 'attach_ready', sessionId: 'agent-a', role: 'controller' }); // 1
  add(pi, 'client', 110, { kind: 'command', command: { type: 'get_state' } }); // 2
  add(pi, 'client', 111, { kind: 'command', command: { type: 'get_state' } }); // 3
  add(pi, 'client', 112, { kind: 'command', command: { id: 'lost', type: 'abort' } }); // 4
  add(pi, 'server', 130, { kind: 'response', response: { type: 'response', command: 'get_state', success: true, data: { n: 1 } } }); // 5
  add(pi, 'server', 131, ev(1)); // 6
  add(pi, 'server', 132, ev(2)); // 7
  add(pi, 'server', 133, ev(5)); // 8: 3 and 4 missing
  add(pi, 'server', 141, { kind: 'response', response: { type: 'response', command: 'get_state', success: false, error: 'busy' } }); // 9
  add(pi, 'server', 150, { kind: 'response', response: { id: 'nobody', type: 'response', command: 'steer', success: true } }); // 10
  add(pi, 'server', 151, ev(6)); // 11
  add(pi, 'client', 160, { code: 1000, reason: 'bye' }, 'close'); // 12: a close frame, as the relay stores it
  w.endExchange(pi, { outcome: 'complete', tOffsetMs: 170 });

  const acp = w.beginExchange({ transport: 'ws', protocol: 'acp', method: 'GET', path: '/v1/session/agent-a/apc', subprotocol: 'agent-client-protocol.v1', tOffsetMs: 200 });
  const rpc = (sender: 'client' | 'server', t: number, body: object) => add(acp, sender, t, { jsonrpc: '2.0', ...body });
  const update = (t: number, kind: string) => rpc('server', t, { method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: kind } } });
  rpc('client', 200, { id: 0, method: 'session/prompt', params: { sessionId: 's', prompt: [] } }); // 1
  update(205, 'agent_message_chunk'); // 2
  rpc('server', 206, { id: 0, method: 'session/request_permission', params: { sessionId: 's' } }); // 3: same id, other direction
  rpc('client', 216, { id: 0, result: { outcome: { outcome: 'cancelled' } } }); // 4
  update(220, 'tool_call'); // 5
  rpc('server', 240, { id: 0, result: { stopReason: 'cancelled' } }); // 6
  update(241, 'agent_message_chunk'); // 7: after the turn
  rpc('client', 250, { id: 1, method: 'session/cancel_all' }); // 8: never answered
  rpc('client', 251, { method: 'session/cancel', params: { sessionId: 's' } }); // 9
  w.endExchange(acp, { outcome: 'complete', tOffsetMs: 260 });

  const rest = w.beginExchange({ transport: 'http', protocol: 'pi-rest', method: 'GET', path: '/v1/capabilities', tOffsetMs: 300 });
  w.endExchange(rest, { outcome: 'complete', tOffsetMs: 301 });
  w.close();
}

async function get<T>(inspector: RunningInspector, path: string, status = 200): Promise<T> {
  const res = await fetch(inspector.url + path);
  expect(res.status, `${path}: ${res.status}`).toBe(status);
  return (await res.json()) as T;
}

beforeAll(async () => {
  await recordThroughStandin();
  writeHandRecording();
  recorded = await startInspector({ recording: RECORDED, listen: 0 });
  hand = await startInspector({ recording: HAND, listen: 0 });
});

afterAll(async () => {
  await recorded?.close();
  await hand?.close();
  folder.cleanup();
});

async function exchangeOf(inspector: RunningInspector, protocol: string): Promise<number> {
  const rows = await get<ExchangeSummary[]>(inspector, `/api/exchanges?protocol=${protocol}`);
  expect(rows, protocol).toHaveLength(1);
  return rows[0].id;
}

describe('inspector session view: Pi RPC', () => {
  it('pairs framed commands with their responses, by id and id-less by type, with latency', async () => {
    const id = await exchangeOf(recorded, 'pi-daemon-rpc');
    const view = await get<PiSessionView>(recorded, `/api/exchanges/${id}/session`);
    expect(view).toMatchObject({ kind: 'pi', exchangeId: id, mode: 'framed', unanswered: 0, gaps: [] });
    expect(view.pairs.map((p) => [p.label, p.id, p.ok, p.error])).toEqual([
      ['prompt', '"p-1"', true, null],
      ['get_state', null, true, null],
      ['no_such_command', '"x-1"', false, 'Unknown command: no_such_command'],
    ]);
    for (const p of view.pairs) {
      expect(p.from).toBe('client');
      expect(p.responseSeq!).toBeGreaterThan(p.requestSeq!);
      expect(p.latencyMs).toBe(p.responseAtMs! - p.requestAtMs!);
      expect(p.latencyMs).toBeGreaterThanOrEqual(0);
    }
    expect(view.events).toHaveLength(16);
    expect(view.events.map((e) => e.sequence)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(view.events[0].type).toBe('agent_start');
    expect(view.other.map((f) => f.label)).toEqual(['attach_ready']);
  });

  it('pairs raw commands too; raw events carry no sequence', async () => {
    const id = await exchangeOf(recorded, 'pi-rpc');
    const view = await get<PiSessionView>(recorded, `/api/exchanges/${id}/session`);
    expect(view).toMatchObject({ kind: 'pi', mode: 'raw', unanswered: 0, events: [], gaps: [] });
    expect(view.pairs).toEqual([expect.objectContaining({ label: 'get_state', id: '"s-1"', ok: true, requestSeq: 1, responseSeq: 2 })]);
  });

  it('marks a sequence gap, flags the unanswered command and a response nothing asked for', async () => {
    const view = await get<PiSessionView>(hand, '/api/exchanges/1/session');
    expect(view.gaps).toEqual([{ seq: 8, after: 2, next: 5, missing: 2 }]);
    expect(view.events.map((e) => e.sequence)).toEqual([1, 2, 5, 6]);
    expect(view.unanswered).toBe(1);
    expect(view.pairs.map((p) => [p.label, p.requestSeq, p.responseSeq, p.ok, p.latencyMs])).toEqual([
      // id-less commands of one type are answered oldest first
      ['get_state', 2, 5, true, 20],
      ['get_state', 3, 9, false, 30],
      ['abort', 4, null, null, null],
      ['steer', null, 10, true, null],
    ]);
    expect(view.pairs[1].error).toBe('busy');
    // attach_ready is neither a command nor an event; the close frame is left out
    expect(view.other.map((f) => [f.seq, f.label])).toEqual([[1, 'attach_ready']]);
  });
});

describe('inspector session view: ACP', () => {
  it('pairs requests with responses and groups session/update by turn', async () => {
    const id = await exchangeOf(recorded, 'acp');
    const view = await get<AcpSessionView>(recorded, `/api/exchanges/${id}/session`);
    expect(view).toMatchObject({ kind: 'acp', exchangeId: id, unanswered: 0 });
    expect(view.pairs.map((p) => [p.label, p.from, p.ok])).toEqual([
      ['initialize', 'client', true],
      ['session/new', 'client', true],
      ['session/prompt', 'client', true],
      ['session/load', 'client', true],
      ['session/prompt', 'client', true],
      ['no/such_method', 'client', false],
    ]);
    expect(view.pairs[5].error).toMatch(/^-32601 /);
    for (const p of view.pairs) expect(p.latencyMs).toBe(p.responseAtMs! - p.requestAtMs!);

    expect(view.turns).toHaveLength(2);
    const [first, second] = view.turns;
    expect(first).toMatchObject({ promptSeq: view.pairs[2].requestSeq, responseSeq: view.pairs[2].responseSeq, sessionId: 'agent-a', stopReason: 'end_turn', ok: true });
    expect(second).toMatchObject({ promptSeq: view.pairs[4].requestSeq, stopReason: 'end_turn', ok: true });
    for (const turn of view.turns) {
      expect(turn.updates.length).toBeGreaterThan(0);
      expect(turn.updates.every((u) => u.seq > turn.promptSeq && u.seq < turn.responseSeq!)).toBe(true);
    }
    expect(second.updates.map((u) => u.update)).toContain('tool_call');
    // session/load replays the history between the turns: those updates belong to no turn.
    const load = view.pairs[3];
    expect(view.outsideTurns.length).toBeGreaterThan(0);
    expect(view.outsideTurns.every((u) => u.seq > load.requestSeq! && u.seq < load.responseSeq!)).toBe(true);
  });

  it('pairs by id in either direction and flags an unanswered request', async () => {
    const view = await get<AcpSessionView>(hand, '/api/exchanges/2/session');
    expect(view.pairs.map((p) => [p.label, p.from, p.requestSeq, p.responseSeq, p.ok, p.latencyMs])).toEqual([
      ['session/prompt', 'client', 1, 6, true, 40],
      ['session/request_permission', 'server', 3, 4, true, 10],
      ['session/cancel_all', 'client', 8, null, null, null],
    ]);
    expect(view.unanswered).toBe(1);
    expect(view.turns).toEqual([
      {
        promptSeq: 1,
        responseSeq: 6,
        sessionId: 's',
        stopReason: 'cancelled',
        ok: true,
        startMs: 200,
        durationMs: 40,
        updates: [
          { seq: 2, atMs: 205, sessionId: 's', update: 'agent_message_chunk' },
          { seq: 5, atMs: 220, sessionId: 's', update: 'tool_call' },
        ],
      },
    ]);
    expect(view.outsideTurns.map((u) => u.seq)).toEqual([7]);
    expect(view.other).toEqual([{ seq: 9, sender: 'client', atMs: 251, label: 'session/cancel' }]);
  });

  it('tells the page which views each exchange has, as its protocol declares them', async () => {
    expect((await get<ExchangeDetail>(hand, '/api/exchanges/1')).views).toEqual({ tab: { route: 'session', label: 'Pi session' }, state: false, answer: false });
    expect((await get<ExchangeDetail>(hand, '/api/exchanges/2')).views).toEqual({ tab: { route: 'session', label: 'ACP session' }, state: false, answer: false });
    expect((await get<ExchangeDetail>(hand, '/api/exchanges/3')).views).toEqual({ tab: null, state: false, answer: false });
    expect((await get<{ error: string }>(hand, '/api/exchanges/2/run', 404)).error).toMatch(/acp.*no run view \(agui does\)/);
    await get(hand, '/api/exchanges/2/state', 404);
  });

  it('answers 404 for an exchange of another protocol', async () => {
    const body = await get<{ error: string }>(hand, '/api/exchanges/3/session', 404);
    expect(body.error).toMatch(/pi-rest.*no session view/);
    await get(hand, '/api/exchanges/99/session', 404);
  });
});
