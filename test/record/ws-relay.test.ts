import { once } from 'node:events';
import { SHUTDOWN_GRACE_MS } from '../../src/net/graceful-shutdown.js';
import { Agent, createServer, type ClientRequest, type IncomingMessage, type Server } from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer, type ClientOptions, type RawData, type ServerOptions } from 'ws';
import type { TargetAddress } from '../../src/net/addresses.js';
import type { CaptureContext } from '../../src/record/capture-context.js';
import type { LiveEvent } from '../../src/record/live-events.js';
import { RecordingClock } from '../../src/core/recording-clock.js';
import { HeaderRedactor } from '../../src/judge/header-redaction.js';
import { TrafficRecorder } from '../../src/record/pipeline/traffic-recorder.js';
import { parseCloseFramePayload } from '../../src/net/ws-close-codes.js';
import { relayUpgrade } from '../../src/record/relay/ws-relay.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { RecordingReader, type ExchangeRow, type MessageRow } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { waitFor, within } from '../support/waits.js';

type ExchangeEnd = Extract<LiveEvent, { type: 'exchange-end' }>;

let registry: SchemaRegistry;
beforeAll(() => {
  registry = SchemaRegistry.load({ useEnv: false });
});

useCleanups();

async function listen(server: Server, where?: string): Promise<number> {
  if (where) server.listen(where);
  else server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  onCleanup(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return where ? 0 : (server.address() as AddressInfo).port;
}

function tcpTarget(port: number, basePath = ''): TargetAddress {
  return { kind: 'tcp', protocol: 'http:', host: '127.0.0.1', port, basePath, display: `http://127.0.0.1:${port}${basePath}` };
}

interface Upstream {
  port: number;
  wss: WebSocketServer;
  connections: Array<{ ws: WebSocket; req: IncomingMessage }>;
  next(): Promise<{ ws: WebSocket; req: IncomingMessage }>;
}

/** A scripted ws upstream; `onConnection` runs synchronously as each client attaches. */
async function startUpstream(options: ServerOptions = {}, onConnection?: (ws: WebSocket, req: IncomingMessage) => void, where?: string): Promise<Upstream> {
  const server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server, ...options });
  const connections: Upstream['connections'] = [];
  wss.on('connection', (ws, req) => {
    ws.on('error', () => {});
    connections.push({ ws, req });
    onConnection?.(ws, req);
  });
  const port = await listen(server, where);
  onCleanup(() => {
    for (const { ws } of connections) ws.terminate();
  });
  return {
    port,
    wss,
    connections,
    async next() {
      const count = connections.length;
      await waitFor(() => connections.length > count || connections.length > 0, 'an upstream connection');
      return connections[connections.length - 1];
    },
  };
}

interface Proxy {
  port: number;
  url: string;
  ends: ExchangeEnd[];
  closers: Set<() => void>;
  waitForEnds(count: number): Promise<void>;
  read(): { exchanges: ExchangeRow[]; messages: (id: number) => MessageRow[] };
}

/** node:http whose 'upgrade' calls relayUpgrade, recording into a real RecordingWriter. */
async function startProxy(target: TargetAddress): Promise<Proxy> {
  const file = scratch('agent-proxy-ws-').file('recording.sqlite');
  const writer = RecordingWriter.open(file, { toolVersion: 'test', mode: 'record', schemaHashes: registry.hashes(), startedAt: new Date() });
  const ends: ExchangeEnd[] = [];
  const recorder = new TrafficRecorder({
    writer,
    registry,
    clock: new RecordingClock(),
    listener: (event) => {
      if (event.type === 'exchange-end') ends.push(event);
    },
  });
  const closers = new Set<() => void>();
  const agent = new Agent();
  const context: CaptureContext = {
    target,
    recorder,
    redactor: new HeaderRedactor(),
    agent,
    track(closer) {
      closers.add(closer);
      return () => closers.delete(closer);
    },
    shutdownGraceMs: SHUTDOWN_GRACE_MS,
  };
  const server = createServer((_req, res) => res.writeHead(404).end());
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => relayUpgrade(req, socket, head, context));
  onCleanup(async () => {
    // Every exchange must have ended before the writer closes, or a late record would hit a closed file.
    await waitFor(() => ends.length >= writer.totals.exchanges, 'every exchange to end');
    writer.close();
    agent.destroy();
  });
  const port = await listen(server);
  return {
    port,
    url: `ws://127.0.0.1:${port}`,
    ends,
    closers,
    waitForEnds: async (count) => {
      await waitFor(() => ends.length >= count, `${count} exchange end(s)`);
    },
    read() {
      writer.flush();
      const reader = RecordingReader.open(file);
      onCleanup(() => reader.close());
      return { exchanges: reader.exchanges(), messages: (id) => reader.messages(id) };
    },
  };
}

