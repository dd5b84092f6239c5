/**
 * The WebSocket replay at its edges: shutdown closes open connections with 1001, keepalive pings
 * are not conversation, `--on-miss passthrough` relays an unmatched upgrade, bad upgrades and
 * resets do not hurt the server.
 */
import { connect as netConnect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { waitFor, within } from '../support/waits.js';
import { record, replay, useCleanups } from './replay-helpers.js';
import { bearer, CLOSE, connect, daemon, piRegistry, rpcSession } from './ws-replay-helpers.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { scratch } from '../support/temp-dir.js';
import { wsRefusal } from '../support/ws-client.js';

useCleanups();

async function recordFramed(): Promise<{ out: string; token: string; url: string }> {
  const d = await daemon({ closeCodeAfterPrompt: CLOSE, rpcTurn: 'text' });
  const rec = await record(d.url, { registry: piRegistry() });
  await rpcSession(rec.url.replace(/^http:/, 'ws:'), d.token, 'framed', { state: 'state-1', prompt: 'prompt-1' });
  await rec.finish();
  return { out: rec.out, token: d.token, url: d.url };
}

/** The raw bytes a server answers to a hand-written request. */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return within(
    new Promise((resolve, reject) => {
      const socket = netConnect(Number(port), hostname, () => socket.end(request));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
      socket.on('error', reject);
    }),
    'the raw answer',
  );
}

/** A recording of one upgrade the proxy answered itself (502, no upstream headers), ended with `errorCode`. */
function refusedUpgrade(errorCode: string, errorMessage: string): string {
  const out = scratch().file('refused.db');
  const writer = RecordingWriter.open(out, { toolVersion: 'test', target: 'https://agents.example.test', mode: 'record', schemaHashes: {}, startedAt: new Date() });
  const id = writer.beginExchange({ transport: 'ws', method: 'GET', path: '/socket', url: '/socket', tOffsetMs: 0 });
  writer.updateExchange(id, { status: 502 });
  writer.endExchange(id, { outcome: 'error', errorCode, errorMessage, tOffsetMs: 1 });
  writer.close();
  return out;
}

describe('proxy replay: WebSocket edges', () => {
  it("a recorded upgrade the proxy answered for a failed upstream gets the same JSON error with the target; another E_UPSTREAM… code gets none", async () => {
    const tls = await replay(refusedUpgrade('E_UPSTREAM_TLS', 'TLS certificate check of https://agents.example.test failed: its certificate has expired [CERT_HAS_EXPIRED]'));
    const answered = await wsRefusal(`${tls.wsUrl}/socket`, []);
    expect(answered.status).toBe(502);
    expect(JSON.parse(answered.text).error).toMatchObject({ code: 'upstream_tls_failed', target: 'https://agents.example.test', tls: { check: 'expired', code: 'CERT_HAS_EXPIRED' } });

    // Not a failure the proxy answered for, whatever its name starts with: no target is claimed.
    const reset = await replay(refusedUpgrade('E_UPSTREAM_RESET', 'the upstream closed the connection'));
    const other = await wsRefusal(`${reset.wsUrl}/socket`, []);
    expect(other.status).toBe(502);
    const { error } = JSON.parse(other.text) as { error: Record<string, unknown> };
    expect(error).toEqual({ code: 'replay_recorded_error', message: 'the upstream closed the connection' });
  });

  it('closes an open replayed connection with 1001 when the replay stops', async () => {
    const { out, token } = await recordFramed();
    const served = await replay(out);
    const c = await connect(`${served.wsUrl}/v1/session/agent-a/rpc?role=controller`, 'pi-daemon-rpc.v1', { headers: bearer(token) });
    await c.texts(1);
    const summary = await within(served.close(), 'the replay to stop');
    expect(await c.closed).toEqual({ code: 1001, reason: 'replay shutting down' });
    expect(summary.misses).toEqual([]);
  });

  it('answers keepalive pings the recording never saw, and goes on when the client skips a recorded ping', async () => {
    const { out, token } = await recordFramed();
    const served = await replay(out);
    const c = await connect(`${served.wsUrl}/v1/session/agent-a/rpc?role=controller`, 'pi-daemon-rpc.v1', { headers: bearer(token) });
    await c.texts(1);
    const pong = new Promise<string>((r) => c.ws.once('pong', (data) => r(data.toString())));
    c.ws.ping('keepalive-1');
    expect(await within(pong, 'the keepalive pong')).toBe('keepalive-1');
    c.ws.send(JSON.stringify({ kind: 'command', command: { id: 's', type: 'get_state' } }));
    await c.texts(2);
    // No ping here, although the recorded client pinged: straight on to the prompt.
    c.ws.send(JSON.stringify({ kind: 'command', command: { id: 'p', type: 'prompt', message: 'READFILE please read hello.txt' } }));
    expect(await c.closed).toEqual(CLOSE);
    expect(c.seen.filter((s) => s.kind === 'pong').map((s) => s.data)).toEqual(['keepalive-1']);
    expect(c.seen.filter((s) => s.kind === 'text')).toHaveLength(1 + 2 + 16);
    expect(served.misses()).toEqual([]);
  });

  it('with --on-miss passthrough, relays an upgrade that matches nothing to the target and appends it; the next replay serves it', async () => {
    const { out, token, url } = await recordFramed();
    const served = await replay(out, { onMiss: 'passthrough', target: url });
    expect(served.missesOut).toBe(out);
    // Raw mode was never recorded: the live stand-in answers it.
    const c = await connect(`${served.wsUrl}/v1/session/agent-a/rpc`, 'pi-rpc.v1', { headers: bearer(token) });
    c.ws.send(JSON.stringify({ id: 'live', type: 'get_state' }));
    expect(JSON.parse((await c.texts(1))[0])).toMatchObject({ id: 'live', command: 'get_state', success: true });
    c.ws.close(1000);
    await c.closed;
    expect(served.misses()).toEqual([expect.objectContaining({ transport: 'ws', action: 'passthrough', differences: ['query', 'subprotocol'] })]);
    const summary = await served.close();
    expect(summary.missesOut).toMatchObject({ file: out, appended: true, totals: { exchanges: 1 } });

    // The new episode is in the recording now: a replay without passthrough serves it.
    const again = await replay(out);
    const d = await connect(`${again.wsUrl}/v1/session/agent-a/rpc`, 'pi-rpc.v1', { headers: bearer(token) });
    d.ws.send(JSON.stringify({ id: 'again', type: 'get_state' }));
    expect(JSON.parse((await d.texts(1))[0])).toMatchObject({ id: 'again', command: 'get_state', success: true });
    d.ws.close(1000);
    await d.closed;
    expect(again.misses()).toEqual([]);
    expect(again.served.map((e) => e.transport)).toEqual(['ws']);
  });

  it('answers a request that is no WebSocket upgrade with 400 and survives a client that resets mid-handshake', async () => {
    const { out } = await recordFramed();
    const served = await replay(out);
    const answer = await rawExchange(served.url, 'GET /v1/session/agent-a/rpc HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('invalid_upgrade');
    const { hostname, port } = new URL(served.url);
    const socket = netConnect(Number(port), hostname, () => {
      socket.write('GET /v1/session/agent-a/rpc HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
      socket.destroy();
    });
    socket.on('error', () => undefined);
    // The request reached the replay (it is answered as a miss) before the client's socket was gone.
    await waitFor(() => served.missed.length === 1, 'the upgrade of the reset socket to be answered');
    // Still serving.
    const again = await rawExchange(served.url, 'GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(again).toMatch(/^HTTP\/1\.1 404 /);
  });
});
