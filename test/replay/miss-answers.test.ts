/**
 * A replay miss is answered in the error shape of the request's protocol, so the client shows the
 * reason: the Pi daemon's error envelope, an AG-UI RUN_ERROR the official client hands to the app,
 * a JSON-RPC error with the request's id on an ACP WebSocket, a failed response frame on the
 * daemon's framed RPC, a JSON-RPC error with the report as its data on MCP's stdio. Recordings are written by hand (test/support/ndjson-recording.ts).
 */
import { HttpAgent } from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import { AGUI_SSE_RUN, writeNdjsonRecording, type HandExchange } from '../support/ndjson-recording.js';
import { replay, useCleanups } from './replay-helpers.js';
import { connect } from './ws-replay-helpers.js';
import { wsRefusal } from '../support/ws-client.js';
import { PassThrough } from 'node:stream';
import { replayStdio } from '../../src/replay/line/stdio-replay.js';
import { waitFor, within } from '../support/waits.js';

useCleanups();

const HOST = '7d0c5b8e-2f0a-4c43-9a51-8d6f1f3c9e21';
const envelope = (requestId: string, data: unknown) => ({ apiVersion: '1.0', requestId, hostInstanceId: HOST, ok: true, data });

const PI_REST: HandExchange[] = [
  { transport: 'http', protocol: 'pi-rest', method: 'GET', path: '/v1/capabilities', status: 200, messages: [{ sender: 'server', json: envelope('req-1', { apiVersion: '1.0' }) }] },
  { transport: 'http', protocol: 'pi-rest', method: 'GET', path: '/v1/session/pd-a', status: 200, messages: [{ sender: 'server', json: envelope('req-2', { sessionId: 'pd-a' }) }] },
];

