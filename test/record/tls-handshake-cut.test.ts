/**
 * An https:// upstream that was reached but closed or reset the connection during the TLS handshake
 * failed its handshake (E_UPSTREAM_TLS, check `handshake`); one that could not be reached at all stays
 * E_UPSTREAM_UNREACHABLE. docs/cli.md says so, and the recording and the 502 must agree with it.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startRecorder } from '../../src/record/start-recorder.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

/** A TCP server that takes the client hello and then resets the connection, or closes it cleanly. */
async function cuttingUpstream(how: 'reset' | 'close'): Promise<number> {
  const server: Server = createServer((socket: Socket) => {
    socket.once('data', () => (how === 'reset' ? socket.resetAndDestroy() : socket.end()));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  onCleanup(() => new Promise<void>((done) => server.close(() => done())));
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on: a server bound and closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

async function recordOne(port: number, websocket: boolean): Promise<{ status: number; body: string; error: { code: string | null; message: string | null } }> {
  const out = scratch().file('cut.db');
  const recorder = await startRecorder({ target: `https://127.0.0.1:${port}`, listen: 0, out });
  let status: number;
  let body = '';
  if (websocket) {
    status = await new Promise<number>((done) => {
      const ws = new WebSocket(recorder.url.replace('http', 'ws') + '/rpc');
      ws.on('unexpected-response', (_req, res) => {
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => done(res.statusCode ?? 0));
      });
      ws.on('error', () => undefined);
    });
  } else {
    const answer = await fetch(`${recorder.url}/agent`);
    status = answer.status;
    body = await answer.text();
  }
  await recorder.close();
  const reader = RecordingReader.open(out);
  onCleanup(() => reader.close());
  const [exchange] = reader.exchanges();
  return { status, body, error: { code: exchange.errorCode ?? null, message: exchange.errorMessage ?? null } };
}

describe('an https:// upstream that cuts the TLS handshake short', () => {
  for (const how of ['reset', 'close'] as const) {
    for (const websocket of [false, true]) {
      it(`${how} after the client hello (${websocket ? 'WebSocket upgrade' : 'HTTP request'}): E_UPSTREAM_TLS, a handshake failure`, async () => {
        const port = await cuttingUpstream(how);
        const { status, body, error } = await recordOne(port, websocket);
        expect(status).toBe(502);
        expect(JSON.parse(body)).toMatchObject({ error: { tls: { check: 'handshake' } } });
        expect(error.code).toBe('E_UPSTREAM_TLS');
        expect(error.message).toMatch(new RegExp(`^TLS handshake with https://127\\.0\\.0\\.1:${port} failed: `));
      });
    }
  }

  it('a port nothing listens on is still unreachable, not a TLS failure', async () => {
    const { status, error } = await recordOne(await closedPort(), false);
    expect(status).toBe(502);
    expect(error.code).toBe('E_UPSTREAM_UNREACHABLE');
    expect(error.message).toMatch(/ECONNREFUSED/);
  });
});
