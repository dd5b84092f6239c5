/**
 * `proxy record` in front of the Pi daemon's RPC WebSocket: framed (`pi-daemon-rpc.v1`) and raw
 * (`pi-rpc.v1`) sessions see exactly the frames, order and close they see direct; the recording
 * holds every frame in order with its sender and a verdict; the daemon's subprotocol choice and
 * its refusals (426, 409, 401) reach the client unchanged.
 */
import { describe, expect, it } from 'vitest';
import { parseCloseFramePayload } from '../../src/net/ws-close-codes.js';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import type { MessageRow } from '../../src/store/recording-reader.js';
import type { PiDaemonOptions } from '../support/pi-daemon-standin.js';
import { bearer, daemon, errorsOf, expectAllValid, findingsOf, record, refusalHeaders, useCleanups, wsOpen, wsRefusal, type Refusal } from './pi-helpers.js';
import { within } from '../support/waits.js';

useCleanups();

/** What one client did and saw on a connection, in order. */
type LogEntry = { sender: 'client' | 'server'; channel: 'text' | 'ping' | 'pong' | 'close'; data: string };

interface Session {
  protocol: string;
  log: LogEntry[];
  closed: { code: number; reason: string };
}

/**
 * One RPC session: attach, get_state, a ping, a prompt whose turn ends with the daemon closing the
 * connection (closeCodeAfterPrompt). Each step waits for its answer, so the order is causal and must
 * be the same direct, through the proxy, and in the recording.
 */
async function rpcSession(wsBase: string, token: string, mode: 'framed' | 'raw'): Promise<Session> {
  const protocol = mode === 'framed' ? 'pi-daemon-rpc.v1' : 'pi-rpc.v1';
  const c = await wsOpen(`${wsBase}/v1/session/agent-a/rpc?role=controller`, protocol, { headers: bearer(token) });
  const log: LogEntry[] = [];
  let seen = 0;
  const receive = async (n: number) => {
    const frames = await c.take(seen + n);
    for (const data of frames.slice(seen)) log.push({ sender: 'server', channel: 'text', data });
    seen += n;
    return frames.slice(-n).map((f) => JSON.parse(f));
  };
  const send = (command: Record<string, unknown>) => {
    const data = JSON.stringify(mode === 'framed' ? { kind: 'command', command } : command);
    log.push({ sender: 'client', channel: 'text', data });
    c.ws.send(data);
  };

  if (mode === 'framed') expect((await receive(1))[0]).toMatchObject({ kind: 'attach_ready', role: 'controller', sessionId: 'agent-a' });
  send({ id: 'state-1', type: 'get_state' });
  await receive(1);
  const pong = new Promise<string>((r) => c.ws.once('pong', (data) => r(data.toString())));
  log.push({ sender: 'client', channel: 'ping', data: 'are-you-there' });
  c.ws.ping('are-you-there');
  log.push({ sender: 'server', channel: 'pong', data: await within(pong, 'the pong') });
  send({ id: 'prompt-1', type: 'prompt', message: 'READFILE please read hello.txt' });
  const closed = await within(c.closed, 'the daemon to close after the prompt');
  for (const data of c.frames.slice(seen)) log.push({ sender: 'server', channel: 'text', data });
  // The daemon's close frame, then the client's answer to it (ws echoes the code and reason).
  log.push({ sender: 'server', channel: 'close', data: `${closed.code} ${closed.reason}` });
  log.push({ sender: 'client', channel: 'close', data: `${closed.code} ${closed.reason}` });
  return { protocol: c.ws.protocol, log, closed };
}

function recordedLog(messages: MessageRow[]): LogEntry[] {
  return messages.map((m) => {
    const channel = m.channel as LogEntry['channel'];
    if (channel === 'close') {
      const { code, reason } = parseCloseFramePayload(m.raw);
      return { sender: m.sender, channel, data: `${code} ${reason}` };
    }
    return { sender: m.sender, channel, data: m.raw.toString() };
  });
}