/** A test client that tolerates invalid UTF-8 and answers no pings by itself. */
function connectClient(url: string, protocols: string[] = [], options: ClientOptions = {}): WebSocket {
  const ws = new WebSocket(url, protocols, { autoPong: false, skipUTF8Validation: true, perMessageDeflate: false, ...options });
  ws.on('error', () => {});
  onCleanup(() => ws.terminate());
  return ws;
}

interface Received {
  data: Buffer;
  isBinary: boolean;
}

function collect(ws: WebSocket): Received[] {
  const out: Received[] = [];
  ws.on('message', (data: RawData, isBinary: boolean) => out.push({ data: data as Buffer, isBinary }));
  return out;
}

/** Sends raw bytes to the proxy and returns everything it answers until it ends the socket (or, with `leaveWhen`, until the client leaves then). */
function rawRequest(port: number, request: string, { leaveWhen }: { leaveWhen?: Promise<unknown> } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
    socket.write(request);
    void leaveWhen?.then(() => socket.destroy());
  });
}

const UPGRADE_HEADERS = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

function rows(messages: MessageRow[]): Array<[string, string | null, string]> {
  return messages.map((m) => [m.sender, m.channel, m.channel === 'close' ? JSON.stringify(parseCloseFramePayload(m.raw)) : m.raw.toString('hex')]);
}