describe('Pi daemon REST: a miss is the daemon error envelope', () => {
  it('404 with apiVersion, the live requestId, the recorded hostInstanceId and error {code, message, retryable, details}; nearest on the same route', async () => {
    const served = await replay(writeNdjsonRecording(PI_REST));
    const res = await fetch(`${served.url}/v1/session/other-session`, { headers: { 'x-request-id': 'req-live-9' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(body).toEqual({
      apiVersion: '1.0',
      requestId: 'req-live-9',
      hostInstanceId: HOST,
      ok: false,
      error: {
        code: 'replay_miss',
        message: 'GET /v1/session/other-session matches no recorded exchange; nearest is exchange 2 (GET /v1/session/pd-a); differs in path',
        retryable: false,
        details: {
          reason: 'no-match',
          request: { method: 'GET', path: '/v1/session/other-session', query: '' },
          nearest: { exchangeId: 2, method: 'GET', path: '/v1/session/pd-a' },
          differences: ['path'],
        },
      },
    });
    // The replay log keeps the same full report.
    expect(served.missed).toEqual([expect.objectContaining({ nearest: { exchangeId: 2, method: 'GET', path: '/v1/session/pd-a' }, differences: ['path'] })]);
  });

  it('without X-Request-Id the requestId is made as the daemon makes one; a body requestId is echoed', async () => {
    const served = await replay(writeNdjsonRecording(PI_REST));
    const bare = (await (await fetch(`${served.url}/v1/ticket/ticket-x`)).json()) as { requestId: string };
    expect(bare.requestId).toMatch(/^http-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const posted = await fetch(`${served.url}/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ requestId: 'req-body-1', sessionId: 's' }) });
    expect(posted.status).toBe(404);
    expect(((await posted.json()) as { requestId: string }).requestId).toBe('req-body-1');
  });
});

describe('a WebSocket upgrade under /v1 that matches nothing', () => {
  it('gets the daemon envelope; its nearest recorded connection is the one with the fewest differing path segments', async () => {
    const connection = (path: string): HandExchange => ({ transport: 'ws', protocol: 'pi-daemon-rpc', method: 'GET', path, status: 101, subprotocol: 'pi-daemon-rpc.v1', messages: [] });
    const served = await replay(writeNdjsonRecording([...PI_REST, connection('/v1/session/pd-a/apc'), connection('/v1/session/pd-a/rpc')]));
    const res = await wsRefusal(`${served.wsUrl}/v1/session/other/rpc`, ['pi-daemon-rpc.v1'], { headers: { 'x-request-id': 'req-ws-1' } });
    expect(res.status).toBe(404);
    const body = JSON.parse(res.text);
    expect(body).toMatchObject({ apiVersion: '1.0', requestId: 'req-ws-1', hostInstanceId: HOST, ok: false, error: { code: 'replay_miss', details: { nearest: { exchangeId: 4, path: '/v1/session/pd-a/rpc' }, differences: ['path'] } } });
  });
});

describe('AG-UI: the official client hands the reason to the app', () => {
  it('a run that matches nothing reaches onRunErrorEvent with the miss sentence', async () => {
    const recorded: HandExchange = {
      ...AGUI_SSE_RUN,
      messages: [
        { sender: 'client', json: { threadId: 't', runId: 'r', state: {}, messages: [{ id: 'm1', role: 'user', content: 'hello' }], tools: [], context: [], forwardedProps: {} } },
        { sender: 'server', json: { type: 'RUN_STARTED', threadId: 't', runId: 'r' } },
        { sender: 'server', json: { type: 'RUN_FINISHED', threadId: 't', runId: 'r' } },
      ],
    };
    const served = await replay(writeNdjsonRecording([recorded]));
    const agent = new HttpAgent({ url: `${served.url}/agent`, threadId: 'live-thread', initialMessages: [{ id: 'm1', role: 'user', content: 'bonjour' }] });
    const errors: string[] = [];
    await agent.runAgent({ runId: 'live-run' }, { onRunErrorEvent: ({ event }) => void errors.push(event.message) });
    expect(errors).toEqual([expect.stringContaining('POST /agent matches no recorded exchange; nearest is exchange 1 (POST /agent); differs in /messages/0/content')]);
    expect(served.missed).toHaveLength(1);
  });
});

describe('JSON-RPC and Pi RPC over WebSocket: an error response carrying the request id', () => {
  const ACP: HandExchange = {
    transport: 'ws',
    protocol: 'acp',
    method: 'GET',
    path: '/v1/session/pd-a/apc',
    status: 101,
    subprotocol: 'agent-client-protocol.v1',
    closeCode: 1000,
    messages: [
      { sender: 'client', json: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } } },
      { sender: 'server', json: { jsonrpc: '2.0', id: 0, result: { protocolVersion: 1 } } },
      { sender: 'client', json: { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } } },
      { sender: 'server', json: { jsonrpc: '2.0', id: 1, result: { sessionId: 's1' } } },
    ],
  };

  it('ACP: a request that matches nothing gets an error with its id, and the conversation goes on', async () => {
    const served = await replay(writeNdjsonRecording([ACP]));
    const c = await connect(`${served.wsUrl}/v1/session/pd-a/apc`, 'agent-client-protocol.v1');
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'session/load', params: {} }));
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'initialize', params: { protocolVersion: 2 } }));
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 43, method: 'initialize', params: { protocolVersion: 1 } }));
    const [notFound, invalid, served0] = (await c.texts(3)).map((t) => JSON.parse(t));
    expect(notFound).toMatchObject({ jsonrpc: '2.0', id: 41, error: { code: -32601 } });
    expect(notFound.error.message).toContain('does not match recorded frame 1');
    expect(invalid).toMatchObject({ jsonrpc: '2.0', id: 42, error: { code: -32600, message: expect.stringContaining('at /params/protocolVersion') } });
    expect(served0).toEqual({ jsonrpc: '2.0', id: 43, result: { protocolVersion: 1 } });
    expect(served.misses().map((m) => m.differences)).toEqual([expect.arrayContaining(['/method']), ['/params/protocolVersion']]);
  });

  it('framed Pi RPC: a command that matches nothing gets a failed response frame with its id', async () => {
    const framed: HandExchange = {
      transport: 'ws',
      protocol: 'pi-daemon-rpc',
      method: 'GET',
      path: '/v1/session/pd-a/rpc',
      status: 101,
      subprotocol: 'pi-daemon-rpc.v1',
      messages: [
        { sender: 'client', json: { kind: 'command', command: { id: 'c1', type: 'get_state' } } },
        { sender: 'server', json: { kind: 'response', response: { id: 'c1', type: 'response', command: 'get_state', success: true, data: {} } } },
      ],
    };
    const served = await replay(writeNdjsonRecording([framed]));
    const c = await connect(`${served.wsUrl}/v1/session/pd-a/rpc`, 'pi-daemon-rpc.v1');
    c.ws.send(JSON.stringify({ kind: 'command', command: { id: 'live-7', type: 'get_messages' } }));
    const [answer] = (await c.texts(1)).map((t) => JSON.parse(t));
    expect(answer).toMatchObject({ kind: 'response', response: { id: 'live-7', type: 'response', command: 'get_messages', success: false } });
    expect(answer.response.error).toContain('at /command/type');
  });
});

describe('MCP over stdio: a miss is a JSON-RPC error with the report as its data', () => {
  const line = (value: unknown) => JSON.stringify(value) + '\n';
  const MCP: HandExchange = {
    transport: 'stdio',
    protocol: 'mcp',
    messages: [
      { sender: 'client', json: { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello' } } } },
      { sender: 'server', json: { jsonrpc: '2.0', id: 0, result: { content: [{ type: 'text', text: 'Echo: hello' }] } } },
    ].map((m) => ({ ...m, sender: m.sender as 'client' | 'server', raw: line(m.json) })),
  };

  it('the answer carries the request id, names the recorded line and says what differs; the recorded call is then served', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: unknown[] = [];
    let buffered = '';
    stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        lines.push(JSON.parse(buffered.slice(0, at)));
        buffered = buffered.slice(at + 1);
      }
    });
    const done = replayStdio({ recording: writeNdjsonRecording([MCP], 'mcp.ndjson'), stdin, stdout, stderr: new PassThrough(), timing: 'none' });
    stdin.write(line({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { message: 'other' } } }));
    stdin.write(line({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello' } } }));
    await waitFor(() => lines.length >= 2, 'two answers');
    stdin.end();
    await within(done, 'the replay to end');
    expect(lines[0]).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringContaining('does not match recorded line 1'), data: { code: 'replay_miss', reason: 'no-match', nearest: { line: 1 }, differences: ['/params/arguments/message'] } } });
    expect(lines[1]).toEqual({ jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: 'Echo: hello' }] } });
  });
});