describe('proxy record: Pi daemon RPC WebSocket', () => {
  // A non-trivial close: an application code and a reason with multi-byte UTF-8.
  const CLOSE = { code: 4001, reason: 'turn over — fin ✓' };

  for (const mode of ['framed', 'raw'] as const) {
    const protocol = mode === 'framed' ? 'pi-daemon-rpc' : 'pi-rpc';
    it(`${mode}: the client sees the same frames, order and close code as direct, and every frame is recorded`, async () => {
      const options: PiDaemonOptions = { deterministic: true, closeCodeAfterPrompt: CLOSE, rpcTurn: mode === 'framed' ? 'tool-call' : 'text' };
      const direct = await daemon(options);
      const proxied = await daemon(options);
      const rec = await record(proxied.url);

      const expected = await rpcSession(direct.wsUrl, direct.token, mode);
      const seen = await rpcSession(rec.wsUrl, proxied.token, mode);

      // The session did what it should (so the comparison compares something).
      const serverTexts = expected.log.filter((e) => e.sender === 'server' && e.channel === 'text');
      expect(serverTexts).toHaveLength(mode === 'framed' ? 1 + 2 + 27 : 2 + 16);
      expect(expected.closed).toEqual(CLOSE);
      expect(expected.protocol).toBe(`${protocol}.v1`);

      expect(seen.protocol).toBe(expected.protocol);
      expect(seen.closed).toEqual(expected.closed);
      expect(seen.log).toEqual(expected.log);
      // The daemon behind the proxy got the same frames, and saw the client answer its close.
      const [upstream] = proxied.received.ws;
      expect(upstream.fromClient).toEqual(direct.received.ws[0].fromClient);
      expect(await within(upstream.closed, 'the daemon to see the close')).toEqual(CLOSE);

      const reader = await rec.finish();
      const [exchange] = reader.exchanges();
      expect(reader.exchanges()).toHaveLength(1);
      expect(exchange).toMatchObject({
        transport: 'ws',
        protocol,
        method: 'GET',
        path: '/v1/session/agent-a/rpc',
        query: 'role=controller',
        status: 101,
        subprotocol: `${protocol}.v1`,
        outcome: 'complete',
        closeCode: 4001,
        closeReason: CLOSE.reason,
      });
      const messages = reader.messages(exchange.id);
      expect(recordedLog(messages)).toEqual(seen.log);
      expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i + 1));
      expect(messages.every((m) => m.carrier === 'frame')).toBe(true);
      // Text frames are judged (and valid); control frames are stored, not judged.
      const texts = messages.filter((m) => m.channel === 'text');
      expectAllValid(texts, `${mode} text frames`);
      expect(texts.every((m) => m.verdict.schemaRef?.startsWith(`${PI_SESSION_API_ID}#/$defs/`))).toBe(true);
      expect(errorsOf(messages)).toEqual([]);
      expect(findingsOf(messages)).toEqual([]);
      for (const m of messages.filter((m) => m.channel !== 'text')) expect(m.verdict.status, `${m.channel} row`).toBe('unchecked');
      const closes = messages.filter((m) => m.channel === 'close');
      expect(closes.map((m) => m.json)).toEqual([
        CLOSE,
        CLOSE,
      ]);
      if (mode === 'framed') {
        const refs = texts.filter((m) => m.sender === 'server').map((m) => m.verdict.schemaRef!.split('/').at(-1));
        expect(refs.slice(0, 3)).toEqual(['rpcAttachReadyFrame', 'rpcResponseFrame', 'rpcResponseFrame']);
        expect(new Set(refs.slice(3))).toEqual(new Set(['rpcEventFrame']));
      }
    });
  }

  it('the recording flags a frame that breaks the protocol (negative control)', async () => {
    const d = await daemon({ deterministic: true });
    const rec = await record(d.url);
    const c = await wsOpen(`${rec.wsUrl}/v1/session/agent-a/rpc`, 'pi-daemon-rpc.v1', { headers: bearer(d.token) });
    await c.take(1);
    c.ws.send(JSON.stringify({ kind: 'event', sequence: 1, cursor: 'x', event: { type: 'agent_start' } }));
    expect((await c.closed).code).toBe(1008);
    const reader = await rec.finish();
    const messages = reader.messages(reader.exchanges()[0].id);
    const bad = messages.find((m) => m.sender === 'client' && m.channel === 'text')!;
    expect(bad.verdict.status).toBe('invalid');
    expect(bad.verdict.findings.map((f) => f.rule)).toContain('wrong-direction');
    expect(reader.exchanges()[0]).toMatchObject({ outcome: 'complete', closeCode: 1008 });
  });

  it('echoes the subprotocol the daemon picked, in the client offer order, as direct', async () => {
    const direct = await daemon({ deterministic: true });
    const proxied = await daemon({ deterministic: true });
    const rec = await record(proxied.url);
    const offers = [
      ['pi-rpc.v1', 'pi-daemon-rpc.v1'],
      ['pi-daemon-rpc.v1', 'pi-rpc.v1'],
      ['x-unknown.v1', 'pi-daemon-rpc.v1'],
    ];
    const picked = async (wsBase: string, token: string) => {
      const out: string[] = [];
      for (const offer of offers) {
        const c = await wsOpen(`${wsBase}/v1/session/agent-a/rpc`, offer, { headers: bearer(token) });
        out.push(c.ws.protocol);
        c.ws.close(1000);
        await c.closed;
      }
      return out;
    };
    const expected = await picked(direct.wsUrl, direct.token);
    expect(expected).toEqual(['pi-rpc.v1', 'pi-daemon-rpc.v1', 'pi-daemon-rpc.v1']);
    expect(await picked(rec.wsUrl, proxied.token)).toEqual(expected);
    // The daemon was offered exactly what the client offered, in the same order.
    const offered = (d: typeof direct) => d.received.http.filter((r) => r.upgrade).map((r) => r.headers['sec-websocket-protocol']);
    expect(offered(proxied)).toEqual(offered(direct));

    const reader = await rec.finish();
    expect(reader.exchanges().map((e) => [e.status, e.subprotocol, e.protocol, e.outcome])).toEqual([
      [101, 'pi-rpc.v1', 'pi-rpc', 'complete'],
      [101, 'pi-daemon-rpc.v1', 'pi-daemon-rpc', 'complete'],
      [101, 'pi-daemon-rpc.v1', 'pi-daemon-rpc', 'complete'],
    ]);
  });

  it("mirrors the daemon's refusals (426 without a subprotocol, 409 stale generation, 401) and records them as rejected", async () => {
    const direct = await daemon({ deterministic: true });
    const proxied = await daemon({ deterministic: true });
    const rec = await record(proxied.url);
    const attempts = (token: string) => [
      { path: '/v1/session/agent-a/rpc', protocols: [] as string[], headers: bearer(token) },
      { path: '/v1/session/agent-a/rpc?generation=999', protocols: ['pi-daemon-rpc.v1'], headers: bearer(token) },
      { path: '/v1/session/agent-a/apc', protocols: [] as string[], headers: bearer(token) },
      { path: '/v1/session/agent-a/rpc', protocols: ['pi-rpc.v1'], headers: {} },
    ];
    const refusals = async (wsBase: string, token: string) => {
      const out: Refusal[] = [];
      for (const a of attempts(token)) out.push(await wsRefusal(wsBase + a.path, a.protocols, { headers: a.headers }));
      return out;
    };
    const expected = await refusals(direct.wsUrl, direct.token);
    const seen = await refusals(rec.wsUrl, proxied.token);

    expect(expected.map((r) => r.status)).toEqual([426, 409, 426, 401]);
    expect(expected[0].headers['sec-websocket-protocol']).toBe('pi-rpc.v1, pi-daemon-rpc.v1');
    expect(JSON.parse(expected[1].text).error).toMatchObject({ code: 'stale_generation', details: { requestedGeneration: 999, currentGeneration: 1 } });
    expect(expected[2].headers['sec-websocket-protocol']).toBe('agent-client-protocol.v1');
    expect(expected[3].headers['www-authenticate']).toBe('Bearer');
    for (let i = 0; i < expected.length; i++) {
      expect(seen[i].status, attempts('')[i].path).toBe(expected[i].status);
      expect(seen[i].text, attempts('')[i].path).toBe(expected[i].text);
      expect(refusalHeaders(seen[i].headers), attempts('')[i].path).toEqual(refusalHeaders(expected[i].headers));
    }
    expect(proxied.received.ws).toHaveLength(0);

    const reader = await rec.finish();
    const exchanges = reader.exchanges();
    expect(exchanges.map((e) => [e.transport, e.path, e.query, e.status, e.outcome, e.protocol])).toEqual([
      ['ws', '/v1/session/agent-a/rpc', null, 426, 'rejected', 'pi-rest'],
      ['ws', '/v1/session/agent-a/rpc', 'generation=999', 409, 'rejected', 'pi-rest'],
      ['ws', '/v1/session/agent-a/apc', null, 426, 'rejected', 'pi-rest'],
      ['ws', '/v1/session/agent-a/rpc', null, 401, 'rejected', 'pi-rest'],
    ]);
    expect(exchanges[0].responseHeaders).toMatchObject({ 'sec-websocket-protocol': 'pi-rpc.v1, pi-daemon-rpc.v1' });
    for (const [i, e] of exchanges.entries()) {
      const messages = reader.messages(e.id);
      expect(messages).toHaveLength(1);
      const [body] = messages;
      expect(body).toMatchObject({ sender: 'server', carrier: 'body' });
      expect(body.raw.toString()).toBe(seen[i].text);
      expect(body.verdict).toMatchObject({ status: 'valid', schemaRef: `${PI_SESSION_API_ID}#/$defs/apiErrorEnvelope` });
      expect(errorsOf(messages)).toEqual([]);
    }
  });

  it('closes an open session with 1001 when the recorder stops, and ends its exchange', async () => {
    const d = await daemon({ deterministic: true });
    const rec = await record(d.url);
    const c = await wsOpen(`${rec.wsUrl}/v1/session/agent-a/rpc`, 'pi-daemon-rpc.v1', { headers: bearer(d.token) });
    await c.take(1);
    const totals = await rec.recorder.close();
    expect(totals).toMatchObject({ exchanges: 1, invalid: 0 });
    expect(await c.closed).toEqual({ code: 1001, reason: 'proxy shutting down' });
    expect(await within(d.received.ws[0].closed, 'the daemon to see the close')).toEqual({ code: 1001, reason: 'proxy shutting down' });
    const reader = await rec.finish();
    expect(reader.recording().endedAt).toBeDefined();
    expect(reader.exchanges()[0]).toMatchObject({ outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN', closeCode: 1001 });
    // close() waited for both legs: the attach_ready, then each peer's answer to the proxy's 1001.
    const messages = reader.messages(1);
    expect(messages.map((m) => m.channel)).toEqual(['text', 'close', 'close']);
    expect(messages.slice(1).map((m) => `${m.sender} ${JSON.stringify(m.json)}`).sort()).toEqual([
      'client {"code":1001,"reason":"proxy shutting down"}',
      'server {"code":1001,"reason":"proxy shutting down"}',
    ]);
  });
});