describe('relayUpgrade: messages', () => {
  it('relays text and binary frames both ways with their type and bytes, and records them in order', async () => {
    const upstreamGot: Received[] = [];
    const upstream = await startUpstream({}, (ws) => {
      ws.send('hello');
      ws.on('message', (data: RawData, isBinary: boolean) => {
        upstreamGot.push({ data: data as Buffer, isBinary });
        ws.send(data, { binary: isBinary });
      });
    });
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(`${proxy.url}/echo?x=1`);
    const got = collect(client);
    await waitFor(() => got.length === 1, 'hello');
    client.send('{"a":1}');
    await waitFor(() => got.length === 2, 'text echo');
    const binary = Buffer.from([0x00, 0x01, 0x7b, 0xff]);
    client.send(binary);
    await waitFor(() => got.length === 3, 'binary echo');

    expect(got.map((m) => [m.data.toString('hex'), m.isBinary])).toEqual([
      [Buffer.from('hello').toString('hex'), false],
      [Buffer.from('{"a":1}').toString('hex'), false],
      [binary.toString('hex'), true],
    ]);
    expect(upstreamGot.map((m) => [m.data.toString('hex'), m.isBinary])).toEqual([
      [Buffer.from('{"a":1}').toString('hex'), false],
      [binary.toString('hex'), true],
    ]);
    expect(upstream.connections[0].req.url).toBe('/echo?x=1');

    client.close(1000);
    await proxy.waitForEnds(1);
    const { exchanges, messages } = proxy.read();
    expect(exchanges).toHaveLength(1);
    const exchange = exchanges[0];
    expect(exchange).toMatchObject({ transport: 'ws', method: 'GET', path: '/echo', query: 'x=1', url: '/echo?x=1', status: 101, outcome: 'complete', closeCode: 1000 });
    const stored = messages(exchange.id);
    expect(rows(stored)).toEqual([
      ['server', 'text', Buffer.from('hello').toString('hex')],
      ['client', 'text', Buffer.from('{"a":1}').toString('hex')],
      ['server', 'text', Buffer.from('{"a":1}').toString('hex')],
      ['client', 'binary', binary.toString('hex')],
      ['server', 'binary', binary.toString('hex')],
      ['client', 'close', JSON.stringify({ code: 1000, reason: '' })],
      ['server', 'close', JSON.stringify({ code: 1000, reason: '' })],
    ]);
    expect(stored.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(stored.every((m) => m.carrier === 'frame')).toBe(true);
    expect(stored[1].json).toEqual({ a: 1 });
    expect(stored[3].json).toBeUndefined();
  });

  it('relays invalid UTF-8 in a text frame unchanged and records it with an invalid-json finding', async () => {
    const upstreamGot: Received[] = [];
    const upstream = await startUpstream({ skipUTF8Validation: true }, (ws) => {
      ws.on('message', (data: RawData, isBinary: boolean) => {
        upstreamGot.push({ data: data as Buffer, isBinary });
        ws.send(data, { binary: isBinary });
      });
    });
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(proxy.url);
    const got = collect(client);
    await once(client, 'open');
    const bad = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    client.send(bad, { binary: false });
    await waitFor(() => got.length === 1, 'the echo');
    expect(upstreamGot).toEqual([{ data: bad, isBinary: false }]);
    expect(got).toEqual([{ data: bad, isBinary: false }]);

    client.close(1000);
    await proxy.waitForEnds(1);
    const { exchanges, messages } = proxy.read();
    const [sent, echoed] = messages(exchanges[0].id);
    for (const m of [sent, echoed]) {
      expect(m.channel).toBe('text');
      expect(Buffer.compare(m.raw, bad)).toBe(0);
      expect(m.verdict.status).toBe('invalid');
      expect(m.verdict.findings).toEqual([expect.objectContaining({ rule: 'invalid-json', message: expect.stringMatching(/UTF-8/) })]);
    }
    expect(exchanges[0].invalidCount).toBe(2);
  });

  it('relays ping and pong with their payloads end to end instead of answering them itself', async () => {
    const upstreamPings: string[] = [];
    const upstream = await startUpstream({ autoPong: false }, (ws) => {
      ws.on('ping', (data: Buffer) => {
        upstreamPings.push(data.toString());
        ws.pong(Buffer.from('pong-from-upstream'));
      });
    });
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(proxy.url);
    const pongs: string[] = [];
    const pings: string[] = [];
    client.on('pong', (data: Buffer) => pongs.push(data.toString()));
    client.on('ping', (data: Buffer) => pings.push(data.toString()));
    await once(client, 'open');
    client.ping(Buffer.from('ping-from-client'));
    await waitFor(() => pongs.length === 1, 'the pong');
    expect(upstreamPings).toEqual(['ping-from-client']);
    expect(pongs).toEqual(['pong-from-upstream']);

    const { ws: upstreamWs } = await upstream.next();
    upstreamWs.ping(Buffer.from('ping-from-upstream'));
    await waitFor(() => pings.length === 1, 'the upstream ping');
    expect(pings).toEqual(['ping-from-upstream']);

    client.close(1000);
    await proxy.waitForEnds(1);
    const { exchanges, messages } = proxy.read();
    expect(rows(messages(exchanges[0].id)).slice(0, 3)).toEqual([
      ['client', 'ping', Buffer.from('ping-from-client').toString('hex')],
      ['server', 'pong', Buffer.from('pong-from-upstream').toString('hex')],
      ['server', 'ping', Buffer.from('ping-from-upstream').toString('hex')],
    ]);
    expect(messages(exchanges[0].id)[0].verdict.status).toBe('unchecked');
  });

  it('applies backpressure without losing or reordering messages when the client reads slowly', async () => {
    const count = 200;
    const size = 64 * 1024;
    // The upstream floods only once the client has stopped reading.
    const upstream = await startUpstream({}, (ws) => {
      ws.once('message', () => {
        for (let i = 0; i < count; i++) {
          const chunk = Buffer.alloc(size, i % 251);
          chunk.writeUInt32BE(i, 0);
          ws.send(chunk);
        }
      });
    });
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(proxy.url);
    const got = collect(client);
    // Count the pauses the relay makes (the test client's own pause is not one of them).
    const pause = WebSocket.prototype.pause;
    let relayPauses = 0;
    WebSocket.prototype.pause = function (this: WebSocket) {
      if (this !== client) relayPauses++;
      return pause.call(this);
    };
    onCleanup(() => {
      WebSocket.prototype.pause = pause;
    });
    await once(client, 'open');
    relayPauses = 0;
    client.pause();
    client.send('go');
    // The flood outgrows what the stalled client takes: the relay stops reading the upstream.
    await waitFor(() => relayPauses > 0, 'the relay to pause the upstream');
    client.resume();
    await waitFor(() => got.length === count, `${count} messages`);
    expect(relayPauses).toBeGreaterThan(0);
    for (let i = 0; i < count; i++) {
      expect(got[i].isBinary).toBe(true);
      expect(got[i].data.length).toBe(size);
      expect(got[i].data.readUInt32BE(0)).toBe(i);
    }
    client.close(1000);
    await proxy.waitForEnds(1);
  });
});

describe('relayUpgrade: handshake', () => {
  it('echoes the subprotocol the upstream chose, forwards end-to-end headers and mirrors extra 101 headers', async () => {
    const upstream = await startUpstream({ handleProtocols: (offered) => (offered.has('b') ? 'b' : false) });
    upstream.wss.on('headers', (headers) => headers.push('X-Upstream: yes'));
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(proxy.url + '/chat', ['a', 'b'], {
      headers: { Authorization: 'Bearer s3cret', Cookie: 'c=1', Origin: 'http://example.test', 'X-Custom': 'v' },
    });
    const upgraded = once(client, 'upgrade');
    const opened = once(client, 'open');
    const [upgrade] = (await upgraded) as [IncomingMessage];
    await opened;
    expect(client.protocol).toBe('b');
    expect(upgrade.headers['x-upstream']).toBe('yes');

    const { req } = await upstream.next();
    expect(req.headers['sec-websocket-protocol']).toBe('a,b');
    expect(req.headers.authorization).toBe('Bearer s3cret');
    expect(req.headers.cookie).toBe('c=1');
    expect(req.headers.origin).toBe('http://example.test');
    expect(req.headers['x-custom']).toBe('v');
    expect(req.headers.host).toBe(`127.0.0.1:${upstream.port}`);
    expect(req.headers['sec-websocket-extensions']).toBeUndefined();

    client.close(1000);
    await proxy.waitForEnds(1);
    const [exchange] = proxy.read().exchanges;
    expect(exchange.subprotocol).toBe('b');
    expect(exchange.status).toBe(101);
    expect(exchange.requestHeaders).toMatchObject({ Authorization: 'Bearer <redacted>', Cookie: '<redacted>', 'X-Custom': 'v' });
    expect(exchange.responseHeaders).toMatchObject({ 'Sec-WebSocket-Protocol': 'b', 'X-Upstream': 'yes' });
  });

  it('classifies the connection by the subprotocol the upstream chose', async () => {
    const upstream = await startUpstream({ handleProtocols: (offered) => (offered.has('pi-daemon-rpc.v1') ? 'pi-daemon-rpc.v1' : false) });
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(proxy.url + '/v1/session/agent-a/rpc', ['pi-rpc.v1', 'pi-daemon-rpc.v1']);
    await once(client, 'open');
    expect(client.protocol).toBe('pi-daemon-rpc.v1');
    client.close(1000);
    await proxy.waitForEnds(1);
    expect(proxy.read().exchanges[0]).toMatchObject({ protocol: 'pi-daemon-rpc', subprotocol: 'pi-daemon-rpc.v1' });
  });

  it('classifies a connection whose subprotocol and path say nothing by its first frames, stored in order once they chose', async () => {
    const upstream = await startUpstream({}, (ws) => {
      ws.on('message', (data: RawData, isBinary: boolean) => {
        if (isBinary) return;
        const request = JSON.parse(data.toString()) as { id: number };
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { protocolVersion: 1 } }));
      });
    });
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(`${proxy.url}/agent-socket`);
    const got = collect(client);
    await once(client, 'open');
    client.send(Buffer.from([0x01, 0x02]));
    client.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }));
    await waitFor(() => got.length === 1, 'the answer');
    client.close(1000);
    await proxy.waitForEnds(1);
    expect(proxy.ends[0].protocol).toBe('acp');
    const { exchanges, messages } = proxy.read();
    expect(exchanges[0]).toMatchObject({ protocol: 'acp', subprotocol: null, path: '/agent-socket' });
    const stored = messages(exchanges[0].id);
    expect(stored.map((m) => [m.seq, m.sender, m.channel, m.verdict.status])).toEqual([
      [1, 'client', 'binary', 'unchecked'],
      [2, 'client', 'text', 'valid'],
      [3, 'server', 'text', 'valid'],
      [4, 'client', 'close', 'unchecked'],
      [5, 'server', 'close', 'unchecked'],
    ]);
    // Each keeps the time it was captured at, not the time the sample was complete.
    const times = stored.map((m) => m.tOffsetMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('stores the held first frames of a quiet connection while it is still open: a sample is held at most a second', async () => {
    const upstream = await startUpstream({}, (ws) => {
      ws.on('message', (data: RawData) => {
        const request = JSON.parse(data.toString()) as { id: number };
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { protocolVersion: 1 } }));
      });
    });
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(`${proxy.url}/agent-socket`);
    const got = collect(client);
    await once(client, 'open');
    client.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }));
    await waitFor(() => got.length === 1, 'the answer');
    // Two of the twenty JSON frames a full sample takes, and then silence: the connection stays open,
    // and its frames must still reach the file (a kill would otherwise lose them), judged by what came.
    const stored = await waitFor(() => {
      const { exchanges, messages } = proxy.read();
      const rows = exchanges.length === 1 ? messages(exchanges[0].id) : [];
      return rows.length === 2 ? rows : undefined;
    }, 'the held frames stored while the connection is open');
    expect(client.readyState).toBe(WebSocket.OPEN);
    expect(stored.map((m) => [m.sender, m.verdict.status])).toEqual([['client', 'valid'], ['server', 'valid']]);
    expect(proxy.read().exchanges[0].protocol).toBe('acp');
    client.close(1000);
    await proxy.waitForEnds(1);
  });

  it('mirrors an upstream 426 byte for byte and records the refusal with its JSON body', async () => {
    const body = JSON.stringify({
      apiVersion: '1.0',
      requestId: 'http-a6e158d4-3c59-41a0-a177-f5eb96967045',
      hostInstanceId: '65ba84e8-535c-4dd2-9c98-e020c047e399',
      ok: false,
      error: { code: 'rpc_subprotocol_required', message: 'one supported RPC subprotocol is required: pi-rpc.v1, pi-daemon-rpc.v1', retryable: false },
    });
    const refusal = Buffer.from(
      'HTTP/1.1 426 Upgrade Required\r\n' +
        'cache-control: no-store\r\n' +
        'connection: close\r\n' +
        'content-type: application/json; charset=utf-8\r\n' +
        'x-content-type-options: nosniff\r\n' +
        'sec-websocket-protocol: pi-rpc.v1, pi-daemon-rpc.v1\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        '\r\n' +
        body,
    );
    const upstreamServer = createServer();
    const seen: IncomingMessage[] = [];
    upstreamServer.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
      seen.push(req);
      socket.end(refusal);
    });
    const upstreamPort = await listen(upstreamServer);
    const proxy = await startProxy(tcpTarget(upstreamPort));

    const answer = await rawRequest(proxy.port, `GET /v1/session/agent-a/rpc HTTP/1.1\r\nHost: x\r\n${UPGRADE_HEADERS}Sec-WebSocket-Protocol: something-else\r\n\r\n`);
    expect(answer.toString('latin1')).toBe(refusal.toString('latin1'));
    expect(seen[0].headers['sec-websocket-protocol']).toBe('something-else');

    await proxy.waitForEnds(1);
    const { exchanges, messages } = proxy.read();
    expect(exchanges[0]).toMatchObject({ transport: 'ws', status: 426, outcome: 'rejected', protocol: 'pi-rest' });
    expect(exchanges[0].responseHeaders).toMatchObject({ 'sec-websocket-protocol': 'pi-rpc.v1, pi-daemon-rpc.v1' });
    const [message] = messages(exchanges[0].id);
    expect(message).toMatchObject({ sender: 'server', carrier: 'body' });
    expect(message.raw.toString()).toBe(body);
    expect(message.json).toMatchObject({ ok: false, error: { code: 'rpc_subprotocol_required' } });
    expect(message.verdict.status).toBe('valid');
  });

  it('re-frames a chunked refusal with a Content-Length and Connection: close', async () => {
    const upstreamServer = createServer();
    upstreamServer.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\nX-Why: policy\r\n\r\n4\r\nnope\r\n5\r\n, go.\r\n0\r\n\r\n');
    });
    const proxy = await startProxy(tcpTarget(await listen(upstreamServer)));
    const answer = await rawRequest(proxy.port, `GET /x HTTP/1.1\r\nHost: x\r\n${UPGRADE_HEADERS}\r\n`);
    expect(answer.toString('latin1')).toBe('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nX-Why: policy\r\nConnection: close\r\nContent-Length: 9\r\n\r\nnope, go.');
    await proxy.waitForEnds(1);
    const { exchanges, messages } = proxy.read();
    expect(exchanges[0]).toMatchObject({ status: 403, outcome: 'rejected' });
    const [message] = messages(exchanges[0].id);
    expect(message.raw.toString()).toBe('nope, go.');
    expect(message.verdict.status).toBe('unchecked');
  });

  it('answers 502 with a JSON error when the upstream is unreachable', async () => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const deadPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));

    const proxy = await startProxy(tcpTarget(deadPort));
    const client = connectClient(proxy.url + '/rpc');
    const [, response] = (await once(client, 'unexpected-response')) as [ClientRequest, IncomingMessage];
    expect(response.statusCode).toBe(502);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    let text = '';
    for await (const chunk of response) text += String(chunk);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'upstream_unreachable', message: expect.stringMatching(/ECONNREFUSED/) } });

    await proxy.waitForEnds(1);
    expect(proxy.read().exchanges[0]).toMatchObject({ status: 502, outcome: 'error', errorCode: 'E_UPSTREAM_UNREACHABLE' });
  });

  it('refuses a request that is not a valid WebSocket upgrade without dialling the upstream', async () => {
    const upstream = await startUpstream();
    const proxy = await startProxy(tcpTarget(upstream.port));
    const answer = await rawRequest(proxy.port, 'GET /x HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n');
    expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer.toString('latin1')).toMatch(/"code":"invalid_upgrade"/);
    await proxy.waitForEnds(1);
    expect(proxy.read().exchanges[0]).toMatchObject({ status: 400, outcome: 'rejected', errorCode: 'E_INVALID_UPGRADE' });
    expect(upstream.connections).toHaveLength(0);
  });

  it('drops the upstream handshake when the client leaves before it is answered', async () => {
    const upstreamServer = createServer();
    let upstreamSockets = 0;
    let upstreamGone = false;
    const dialled = once(upstreamServer, 'upgrade');
    upstreamServer.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
      upstreamSockets++;
      for (const event of ['end', 'close', 'error']) socket.on(event, () => (upstreamGone = true));
      socket.resume();
    });
    const proxy = await startProxy(tcpTarget(await listen(upstreamServer)));
    await rawRequest(proxy.port, `GET /slow HTTP/1.1\r\nHost: x\r\n${UPGRADE_HEADERS}\r\n`, { leaveWhen: dialled });
    await proxy.waitForEnds(1);
    expect(proxy.read().exchanges[0]).toMatchObject({ outcome: 'aborted', errorCode: 'E_CLIENT_ABORTED' });
    expect(upstreamSockets).toBe(1);
    await waitFor(() => upstreamGone, 'the upstream socket to close');
  });

  it('reaches a unix-socket target with the request path and query exactly as the client sent them', async () => {
    const socketPath = scratch('agent-proxy-ws-').file('upstream.sock');
    const upstream = await startUpstream({}, (ws) => ws.send('over unix'), socketPath);
    const proxy = await startProxy({ kind: 'unix', socketPath, basePath: '/base', display: `unix:${socketPath}` });
    const path = '/v1/x/../session/a:b/rpc?cursor=host-01:agent-a:3:42&q=%2F';
    const client = connectClient(proxy.url, [], {
      finishRequest: (request: ClientRequest) => {
        request.path = path;
        request.end();
      },
    });
    const got = collect(client);
    await waitFor(() => got.length === 1, 'the upstream message');
    expect(got[0].data.toString()).toBe('over unix');
    const { req } = await upstream.next();
    expect(req.url).toBe('/base' + path);
    expect(req.headers.host).toBe('localhost');
    client.close(1000);
    await proxy.waitForEnds(1);
    expect(proxy.read().exchanges[0]).toMatchObject({ path: '/v1/x/../session/a:b/rpc', query: 'cursor=host-01:agent-a:3:42&q=%2F', outcome: 'complete' });
  });
});

describe('relayUpgrade: closing', () => {
  it('passes the upstream close code and reason to the client', async () => {
    const upstream = await startUpstream();
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(proxy.url);
    // The upstream closes once both legs are open, so the close travels as a relayed frame.
    await within(once(client, 'open'), 'the client to be connected');
    (await upstream.next()).ws.close(4001, 'upstream says bye');
    const [code, reason] = (await once(client, 'close')) as [number, Buffer];
    expect(code).toBe(4001);
    expect(reason.toString()).toBe('upstream says bye');
    await proxy.waitForEnds(1);
    const { exchanges, messages } = proxy.read();
    expect(exchanges[0]).toMatchObject({ outcome: 'complete', closeCode: 4001, closeReason: 'upstream says bye' });
    expect(rows(messages(exchanges[0].id))).toEqual([
      ['server', 'close', JSON.stringify({ code: 4001, reason: 'upstream says bye' })],
      ['client', 'close', JSON.stringify({ code: 4001, reason: 'upstream says bye' })],
    ]);
  });

  it('passes the client close code and reason to the upstream, and a close without code as 1005', async () => {
    const upstream = await startUpstream();
    const proxy = await startProxy(tcpTarget(upstream.port));

    const client = connectClient(proxy.url);
    await once(client, 'open');
    const { ws: first } = await upstream.next();
    const closed = once(first, 'close');
    client.close(4002, 'client says bye');
    const [code, reason] = (await closed) as [number, Buffer];
    expect([code, reason.toString()]).toEqual([4002, 'client says bye']);

    const second = connectClient(proxy.url);
    await once(second, 'open');
    await waitFor(() => upstream.connections.length === 2, 'the second connection');
    const secondClosed = once(upstream.connections[1].ws, 'close');
    second.close();
    const [noCode] = (await secondClosed) as [number, Buffer];
    expect(noCode).toBe(1005);

    await proxy.waitForEnds(2);
    const exchanges = proxy.read().exchanges;
    expect(exchanges[0]).toMatchObject({ outcome: 'complete', closeCode: 4002, closeReason: 'client says bye' });
    expect(exchanges[1]).toMatchObject({ outcome: 'complete', closeCode: 1005, closeReason: null });
  });

  it('terminates the upstream and records an aborted exchange when the client vanishes', async () => {
    const upstream = await startUpstream();
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(proxy.url);
    await once(client, 'open');
    const { ws } = await upstream.next();
    const closed = once(ws, 'close');
    client.terminate();
    const [code] = (await closed) as [number, Buffer];
    expect(code).toBe(1006);
    await proxy.waitForEnds(1);
    expect(proxy.read().exchanges[0]).toMatchObject({ outcome: 'aborted', errorCode: 'E_CLIENT_ABORTED', closeCode: 1006 });
  });

  it('cuts the client and records an aborted exchange when the upstream vanishes', async () => {
    const upstream = await startUpstream();
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(proxy.url);
    await once(client, 'open');
    const { ws } = await upstream.next();
    const closed = once(client, 'close');
    ws.terminate();
    const [code] = (await closed) as [number, Buffer];
    expect(code).toBe(1006);
    await proxy.waitForEnds(1);
    const [exchange] = proxy.read().exchanges;
    expect(exchange).toMatchObject({ outcome: 'aborted', errorCode: 'E_UPSTREAM_RESET', closeCode: 1006, messageCount: 0 });
  });

  it('closes both legs with 1001 when the proxy shuts down', async () => {
    const upstream = await startUpstream();
    const proxy = await startProxy(tcpTarget(upstream.port));
    const client = connectClient(proxy.url);
    await once(client, 'open');
    const { ws } = await upstream.next();
    const upstreamClosed = once(ws, 'close');
    const clientClosed = once(client, 'close');
    expect(proxy.closers.size).toBe(1);
    for (const close of [...proxy.closers]) close();
    const [[upCode, upReason], [clientCode, clientReason]] = (await Promise.all([upstreamClosed, clientClosed])) as Array<[number, Buffer]>;
    expect([upCode, upReason.toString()]).toEqual([1001, 'proxy shutting down']);
    expect([clientCode, clientReason.toString()]).toEqual([1001, 'proxy shutting down']);
    await proxy.waitForEnds(1);
    expect(proxy.closers.size).toBe(0);
    expect(proxy.read().exchanges[0]).toMatchObject({ outcome: 'aborted', errorCode: 'E_PROXY_SHUTDOWN', closeCode: 1001 });
  });
});
